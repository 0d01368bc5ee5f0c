// Device Doctor: Install Native TensorFlow Backend — pick tfjs-node (CPU) or tfjs-node-gpu
// (CUDA 11.2 + cuDNN 8.1), install it with npm into the extension's global storage behind a
// cancellable progress notification (npm's output goes to the log), then ask the worker for its
// engines again so the new one shows up, or says why it still cannot run. Offline, the message
// says so; nothing else is touched. Allowed in Restricted Mode: see installNativeTfNpm.ts.
import * as vscode from 'vscode';
import type { EngineId } from '../../../core/bench/model';
import type { EnginesResponse } from '../../../protocol/worker';
import { findNpm, installNativeTf, NATIVE_TF_INSTALL_VERSION } from './installNativeTfNpm';
import type { InstallResult, NativeTfPackage, NpmLookup } from './installNativeTfNpm';

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
    detail: `@tensorflow/tfjs-node ${NATIVE_TF_INSTALL_VERSION}: TensorFlow's C library on the CPU. npm downloads libtensorflow (about 100 MB).`,
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
  /** <globalStorage>/native */
  folder: string;
  /** Asks the worker for its engines again (it looks in `folder`); undefined when that failed. */
  refreshEngines(): Promise<EnginesResponse | undefined>;
  runBenchmark(): void;
  /** Where to look for npm (tests); default: this process's runtime and PATH. */
  lookup?: NpmLookup;
}

export async function installNativeTfCommand(deps: InstallDeps): Promise<void> {
  const pick = await vscode.window.showQuickPick<NativePick & vscode.QuickPickItem>(NATIVE_PICKS.map((p) => ({ ...p })), {
    title: INSTALL_COMMAND_TITLE,
    placeHolder: 'Which native TensorFlow.js backend to install for the benchmark',
  });
  if (!pick) return;
  const lookup = deps.lookup ?? { execPath: process.execPath, env: process.env, platform: process.platform };
  const npm = findNpm(lookup);
  if (!npm) {
    const manual = `npm install --prefix "${deps.folder}" ${pick.packageName}@${NATIVE_TF_INSTALL_VERSION}`;
    deps.log.error(`npm was not found next to ${lookup.execPath} or on PATH.`);
    void vscode.window.showErrorMessage(`npm was not found (next to VS Code's runtime or on PATH). Install Node.js, which includes npm, or run \`${manual}\` in a terminal.`);
    return;
  }
  deps.log.info(`Installing ${pick.packageName}@${NATIVE_TF_INSTALL_VERSION} into ${deps.folder} with ${npm.command}.`);
  const result = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Installing ${pick.packageName} ${NATIVE_TF_INSTALL_VERSION}`, cancellable: true },
    (progress, token) => {
      const abort = new AbortController();
      const subscription = token.onCancellationRequested(() => abort.abort());
      progress.report({ message: 'npm install (downloads TensorFlow; this can take minutes)…' });
      return installNativeTf({
        npm,
        packageName: pick.packageName,
        prefix: deps.folder,
        env: lookup.env,
        signal: abort.signal,
        onOutput: (line) => deps.log.info(`[npm] ${line}`),
      }).finally(() => subscription.dispose());
    },
  );
  await reportInstall(result, pick, deps);
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
