// A child process whose stdout is read line by line as it arrives (bench.py streams its
// progress), built on the spawn helper's rules: no shell, its own process group, SIGKILL
// of the whole group to stop it, capped output. Unlike runTool it has no overall deadline:
// a benchmark may rightly run for minutes, so it is stopped when it falls silent, or when
// its caller aborts; an abort settles as soon as the process is gone (normally a few ms).
import { spawn, type ChildProcess } from 'child_process';
import { killTree } from './probes/spawn';

export interface LineProcessOptions {
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  /** Stopped when stdout stays silent this long before the first line (a hung import). */
  firstLineTimeoutMs: number;
  /** Stopped when stdout stays silent this long after the first line. */
  silenceTimeoutMs: number;
  /** A longer stdout line stops the process (a runaway print). */
  maxLineChars?: number;
  /** Only the end of stderr is kept, for the message when the process fails. */
  maxStderrChars?: number;
  onLine(line: string): void;
}

export type LineProcessEndReason = 'exited' | 'cancelled' | 'silent' | 'spawn-error' | 'line-too-long';

export interface LineProcessEnd {
  reason: LineProcessEndReason;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** The operating system's error when the process could not start (ENOENT, EACCES). */
  errorCode?: string;
  errorMessage?: string;
  stderrTail: string;
  /** How long it was silent when stopped for silence, in ms. */
  silentMs?: number;
}

const DEFAULT_MAX_LINE_CHARS = 1024 * 1024;
const DEFAULT_MAX_STDERR_CHARS = 16 * 1024;
/** After SIGKILL, how long to wait for the exit before settling anyway (a process in D-state). */
const EXIT_WAIT_MS = 500;

const running = new Set<ChildProcess>();

/** Kills every line process still running (the worker or CLI is exiting); returns how many. */
export function killLineProcesses(): number {
  const count = running.size;
  for (const child of running) killTree(child);
  running.clear();
  return count;
}

/** Runs `command args`; always resolves, never rejects. */
export function runLineProcess(command: string, args: readonly string[], options: LineProcessOptions): Promise<LineProcessEnd> {
  let child: ChildProcess;
  try {
    child = spawn(command, [...args], {
      shell: false,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: process.platform !== 'win32',
      windowsHide: true,
      env: options.env ?? process.env,
    });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return Promise.resolve({ reason: 'spawn-error', exitCode: null, signal: null, errorCode: 'ERROR', errorMessage: message, stderrTail: '' });
  }
  running.add(child);
  return new Promise((resolve) => followLines(child, options, resolve));
}

function followLines(child: ChildProcess, options: LineProcessOptions, resolve: (end: LineProcessEnd) => void): void {
  const maxLine = options.maxLineChars ?? DEFAULT_MAX_LINE_CHARS;
  const maxStderr = options.maxStderrChars ?? DEFAULT_MAX_STDERR_CHARS;
  let pending = '';
  let stderr = '';
  let sawLine = false;
  let lastOutput = Date.now();
  let stopping: LineProcessEndReason | null = null;
  let settled = false;

  const finish = (end: Omit<LineProcessEnd, 'stderrTail'>): void => {
    if (settled) return;
    settled = true;
    running.delete(child);
    clearInterval(watchdog);
    options.signal?.removeEventListener('abort', onAbort);
    resolve({ ...end, stderrTail: stderr });
  };
  /** SIGKILL the group, then settle on its exit (or shortly after, if it will not die). */
  const stop = (reason: LineProcessEndReason): void => {
    if (stopping || settled) return;
    stopping = reason;
    const silentMs = Date.now() - lastOutput;
    killTree(child);
    child.stdout?.destroy();
    child.stderr?.destroy();
    if (child.exitCode !== null || child.signalCode !== null) {
      finish({ reason, exitCode: child.exitCode, signal: child.signalCode, silentMs });
      return;
    }
    const timer = setTimeout(() => finish({ reason, exitCode: null, signal: 'SIGKILL', silentMs }), EXIT_WAIT_MS);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      finish({ reason, exitCode: code, signal, silentMs });
    });
  };
  const onAbort = (): void => stop('cancelled');
  const watchdog = setInterval(() => {
    const limit = sawLine ? options.silenceTimeoutMs : options.firstLineTimeoutMs;
    if (Date.now() - lastOutput > limit) stop('silent');
  }, Math.max(10, Math.min(1000, options.firstLineTimeoutMs / 4, options.silenceTimeoutMs / 4)));

  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (text: string) => {
    lastOutput = Date.now();
    pending += text;
    let newline: number;
    while (!stopping && (newline = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, newline).replace(/\r$/, '');
      pending = pending.slice(newline + 1);
      sawLine = true;
      if (line.trim() !== '') options.onLine(line);
    }
    if (pending.length > maxLine) stop('line-too-long');
  });
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (text: string) => {
    stderr = (stderr + text).slice(-maxStderr);
  });
  child.on('error', (err: NodeJS.ErrnoException) => {
    if (!stopping) finish({ reason: 'spawn-error', exitCode: null, signal: null, errorCode: err.code ?? 'ERROR', errorMessage: err.message });
  });
  child.on('close', (code, signal) => {
    if (stopping) return;
    if (pending.trim() !== '') options.onLine(pending);
    finish({ reason: 'exited', exitCode: code, signal });
  });
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener('abort', onAbort, { once: true });
}
