// What a runner hands the classifiers after running a tool: the parsers never spawn,
// they only read what happened.

/** How a spawn ended without an exit code: the tool is missing, not runnable, or was killed after its timeout. */
export type ToolErrorCode = 'ENOENT' | 'EACCES' | 'TIMEOUT' | (string & {});

export interface ToolRun {
  /** null when the process never ran or was killed. */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  errorCode?: ToolErrorCode;
  /** The timeout that was applied, for the message when errorCode is TIMEOUT. */
  timeoutMs?: number;
}

export function isNotInstalled(run: ToolRun): boolean {
  return run.errorCode === 'ENOENT';
}

export function isTimeout(run: ToolRun): boolean {
  return run.errorCode === 'TIMEOUT';
}

export function succeeded(run: ToolRun): boolean {
  return run.errorCode === undefined && run.exitCode === 0;
}

/** The first non-blank line of the tool's complaint (stderr first, then stdout). */
export function firstLine(run: ToolRun): string {
  const text = `${run.stderr}\n${run.stdout}`;
  const line = text.split(/\r?\n/).find((candidate) => candidate.trim() !== '');
  return line?.trim() ?? '';
}

export function secondsText(timeoutMs: number | undefined): string {
  if (timeoutMs === undefined) return 'its timeout';
  const seconds = timeoutMs / 1000;
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}
