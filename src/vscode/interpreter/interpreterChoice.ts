// Which Python the worker may run to ask PyTorch what it sees — and, in Restricted Mode, the
// guarantee that it is never one the workspace chose. An untrusted folder could name its own
// "interpreter" (a workspace setting, the Python extension's workspace-selected environment, a
// ${workspaceFolder} path): running it would run the folder's code. So there only the user's own
// setting counts, and only when it names nothing inside a workspace folder (a venv chosen there
// once, saved to the user settings, is still the folder's code); without one PyTorch is not
// probed at all. No vscode import.
import * as path from 'path';

export type InterpreterSource = 'user-setting' | 'workspace-setting' | 'python-extension' | 'path' | 'none';

export interface InterpreterChoice {
  /** What the worker runs (ProbeOptions.pythonPath); null: PyTorch is not probed. */
  pythonPath: string | null;
  source: InterpreterSource;
  /** One sentence for the log, the tooltip and the report: where it came from, or why none. */
  note: string;
}

/** `deviceDoctor.pythonPath` as `inspect()` returns it, level by level. */
export interface PythonPathSetting {
  globalValue?: string;
  workspaceValue?: string;
  workspaceFolderValue?: string;
}

export interface InterpreterContext {
  trusted: boolean;
  setting: PythonPathSetting;
  /** The folder the interpreter is for (relative paths and ${workspaceFolder} resolve against it). */
  workspaceFolder?: string;
  homeDir: string;
}

export interface InterpreterLookups {
  /** The Python extension's active interpreter. Never called in an untrusted workspace. */
  pythonExtension(): Promise<string | undefined>;
  /** `python3`, then `python`, on PATH. Never called in an untrusted workspace. */
  onPath(): string | undefined;
  /**
   * Whether an absolute path, or a bare name as PATH finds it, lies in a workspace folder, by every
   * name the file system gives either. Only called in an untrusted workspace.
   */
  insideWorkspace(file: string): boolean;
}

export const RESTRICTED_NOTE = 'Restricted Mode: PyTorch is not probed, because no interpreter chosen by this workspace is run. '
  + 'Trust the workspace, or set "deviceDoctor.pythonPath" in your user settings.';

/** A bare name the worker will look up on PATH when nothing else is found (it reports it missing). */
const FALLBACK_COMMAND = 'python3';

export async function chooseInterpreter(context: InterpreterContext, lookups: InterpreterLookups): Promise<InterpreterChoice> {
  return context.trusted ? chooseTrusted(context, lookups) : chooseRestricted(context, lookups);
}

function chooseRestricted(context: InterpreterContext, lookups: InterpreterLookups): InterpreterChoice {
  const value = nonEmpty(context.setting.globalValue);
  if (value === undefined) return { pythonPath: null, source: 'none', note: RESTRICTED_NOTE };
  const expanded = expandUserPath(value, context.homeDir);
  if (!isWorkspaceIndependent(expanded)) {
    return {
      pythonPath: null,
      source: 'none',
      note: `Restricted Mode: the user setting "deviceDoctor.pythonPath" (${value}) is not used here because it depends on the workspace; `
        + 'give an absolute path, or trust the workspace.',
    };
  }
  if (lookups.insideWorkspace(expanded)) {
    return {
      pythonPath: null,
      source: 'none',
      note: `Restricted Mode: the user setting "deviceDoctor.pythonPath" (${value}) is not used here because it is inside this workspace, `
        + 'whose code it would run; trust the workspace, or choose an interpreter outside it.',
    };
  }
  return { pythonPath: expanded, source: 'user-setting', note: `${expanded} (user setting "deviceDoctor.pythonPath")` };
}

async function chooseTrusted(context: InterpreterContext, lookups: InterpreterLookups): Promise<InterpreterChoice> {
  const { setting } = context;
  const fromWorkspace = nonEmpty(setting.workspaceFolderValue) ?? nonEmpty(setting.workspaceValue);
  const configured = fromWorkspace ?? nonEmpty(setting.globalValue);
  if (configured !== undefined) {
    const resolved = resolveConfiguredPath(configured, context);
    const source: InterpreterSource = fromWorkspace !== undefined ? 'workspace-setting' : 'user-setting';
    return { pythonPath: resolved, source, note: `${resolved} (setting "deviceDoctor.pythonPath")` };
  }
  const active = await lookups.pythonExtension();
  if (active) return { pythonPath: active, source: 'python-extension', note: `${active} (the Python extension's active interpreter)` };
  const onPath = lookups.onPath();
  if (onPath) return { pythonPath: onPath, source: 'path', note: `${onPath} (found on PATH)` };
  return {
    pythonPath: FALLBACK_COMMAND,
    source: 'none',
    note: 'No Python interpreter found: select one with the Python extension or set "deviceDoctor.pythonPath".',
  };
}

/** ~, ${userHome} and ${workspaceFolder}; a relative path is relative to the workspace folder. */
export function resolveConfiguredPath(value: string, context: InterpreterContext): string {
  let resolved = expandUserPath(value, context.homeDir);
  if (context.workspaceFolder !== undefined) {
    resolved = resolved.split('${workspaceFolder}').join(context.workspaceFolder);
    if (!path.isAbsolute(resolved) && hasSeparator(resolved)) resolved = path.resolve(context.workspaceFolder, resolved);
  }
  return resolved;
}

function expandUserPath(value: string, homeDir: string): string {
  const withHome = value.split('${userHome}').join(homeDir);
  return withHome === '~' || withHome.startsWith('~/') || withHome.startsWith('~\\') ? homeDir + withHome.slice(1) : withHome;
}

/** An absolute path, or a bare command name found on PATH; nothing relative to, or naming, the workspace. */
function isWorkspaceIndependent(value: string): boolean {
  if (value.includes('${')) return false;
  return path.isAbsolute(value) || !hasSeparator(value);
}

function hasSeparator(value: string): boolean {
  return value.includes('/') || value.includes('\\');
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}
