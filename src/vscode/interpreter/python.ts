// Interpreter discovery in the editor: `deviceDoctor.pythonPath`, the Python extension's active
// environment (through @vscode/python-extension; its absence is normal), then PATH — with
// Workspace Trust applied by chooseInterpreter. The Python extension is only asked in a trusted
// workspace: its interpreter may have been selected by the workspace itself.
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { PVSC_EXTENSION_ID, PythonExtension } from '@vscode/python-extension';
import { chooseInterpreter, resolveConfiguredPath } from './interpreterChoice';
import type { InterpreterCandidate } from '../../core/interpreters/model';
import type { InterpreterChoice } from './interpreterChoice';
import { findExecutable, findPythonOnPath } from '../../node/pathLookup';
import { mayRun } from '../../core/interpreters/trust';
import { trustFacts } from '../../node/interpreters/discover';
import { SETTINGS_SECTION } from '../../protocol/settings';
import { pythonPathInSettingsFile, type SettingsFileKind } from '../../core/interpreters/workspaceSettingsFile';

/** The Python extension may take a while to activate; a probe does not wait longer than this. */
const PYTHON_API_TIMEOUT_MS = 10_000;

export class InterpreterLocator implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  private readonly disposables: vscode.Disposable[] = [this.changed];
  private api: Promise<PythonExtension | undefined> | undefined;

  /** The Python extension's active environment changed (only watched once trusted). */
  readonly onDidChange = this.changed.event;

  constructor(private readonly log: vscode.LogOutputChannel) {}

  async locate(): Promise<InterpreterChoice> {
    const folder = vscode.workspace.workspaceFolders?.[0];
    const inspected = vscode.workspace.getConfiguration(SETTINGS_SECTION, folder?.uri).inspect<string>('pythonPath');
    const trusted = vscode.workspace.isTrusted;
    return chooseInterpreter(
      {
        trusted,
        // Untrusted: chooseInterpreter reads globalValue only; the others are never used.
        setting: trusted
          ? { globalValue: inspected?.globalValue, workspaceValue: inspected?.workspaceValue, workspaceFolderValue: inspected?.workspaceFolderValue }
          : { globalValue: inspected?.globalValue },
        workspaceFolder: folder?.uri.scheme === 'file' ? folder.uri.fsPath : undefined,
        homeDir: os.homedir(),
      },
      { pythonExtension: () => this.activeEnvironment(folder?.uri), onPath: () => findPythonOnPath(), insideWorkspace },
    );
  }

  /**
   * What only the editor knows for discovery: deviceDoctor.pythonPath at each level (a workspace
   * level marks it as named by the workspace: never run in Restricted Mode) and every environment
   * the Python extension knows (trusted workspaces only). Nothing is run here.
   */
  async knownInterpreters(): Promise<InterpreterCandidate[]> {
    const folder = vscode.workspace.workspaceFolders?.[0];
    const inspected = vscode.workspace.getConfiguration(SETTINGS_SECTION, folder?.uri).inspect<string>('pythonPath');
    const context = { trusted: vscode.workspace.isTrusted, setting: {}, workspaceFolder: folder?.uri.scheme === 'file' ? folder.uri.fsPath : undefined, homeDir: os.homedir() };
    const settings: InterpreterCandidate[] = [
      [inspected?.workspaceFolderValue, true],
      [inspected?.workspaceValue, true],
      [inspected?.globalValue, false],
    ].flatMap(([value, namedByWorkspace]) => {
      const text = typeof value === 'string' ? value.trim() : '';
      return text ? [{ path: resolveConfiguredPath(text, context), origins: ['setting' as const], namedByWorkspace: namedByWorkspace === true }] : [];
    });
    // Restricted Mode: the Python extension is not asked (see the top of this file); the
    // environments it knows may include one the workspace selected.
    if (vscode.workspace.isTrusted) return [...settings, ...(await this.pythonExtensionEnvironments())];
    return [...settings, ...(await this.namedByWorkspaceFiles())];
  }

  /**
   * Restricted Mode hides the workspace's own values of a restricted setting from inspect(), so
   * the interpreter the workspace names is read from its settings files: listed as not probed
   * (namedByWorkspace), never run.
   */
  private async namedByWorkspaceFiles(): Promise<InterpreterCandidate[]> {
    const home = os.homedir();
    const files: Array<{ uri: vscode.Uri; kind: SettingsFileKind; folder?: string }> = (vscode.workspace.workspaceFolders ?? [])
      .map((f) => ({ uri: vscode.Uri.joinPath(f.uri, '.vscode', 'settings.json'), kind: 'folderSettings' as const, folder: f.uri.scheme === 'file' ? f.uri.fsPath : undefined }));
    const workspaceFile = vscode.workspace.workspaceFile;
    if (workspaceFile?.scheme === 'file') files.push({ uri: workspaceFile, kind: 'workspaceFile', folder: path.dirname(workspaceFile.fsPath) });
    const found = await Promise.all(files.map(async ({ uri, kind, folder }) => {
      const text = await readText(uri);
      const value = text === undefined ? undefined : pythonPathInSettingsFile(text, kind);
      if (value === undefined) return [];
      const file = resolveConfiguredPath(value, { trusted: false, setting: {}, workspaceFolder: folder, homeDir: home });
      this.log.info(`Restricted Mode: ${uri.toString(true)} names the interpreter ${file}; it is listed, not run.`);
      return [{ path: file, origins: ['setting' as const], namedByWorkspace: true }];
    }));
    return found.flat();
  }

  private async pythonExtensionEnvironments(): Promise<InterpreterCandidate[]> {
    const api = await this.pythonApi();
    if (!api) return [];
    try {
      return api.environments.known.flatMap((environment) => {
        const file = environment.executable.uri?.fsPath;
        return file ? [{ path: file, origins: ['python-extension' as const], environmentName: environment.environment?.name }] : [];
      });
    } catch (error) {
      this.log.warn(`The Python extension could not list its environments: ${messageOf(error)}`);
      return [];
    }
  }

  dispose(): void {
    for (const disposable of this.disposables.splice(0)) disposable.dispose();
  }

  private async activeEnvironment(resource: vscode.Uri | undefined): Promise<string | undefined> {
    const api = await this.pythonApi();
    if (!api) return undefined;
    try {
      const active = api.environments.getActiveEnvironmentPath(resource);
      const resolved = await api.environments.resolveEnvironment(active);
      return resolved?.executable.uri?.fsPath ?? undefined;
    } catch (error) {
      this.log.warn(`The Python extension could not resolve the active environment: ${messageOf(error)}`);
      return undefined;
    }
  }

  private pythonApi(): Promise<PythonExtension | undefined> {
    this.api ??= this.loadPythonApi();
    return this.api;
  }

  private async loadPythonApi(): Promise<PythonExtension | undefined> {
    if (!vscode.extensions.getExtension(PVSC_EXTENSION_ID)) return undefined;
    try {
      const api = await withTimeout(PythonExtension.api(), PYTHON_API_TIMEOUT_MS);
      this.disposables.push(api.environments.onDidChangeActiveEnvironmentPath(() => this.changed.fire()));
      return api;
    } catch (error) {
      this.log.warn(`The Python extension's API is not available: ${messageOf(error)}`);
      this.api = undefined; // try again at the next probe
      return undefined;
    }
  }
}

/** Restricted Mode's judge, the one Choose Interpreter uses: segments, and the real paths of both sides. */
function insideWorkspace(setting: string): boolean {
  const file = path.isAbsolute(setting) ? setting : findExecutable(setting, process.env, process.platform);
  if (!file) return false; // not found: the worker reports it missing, running nothing
  const folders = (vscode.workspace.workspaceFolders ?? []).filter((folder) => folder.uri.scheme === 'file').map((folder) => folder.uri.fsPath);
  return !mayRun({ path: file, origins: ['setting'] }, trustFacts({ trusted: false, workspaceFolders: folders }));
}

/** A file's text, or undefined when it cannot be read (most folders have no .vscode/settings.json). */
async function readText(uri: vscode.Uri): Promise<string | undefined> {
  try {
    return new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
  } catch {
    return undefined;
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
