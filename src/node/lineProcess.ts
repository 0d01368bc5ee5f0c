// A child process whose stdout is read line by line as it arrives (bench.py streams its
// progress), built on the spawn helper's rules: no shell, its own process group, SIGKILL
// of the whole group to stop it, capped output. Unlike runTool it has no overall deadline:
// a benchmark may rightly run for minutes, so it is stopped when it falls silent, or when
// its caller aborts; an abort settles as soon as the process is gone (normally a few ms).
import { spawn, type ChildProcess } from 'child_process';
import { killTree } from './processRunner';

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
  return new Promise((resolve) => new LineFollower(child, options, resolve).start());
}

/** Follows one started process to its end: its exit, its caller's abort, silence, or a runaway line. */
class LineFollower {
  private pending = '';
  private stderr = '';
  private sawLine = false;
  private lastOutput = Date.now();
  private stopping: LineProcessEndReason | null = null;
  private settled = false;
  private watchdog: NodeJS.Timeout | undefined;
  private readonly onAbort = (): void => this.stop('cancelled');

  constructor(
    private readonly child: ChildProcess,
    private readonly options: LineProcessOptions,
    private readonly resolve: (end: LineProcessEnd) => void,
  ) {}

  start(): void {
    const { child, options } = this;
    const tick = Math.max(10, Math.min(1000, options.firstLineTimeoutMs / 4, options.silenceTimeoutMs / 4));
    this.watchdog = setInterval(() => this.checkSilence(), tick);
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (text: string) => this.readStdout(text));
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (text: string) => {
      this.stderr = (this.stderr + text).slice(-(options.maxStderrChars ?? DEFAULT_MAX_STDERR_CHARS));
    });
    child.on('error', (err: NodeJS.ErrnoException) => {
      if (!this.stopping) this.finish({ reason: 'spawn-error', exitCode: null, signal: null, errorCode: err.code ?? 'ERROR', errorMessage: err.message });
    });
    child.on('close', (code, signal) => {
      if (this.stopping) return;
      if (this.pending.trim() !== '') options.onLine(this.pending);
      this.finish({ reason: 'exited', exitCode: code, signal });
    });
    if (options.signal?.aborted) this.onAbort();
    else options.signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  private readStdout(text: string): void {
    this.lastOutput = Date.now();
    this.pending += text;
    let newline: number;
    while (!this.stopping && (newline = this.pending.indexOf('\n')) >= 0) {
      const line = this.pending.slice(0, newline).replace(/\r$/, '');
      this.pending = this.pending.slice(newline + 1);
      this.sawLine = true;
      if (line.trim() !== '') this.options.onLine(line);
    }
    if (this.pending.length > (this.options.maxLineChars ?? DEFAULT_MAX_LINE_CHARS)) this.stop('line-too-long');
  }

  private checkSilence(): void {
    const limit = this.sawLine ? this.options.silenceTimeoutMs : this.options.firstLineTimeoutMs;
    if (Date.now() - this.lastOutput > limit) this.stop('silent');
  }

  /** SIGKILL the group, then settle on its exit (or shortly after, if it will not die). */
  private stop(reason: LineProcessEndReason): void {
    if (this.stopping || this.settled) return;
    this.stopping = reason;
    const { child } = this;
    const silentMs = Date.now() - this.lastOutput;
    killTree(child);
    child.stdout?.destroy();
    child.stderr?.destroy();
    if (child.exitCode !== null || child.signalCode !== null) {
      this.finish({ reason, exitCode: child.exitCode, signal: child.signalCode, silentMs });
      return;
    }
    const timer = setTimeout(() => this.finish({ reason, exitCode: null, signal: 'SIGKILL', silentMs }), EXIT_WAIT_MS);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      this.finish({ reason, exitCode: code, signal, silentMs });
    });
  }

  private finish(end: Omit<LineProcessEnd, 'stderrTail'>): void {
    if (this.settled) return;
    this.settled = true;
    running.delete(this.child);
    clearInterval(this.watchdog);
    this.options.signal?.removeEventListener('abort', this.onAbort);
    this.resolve({ ...end, stderrTail: this.stderr });
  }
}
