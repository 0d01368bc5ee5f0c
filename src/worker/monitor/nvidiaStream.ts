// The one long-lived `nvidia-smi ... -lms <ms>` process behind the live memory display.
// Never a process per poll: nvidia-smi initializes NVML on every start, which costs
// more than the query. If it dies it is restarted with a growing back-off; if it stops
// printing it is killed and restarted; if it is not installed or sees no GPU, it stays
// stopped until the next start().
import { classifyNvidiaSmiFailure } from '../../core/devices/nvidiaFailure';
import { endedHow, type ToolRun } from '../../core/devices/toolRun';
import { NvidiaMonitorParser, nvidiaMonitorArgs, type MemorySampleRow } from '../../core/devices/nvidiaMonitor';
import type { LogFn } from '../detect/probes/probeContext';
import { startProcess, type RunningProcess } from '../../node/processRunner';
import { TextTail } from '../../node/processOutput';

export interface NvidiaStreamOptions {
  env: NodeJS.ProcessEnv;
  log: LogFn;
  onRows: (rows: MemorySampleRow[]) => void;
  onProblem: (message: string) => void;
  /** First restart delay; doubles per consecutive failure up to maxRestartDelayMs. */
  restartDelayMs?: number;
  maxRestartDelayMs?: number;
  /** Silence after which the process counts as stuck; default max(10 intervals, 15 s). */
  silenceMs?: number;
}

const TAIL_CHARS = 2048;

/** One started process and what it has said so far. */
interface Run {
  process: RunningProcess;
  parser: NvidiaMonitorParser;
  /** The last output, for the failure message when it ends. */
  tail: TextTail;
  sawRows: boolean;
}

export class NvidiaStream {
  private current: Run | undefined;
  private intervalMs = 0;
  private failures = 0;
  private restartTimer: NodeJS.Timeout | undefined;
  private watchdog: NodeJS.Timeout | undefined;
  private running = false;
  /** How many processes this stream has started (tests check that it is not one per poll). */
  starts = 0;

  constructor(private readonly options: NvidiaStreamOptions) {}

  get active(): boolean {
    return this.running;
  }

  start(intervalMs: number): void {
    this.stop();
    this.running = true;
    this.intervalMs = intervalMs;
    this.failures = 0;
    this.spawnOnce();
  }

  stop(): void {
    this.running = false;
    clearTimeout(this.restartTimer);
    clearTimeout(this.watchdog);
    const run = this.current;
    this.current = undefined;
    // Not waited for: one in D-state may never close its pipes.
    run?.process.abandon();
  }

  private spawnOnce(): void {
    if (!this.running) return;
    this.starts++;
    // Raw chunks, not lines: the parser hands over a whole block (one row per GPU) at once.
    const run: Run = {
      process: startProcess('nvidia-smi', nvidiaMonitorArgs(this.intervalMs), {
        env: this.options.env,
        onStdout: (chunk) => this.onOutput(run, chunk),
        onStderr: (chunk) => run.tail.add(chunk),
      }),
      parser: new NvidiaMonitorParser(),
      tail: new TextTail(TAIL_CHARS),
      sawRows: false,
    };
    this.current = run;
    this.armWatchdog(run);
    void run.process.ended.then((end) => {
      if (end.errorCode) return this.ended(run, { exitCode: null, errorCode: end.errorCode, errorMessage: end.errorMessage });
      const rows = run.parser.flush();
      if (rows.length > 0 && this.current === run) this.options.onRows(rows);
      this.ended(run, { exitCode: end.exitCode, signal: end.signal });
    });
  }

  private onOutput(run: Run, chunk: string): void {
    run.tail.add(chunk);
    const rows = run.parser.push(chunk);
    if (rows.length === 0 || this.current !== run) return;
    run.sawRows = true;
    this.failures = 0;
    this.armWatchdog(run);
    this.options.onRows(rows);
  }

  /** A stream that prints nothing for several intervals is stuck: kill it and start again. */
  private armWatchdog(run: Run): void {
    clearTimeout(this.watchdog);
    const silenceMs = this.options.silenceMs ?? Math.max(10 * this.intervalMs, 15_000);
    this.watchdog = setTimeout(() => {
      if (this.current !== run) return;
      this.options.log('warn', `nvidia-smi printed nothing for ${silenceMs} ms; restarting it`);
      run.process.abandon();
      this.ended(run, { exitCode: null, errorCode: 'TIMEOUT', timeoutMs: silenceMs });
    }, silenceMs);
  }

  private ended(run: Run, end: Omit<ToolRun, 'stdout' | 'stderr'>): void {
    if (this.current !== run) return; // stopped, replaced, or already handled ('error' then 'close')
    this.current = undefined;
    clearTimeout(this.watchdog);
    if (!this.running) return;
    const ended: ToolRun = { ...end, stdout: run.tail.text, stderr: '' };
    const failure = classifyNvidiaSmiFailure(ended);
    if (failure.kind === 'not-installed' || failure.kind === 'no-devices') {
      this.options.log('info', `live GPU memory is off: nvidia-smi ${failure.kind === 'not-installed' ? 'is not installed' : 'found no GPU'}`);
      this.running = false;
      return;
    }
    if (!run.sawRows) this.failures++;
    const delay = this.restartDelay();
    // A crash names its signal ("it was killed by SIGSEGV"), never "exit code unknown".
    const why = failure.problem?.message ?? `it ${endedHow(ended)}`;
    this.options.onProblem(`the nvidia-smi memory monitor stopped (${why}); restarting it in ${(delay / 1000).toFixed(1)} s`);
    this.restartTimer = setTimeout(() => this.spawnOnce(), delay);
  }

  private restartDelay(): number {
    const base = this.options.restartDelayMs ?? 1_000;
    const max = this.options.maxRestartDelayMs ?? 5 * 60_000;
    return Math.min(base * 2 ** Math.max(0, this.failures - 1), max);
  }
}
