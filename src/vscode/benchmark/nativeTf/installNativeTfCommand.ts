// Device Doctor: Install Native TensorFlow Backend — only in a trusted workspace; pick tfjs-node
// (CPU) or tfjs-node-gpu (CUDA 11.2 + cuDNN 8.1); refuse where an archive it needs has no pinned
// checksum; ask in a modal that names every download and its source; then npm ci of the shipped
// lockfile (no install scripts) and the pinned archives, behind a cancellable progress
// notification (the output goes to the log); then ask the worker for its engines again.
import * as vscode from 'vscode';
import type { EngineId } from '../../../core/bench/model';
import type { EnginesResponse } from '../../../protocol/worker';
import { findNpm, installNativeTf, NATIVE_TF_INSTALL_VERSION, packageFolderName } from './installNativeTfNpm';
import type { InstallResult, NativeTfPackage, NpmLookup } from './installNativeTfNpm';
import { INSTALL_ACTION, installConfirmation, lockedPackageCount, MANAGE_TRUST_ACTION, UNTRUSTED_MESSAGE } from './installConfirmation';
import { planNativeInstall, type InstallPlan, type PinnedArchive } from './nativeTfArchives';
import type { HttpsGet } from './verifiedDownload';

export const INSTALL_COMMAND_TITLE = 'Device Doctor: Install Native TensorFlow Backend';
export const RUN_BENCHMARK_ACTION = 'Run Matmul Benchmark';

export interface NativePick {
  label: string;
  description: string;
  detail: string;
  packageName: NativeTfPackage;
  engine: EngineId;
}

export const NATIVE_PICKS: readonly NativePick[] = [
  {
    label: 'tfjs-node',
    description: 'CPU',
    detail: `@tensorflow/tfjs-node ${NATIVE_TF_INSTALL_VERSION}: TensorFlow's C library on the CPU, downloaded and checked against a pinned SHA-256.`,
    packageName: '@tensorflow/tfjs-node',
    engine: 'tfjs-node',
  },
  {
    label: 'tfjs-node-gpu',
    description: 'CUDA 11.2 + cuDNN 8.1',
    detail: `@tensorflow/tfjs-node-gpu ${NATIVE_TF_INSTALL_VERSION}: needs an NVIDIA GPU with CUDA 11.2 and cuDNN 8.1 libraries installed; newer CUDA versions are not picked up.`,
    packageName: '@tensorflow/tfjs-node-gpu',
    engine: 'tfjs-node-gpu',
  },
];

export interface InstallDeps {
  log: Pick<vscode.LogOutputChannel, 'info' | 'warn' | 'error' | 'show'>;
  /** <globalStorage>/native: each package gets its own folder in it. */
  folder: string;
  /** media/nativeTf in the extension: each package's manifest and lockfile. */
  lockDir: string;
  /** Asks the worker for its engines again (it looks in `folder`); undefined when that failed. */
  refreshEngines(): Promise<EnginesResponse | undefined>;
  runBenchmark(): void;
  /** Where to look for npm (tests); default: this process's runtime and PATH. */
  lookup?: NpmLookup;
  /** Tests: default vscode.workspace.isTrusted. */
  isTrusted?(): boolean;
  /** Tests: default planNativeInstall for this platform. */
  plan?(pkg: NativeTfPackage): InstallPlan;
  /** Tests: a fake https.get. */
  get?: HttpsGet;
}

export async function installNativeTfCommand(deps: InstallDeps): Promise<void> {
  if (!(await trusted(deps))) return;
  const pick = await vscode.window.showQuickPick<NativePick & vscode.QuickPickItem>(NATIVE_PICKS.map((p) => ({ ...p })), {
    title: INSTALL_COMMAND_TITLE,
    placeHolder: 'Which native TensorFlow.js backend to install for the benchmark',
  });
  if (!pick) return;
  const plan = deps.plan?.(pick.packageName) ?? planNativeInstall(pick.packageName, process.platform, process.arch);
  if (plan.kind === 'refused') return fail(deps, plan.message);
  const lookup = deps.lookup ?? { execPath: process.execPath, env: process.env, platform: process.platform };
  const npm = findNpm(lookup);
  if (!npm) {
    deps.log.error(`npm was not found next to ${lookup.execPath} or on PATH.`);
    return fail(deps, 'npm was not found (next to VS Code\'s runtime or on PATH). Install Node.js, which includes npm, and run this command again.');
  }
  const prefix = vscode.Uri.joinPath(vscode.Uri.file(deps.folder), packageFolderName(pick.packageName)).fsPath;
  if (!(await confirmed(deps, pick.packageName, prefix, plan.archives))) return;
  deps.log.info(`Installing ${pick.packageName}@${NATIVE_TF_INSTALL_VERSION} into ${prefix} with ${npm.command} ci --ignore-scripts, then ${plan.archives.map((a) => a.url).join(', ')}.`);
  const result = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Installing ${pick.packageName} ${NATIVE_TF_INSTALL_VERSION}`, cancellable: true },
    (progress, token) => {
      const abort = new AbortController();
      const subscription = token.onCancellationRequested(() => abort.abort());
      progress.report({ message: 'npm ci, then TensorFlow\'s library (this can take minutes)…' });
      const options = { npm, packageName: pick.packageName, prefix, lockDir: deps.lockDir, archives: plan.archives, env: lookup.env, signal: abort.signal, get: deps.get };
      return installNativeTf({ ...options, onOutput: (line) => deps.log.info(`[install] ${line}`) }).finally(() => subscription.dispose());
    },
  );
  await reportInstall(result, pick, deps);
}

/** Native code is downloaded and loaded: never from an untrusted window (Restricted Mode). */
async function trusted(deps: InstallDeps): Promise<boolean> {
  if (deps.isTrusted?.() ?? vscode.workspace.isTrusted) return true;
  deps.log.warn('Install Native TensorFlow Backend was not run: the workspace is not trusted.');
  const action = await vscode.window.showWarningMessage(UNTRUSTED_MESSAGE, MANAGE_TRUST_ACTION);
  if (action === MANAGE_TRUST_ACTION) void vscode.commands.executeCommand('workbench.trust.manage');
  return false;
}

/** The modal naming every download and its source; false when declined (or the shipped lockfile is unreadable). */
async function confirmed(deps: InstallDeps, pkg: NativeTfPackage, prefix: string, archives: readonly PinnedArchive[]): Promise<boolean> {
  let packageCount: number;
  try {
    packageCount = lockedPackageCount(deps.lockDir, pkg);
  } catch (error) {
    fail(deps, `The lockfile shipped with Device Doctor for ${pkg} could not be read (${error instanceof Error ? error.message : String(error)}): reinstall the extension.`);
    return false;
  }
  const { message, detail } = installConfirmation({ pkg, prefix, packageCount, archives });
  return (await vscode.window.showWarningMessage(message, { modal: true, detail }, INSTALL_ACTION)) === INSTALL_ACTION;
}

function fail(deps: InstallDeps, message: string): void {
  deps.log.error(message);
  void vscode.window.showErrorMessage(message);
}

async function reportInstall(result: InstallResult, pick: NativePick, deps: InstallDeps): Promise<void> {
  if (result.kind === 'cancelled') {
    deps.log.info(`Installing ${pick.packageName} was cancelled.`);
    vscode.window.setStatusBarMessage(`$(circle-slash) Installing ${pick.label} cancelled`, 5000);
    return;
  }
  if (result.kind === 'failed') {
    deps.log.error(result.message);
    const action = await vscode.window.showErrorMessage(result.message, 'Show Log');
    if (action === 'Show Log') deps.log.show();
    return;
  }
  deps.log.info(`${pick.packageName} installed in ${result.packageDir}.`);
  const engines = await deps.refreshEngines();
  const problem = engines?.engines.find((e) => e.engine === pick.engine)?.problem ?? null;
  if (problem) {
    void vscode.window.showWarningMessage(`${pick.packageName} is installed, but the ${pick.engine} engine cannot run: ${problem.message}${problem.remedy ? ` ${problem.remedy}` : ''}`);
    return;
  }
  const ready = engines ? `the ${pick.engine} engine is ready` : 'the benchmark will look for it';
  const action = await vscode.window.showInformationMessage(`${pick.packageName} is installed: ${ready}.`, RUN_BENCHMARK_ACTION);
  if (action === RUN_BENCHMARK_ACTION) deps.runBenchmark();
}
