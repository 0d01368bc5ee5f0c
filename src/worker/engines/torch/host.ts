// One Python process that first answers the PyTorch probe and then runs the benchmark, so that
// `device-doctor bench` imports torch once (issue 14: the default bench imported it twice,
// probe.py and then bench.py, 7 s on this machine). bench.py starts in its serve mode: it
// imports torch, prints probe.py's object as a {"type": "probe"} line, and waits for one line
// on stdin with its usual argument. detect takes the probe from here (probeRun), and the torch
// engine's first batch claims the process (claim) instead of starting another bench.py. Nothing
// claimed it: close() ends its stdin and it exits without doing anything.
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
  private claimed = false;
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
   * The process for one bench.py argument (the torch engine's first batch): its lines go to
   * `onLine`, and the promise settles when it has ended. null when another batch had it, or
   * when it can no longer take one (it ended): start a bench.py of your own then.
   */
  claim(args: object, onLine: (line: string) => void, signal?: AbortSignal): Promise<LineProcessEnd> | null {
    if (this.claimed || this.exited || !this.process) return null;
    this.claimed = true;
    this.onLine = onLine;
    if (!this.process.writeInput(`${JSON.stringify(args)}\n`)) return null;
    this.process.endInput();
    const unsubscribe = whenAborted(signal, () => this.stopper.abort());
    return this.ended.finally(unsubscribe);
  }

  /** Unclaimed: EOF on its stdin, and bench.py exits; claimed: nothing (the run owns it). */
  close(): void {
    if (this.claimed) return;
    this.claimed = true;
    this.process?.endInput();
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
