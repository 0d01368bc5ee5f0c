// One Python process that first answers the PyTorch probe and then runs the benchmark, so that
// `device-doctor bench` imports torch once (issue 14: the default bench imported it twice,
// probe.py and then bench.py, 7 s on this machine). bench.py starts in its serve mode: it
// imports torch, prints probe.py's object as a {"type": "probe"} line, and then runs each line
// it reads on stdin (its usual argument) in turn, each ending with a {"type": "done"} line.
// detect takes the probe from here (probeRun), and the torch engine's batches claim the process
// one after the other (claim) instead of starting bench.py again: the CPU default's two thread
// counts are two batches and one import. close() ends its stdin, and it exits.
import type { ToolRun } from '../../../core/devices/toolRun';
import { runLineProcess, type LineProcessEnd } from '../../../node/lineProcess';
import { whenAborted, type RunningProcess } from '../../../node/processRunner';

/** As the engine's own bench.py: a benchmark may rightly run for long; it is stopped after this much silence. */
const SILENCE_TIMEOUT_MS = 30 * 60_000;

export interface TorchHostOptions {
  python: string;
  script: string;
  env?: NodeJS.ProcessEnv;
  /** As the probe's timeout: importing torch may take this long. */
  importTimeoutMs: number;
}

export class TorchHost {
  readonly python: string;
  /** Settles with what probe.py would have printed, or how the process failed before it. */
  readonly probeRun: Promise<ToolRun>;
  private readonly ended: Promise<LineProcessEnd>;
  private readonly stopper = new AbortController();
  private process: RunningProcess | undefined;
  private onLine: ((line: string) => void) | undefined;
  /** A batch is running: the next claim starts a bench.py of its own. */
  private busy = false;
  private closed = false;
  private exited = false;
  private resolveProbe: (run: ToolRun) => void = () => undefined;

  constructor(options: TorchHostOptions) {
    this.python = options.python;
    let probed = false;
    this.probeRun = new Promise((resolve) => (this.resolveProbe = resolve));
    const env = { ...(options.env ?? process.env), PYTHONDONTWRITEBYTECODE: '1', PYTHONIOENCODING: 'utf-8' };
    this.ended = runLineProcess(options.python, [options.script, '{"serve": true}'], {
      env,
      signal: this.stopper.signal,
      stdin: true,
      onStarted: (child) => (this.process = child),
      firstLineTimeoutMs: options.importTimeoutMs,
      silenceTimeoutMs: SILENCE_TIMEOUT_MS,
      onLine: (line) => {
        if (!probed) {
          const report = probeReport(line);
          if (report !== undefined) {
            probed = true;
            this.resolveProbe({ exitCode: 0, stdout: `${JSON.stringify(report)}\n`, stderr: '' });
            return;
          }
        }
        this.onLine?.(line);
      },
    });
    // Ended before its probe line: the probe's run says how (not found, a hung import, a crash).
    void this.ended.then((end) => {
      this.exited = true;
      this.resolveProbe(probeFailure(end, options.importTimeoutMs));
    });
  }

  /**
   * The process for one bench.py argument (a torch engine batch): its lines go to `onLine`,
   * and the promise settles at the batch's "done" line (as if a bench.py of its own had exited
   * with 0), or with how the process ended before it. null while another batch runs, or once it
   * can take no more (closed, ended): start a bench.py of your own then. Cancelling a batch
   * stops the process, as it stops a bench.py of its own.
   */
  claim(args: object, onLine: (line: string) => void, signal?: AbortSignal): Promise<LineProcessEnd> | null {
    if (this.busy || this.closed || this.exited || !this.process) return null;
    if (!this.process.writeInput(`${JSON.stringify(args)}\n`)) return null;
    this.busy = true;
    let finish: (end: LineProcessEnd) => void = () => undefined;
    const batchEnded = new Promise<LineProcessEnd>((resolve) => (finish = resolve));
    this.onLine = (line) => {
      onLine(line);
      if (isDoneLine(line)) {
        this.onLine = undefined;
        this.busy = false;
        finish({ reason: 'exited', exitCode: 0, signal: null, stderrTail: '' });
      }
    };
    const unsubscribe = whenAborted(signal, () => this.stopper.abort());
    return Promise.race([batchEnded, this.ended]).finally(unsubscribe);
  }

  /** EOF on its stdin: bench.py exits once the batch it may be running has finished. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.process?.endInput();
  }
}

function isDoneLine(line: string): boolean {
  try {
    return (JSON.parse(line) as { type?: unknown }).type === 'done';
  } catch {
    return false;
  }
}

function probeReport(line: string): unknown {
  try {
    const parsed = JSON.parse(line) as { type?: unknown; report?: unknown };
    return parsed.type === 'probe' && typeof parsed.report === 'object' && parsed.report !== null ? parsed.report : undefined;
  } catch {
    return undefined;
  }
}

function probeFailure(end: LineProcessEnd, timeoutMs: number): ToolRun {
  if (end.reason === 'silent') return { exitCode: null, stdout: '', stderr: end.stderrTail, errorCode: 'TIMEOUT', timeoutMs };
  if (end.reason === 'spawn-error') return { exitCode: null, stdout: '', stderr: end.stderrTail, errorCode: end.errorCode, errorMessage: end.errorMessage };
  return { exitCode: end.exitCode, signal: end.signal, stdout: '', stderr: end.stderrTail };
}
