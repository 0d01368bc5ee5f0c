// What a runner hands the classifiers after running a tool: the parsers never spawn,
// they only read what happened.

/**
 * How a run ended without an exit code of its own: the tool is missing (ENOENT), not runnable
 * (EACCES), a relative path that is never run (ERELATIVE), killed after its timeout (TIMEOUT),
 * or killed because it printed more than the runner keeps (OUTPUT_TOO_LARGE).
 */
export type ToolErrorCode = 'ENOENT' | 'EACCES' | 'ERELATIVE' | 'TIMEOUT' | 'OUTPUT_TOO_LARGE' | (string & {});

export interface ToolRun {
  /** null when the process never ran or was killed. */
  exitCode: number | null;
  /** The signal it died of (SIGSEGV: a crash), when it did. */
  signal?: string | null;
  stdout: string;
  stderr: string;
  errorCode?: ToolErrorCode;
  /** The operating system's (or the runner's) message when the tool could not be started. */
  errorMessage?: string;
  /** The timeout that was applied, for the message when errorCode is TIMEOUT. */
  timeoutMs?: number;
  /** The cap per stream that was passed, for the message when errorCode is OUTPUT_TOO_LARGE. */
  outputLimitBytes?: number;
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

/** "output too large (over 8388608 bytes)" */
export function outputTooLargeText(run: ToolRun): string {
  return run.outputLimitBytes === undefined ? 'output too large' : `output too large (over ${run.outputLimitBytes} bytes)`;
}

/**
 * How a run that did not succeed ended, to follow the tool's name: "was killed by SIGSEGV",
 * "was stopped: output too large (over N bytes)", "could not be run (EACCES)", "exited with
 * code 3". A timeout has its own sentences where it is reported.
 */
export function endedHow(run: ToolRun): string {
  if (run.errorCode === 'OUTPUT_TOO_LARGE') return `was stopped: ${outputTooLargeText(run)}`;
  if (run.errorCode === 'TIMEOUT') return `did not answer within ${secondsText(run.timeoutMs)} and was stopped`;
  if (run.errorCode !== undefined) return `could not be run (${run.errorCode})`;
  if (run.signal) return `was killed by ${run.signal}`;
  if (run.exitCode !== null) return `exited with code ${run.exitCode}`;
  return 'ended without an exit code';
}

/** A line of a tool's output for a message: trimmed, and cut when long. */
export function quoteLine(line: string, maxChars = 120): string {
  const text = line.trim();
  return `"${text.length > maxChars ? `${text.slice(0, maxChars)}…` : text}"`;
}
