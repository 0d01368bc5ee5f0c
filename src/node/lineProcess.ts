// A child process whose stdout is read line by line as it arrives (bench.py streams its
// progress), on the process runner. Unlike runTool it has no overall deadline: a benchmark may
// rightly run for minutes, so it is stopped when it falls silent, or when its caller aborts;
// a stop settles as soon as the process is gone (normally a few ms).
import { DEFAULT_MAX_LINE_CHARS, killChildren, OWNED_CHILDREN, startProcess, whenAborted, type RunningProcess } from './processRunner';

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
  /** Open a pipe to its stdin; `onStarted` gets the process to write to it. */
  stdin?: boolean;
  onStarted?(process: RunningProcess): void;
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

/** After SIGKILL, how long to wait for the exit before settling anyway (a process in D-state). */
const EXIT_WAIT_MS = 500;

/**
 * Kills every line process still running, and every runTool tool with them: both are in the
 * runner's one OWNED_CHILDREN set (the worker calls killChildren() itself); returns how many.
 */
export function killLineProcesses(): number {
  return killChildren();
}

/** Runs `command args`; always resolves, never rejects. */
export function runLineProcess(command: string, args: readonly string[], options: LineProcessOptions): Promise<LineProcessEnd> {
  return new Promise((resolve) => new LineFollower(options, resolve).start(command, args));
}

/** Follows one started process to its end: its exit, its caller's abort, silence, or a runaway line. */
class LineFollower {
  private process: RunningProcess | undefined;
  private sawLine = false;
  private lastOutput = Date.now();
  private stopping = false;
  private settled = false;
  private watchdog: NodeJS.Timeout | undefined;
  private unsubscribe = (): void => undefined;

  constructor(
    private readonly options: LineProcessOptions,
    private readonly resolve: (end: LineProcessEnd) => void,
  ) {}

  start(command: string, args: readonly string[]): void {
    const { options } = this;
    const child = startProcess(command, args, {
      env: options.env,
      track: OWNED_CHILDREN,
      onStdout: (text) => {
        this.lastOutput = Date.now();
        // Any newline counts, a blank line too: the process has started talking.
        if (text.includes('\n')) this.sawLine = true;
      },
      onStdoutLine: (line) => options.onLine(line),
      maxLineChars: options.maxLineChars ?? DEFAULT_MAX_LINE_CHARS,
      onLineTooLong: () => this.stop('line-too-long'),
      stderrTailChars: options.maxStderrChars,
      stdin: options.stdin,
    });
    this.process = child;
    options.onStarted?.(child);
    void child.ended.then((end) => {
      if (!this.stopping) this.finish({ reason: end.errorCode ? 'spawn-error' : 'exited', ...end });
    });
    const tick = Math.max(10, Math.min(1000, options.firstLineTimeoutMs / 4, options.silenceTimeoutMs / 4));
    this.watchdog = setInterval(() => this.checkSilence(), tick);
    this.unsubscribe = whenAborted(options.signal, () => this.stop('cancelled'));
  }

  private checkSilence(): void {
    const limit = this.sawLine ? this.options.silenceTimeoutMs : this.options.firstLineTimeoutMs;
    if (Date.now() - this.lastOutput > limit) this.stop('silent');
  }

  /** SIGKILL the group, then settle on its exit (or shortly after, if it will not die). */
  private stop(reason: LineProcessEndReason): void {
    if (this.stopping || this.settled || !this.process) return;
    this.stopping = true;
    const silentMs = Date.now() - this.lastOutput;
    void this.process.stop(EXIT_WAIT_MS).then((end) => this.finish({ reason, ...end, silentMs }));
  }

  private finish(end: Omit<LineProcessEnd, 'stderrTail'>): void {
    if (this.settled) return;
    this.settled = true;
    clearInterval(this.watchdog);
    this.unsubscribe();
    this.resolve({ ...end, stderrTail: this.process?.stderrTail ?? '' });
  }
}
