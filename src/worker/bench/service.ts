// The worker's benchmark methods: BenchRequest (progress notifications, cancellation)
// and EnginesRequest. One benchmark at a time: a second request while one runs is
// rejected with BENCH_BUSY rather than queued — a queued run would start minutes later
// behind a progress notification the user did not ask for, and a click that seems to do
// nothing is worse than a message saying a benchmark is already running (the editor
// offers cancel on the running one). A request that comes while a cancelled run is still
// stopping (under a second) waits for it instead: "cancel, then run again" just works.
// The benchmark itself is benchmark.ts, which the CLI runs in-process too; this file
// only adapts it to JSON-RPC: tokens, notifications and error codes.
import { ResponseError, type CancellationToken, type MessageConnection } from 'vscode-jsonrpc';
import type { DeviceReport } from '../../core/devices/report';
import {
  BENCH_BUSY,
  BENCH_INVALID,
  BenchProgressNotification,
  BenchRequest,
  EnginesRequest,
  type BenchParams,
  type BenchRunResponse,
  type EnginesParams,
  type EnginesResponse,
  type ProbeOptions,
} from '../../protocol/worker';
import type { Engine } from '../engines/engine';
import { benchmark, InvalidBenchRequest, listEngines, type BenchHooks } from './benchmark';
import { benchEveryDevice } from './everyDeviceBench';
import { createBenchEngines, type BenchEngineOptions } from './engines';
import { createTfjsEngines } from '../engines';
import type { LogFn } from '../detect/probes/probeContext';
import type { DetectEnvironment } from '../detect/detect';
import { benchScriptPath } from '../engines/torch/engine';
import { TorchHost } from '../engines/torch/host';
import { DEFAULT_TIMEOUTS_MS } from '../../protocol/probeTimeouts';

export interface BenchServiceDeps {
  connection: MessageConnection;
  env: NodeJS.ProcessEnv;
  /**
   * The device report for these options: the last detect's when it matches, else a fresh detect,
   * whose PyTorch probe `torchProbeRun` may answer (a TorchHost's).
   */
  report(options: ProbeOptions, signal: AbortSignal, torchProbeRun?: DetectEnvironment['torchProbeRun']): Promise<DeviceReport>;
  /** Whether report() would run this interpreter's PyTorch probe (no matching report, nothing cached). */
  willProbeTorch?(options: ProbeOptions): boolean;
  log: LogFn;
  /** Tests replace the engines (a bench.py with a test hook, fake engines). */
  engines?: (options: BenchEngineOptions) => Engine[];
}

/** How long a new request waits for a cancelled run to stop before it is answered busy. */
const CANCELLED_RUN_WAIT_MS = 3_000;

/** JSON-RPC's "request cancelled" (LSP's -32800), as detect answers. */
const REQUEST_CANCELLED = -32800;

function toAbortSignal(token: CancellationToken): AbortSignal {
  const controller = new AbortController();
  if (token.isCancellationRequested) controller.abort();
  else token.onCancellationRequested(() => controller.abort());
  return controller.signal;
}

export class BenchService {
  private running: { description: string; since: number; signal: AbortSignal; finished: Promise<unknown>; done: boolean } | null = null;

  constructor(private readonly deps: BenchServiceDeps) {}

  register(): void {
    this.deps.connection.onRequest(BenchRequest, (params, token) => this.bench(params, token));
    this.deps.connection.onRequest(EnginesRequest, (params, token) => this.engines(params, token));
  }

  private makeEngines(params: EnginesParams, report: DeviceReport, host?: TorchHost | null): Engine[] {
    const options: BenchEngineOptions = { python: params.pythonPath || null, report, env: this.deps.env, nativeSearchPaths: params.nativeSearchPaths, ...(host ? { torch: { host } } : {}) };
    return (this.deps.engines ?? createBenchEngines)(options);
  }

  /**
   * When this bench must detect first, one Python answers the detect's PyTorch probe and then
   * runs the torch batch (torch imported once, as the CLI's bench). A detect done earlier is not
   * kept waiting in a Python of its own: an idle process holding torch (and on a GPU, a CUDA
   * context) for a benchmark that may never come costs the user more than one more import.
   */
  private hostFor(probe: ProbeOptions): TorchHost | null {
    if (!probe.pythonPath || !this.deps.willProbeTorch?.(probe)) return null;
    return new TorchHost({ python: probe.pythonPath, script: benchScriptPath(), env: this.deps.env, importTimeoutMs: DEFAULT_TIMEOUTS_MS.torch });
  }

  private async engines(params: EnginesParams, token: CancellationToken): Promise<EnginesResponse> {
    // No report is needed, so no detect is waited for; cpu is never marked selected, so claiming it hides nothing.
    if (params.withoutTorch) return listEngines({ selected: { device: 'cpu' } }, createTfjsEngines({ nativeSearchPaths: params.nativeSearchPaths }));
    const report = await this.deps.report({ pythonPath: params.pythonPath, pinnedDevice: params.pinnedDevice }, toAbortSignal(token));
    return listEngines(report, this.makeEngines(params, report));
  }

  private async bench(params: BenchParams, token: CancellationToken): Promise<BenchRunResponse> {
    await this.waitForCancelledRun();
    if (this.running && !this.running.done) {
      const since = new Date(this.running.since).toLocaleTimeString();
      throw new ResponseError(BENCH_BUSY, `A benchmark is already running (${this.running.description}, since ${since}): cancel it or wait until it finishes.`);
    }
    const signal = toAbortSignal(token);
    const finished = this.run(params, signal);
    const description = `${params.compare}${params.engine ? ` ${params.engine}` : ''}${params.device ? ` on ${params.device}` : ''}`;
    const running = { description, since: Date.now(), signal, finished: finished.catch(() => undefined), done: false };
    void running.finished.then(() => (running.done = true));
    this.running = running;
    try {
      return await finished;
    } finally {
      if (this.running === running) this.running = null;
    }
  }

  /** A cancelled run stops within a second (engines promise so): wait for it rather than answer busy. */
  private async waitForCancelledRun(): Promise<void> {
    const running = this.running;
    if (!running?.signal.aborted) return;
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise((resolve) => (timer = setTimeout(resolve, CANCELLED_RUN_WAIT_MS)));
    await Promise.race([running.finished, limit]);
    clearTimeout(timer);
  }

  private async run(params: BenchParams, signal: AbortSignal): Promise<BenchRunResponse> {
    const started = Date.now();
    const probe: ProbeOptions = { pythonPath: params.pythonPath, pinnedDevice: params.pinnedDevice, nativeSearchPaths: params.nativeSearchPaths };
    const host = this.hostFor(probe);
    try {
      const report = await this.deps.report(probe, signal, host ? (interpreter) => (interpreter === host.python ? host.probeRun : null) : undefined);
      const engines = this.makeEngines(params, report, host);
      const runId = params.runId ?? null;
      const onProgress: BenchHooks['onProgress'] = (progress, step, steps) =>
        void this.deps.connection.sendNotification(BenchProgressNotification, { runId, step, steps, progress }).catch(() => undefined);
      // The all-at-once pass runs one bench.py per device at once: fresh engines, not the host's one Python.
      const run = params.everyDevice
        ? await benchEveryDevice(params, report, engines, { signal, onProgress }, () => this.makeEngines(params, report))
        : await benchmark(params, report, engines, { signal, onProgress });
      this.deps.log('info', `bench (${run.description}) took ${Date.now() - started} ms: ${run.results.length} result(s), ${run.problems.length} problem(s)${run.cancelled ? ', cancelled' : ''}`);
      return run;
    } catch (error) {
      if (error instanceof InvalidBenchRequest) throw new ResponseError(BENCH_INVALID, error.message);
      if (error instanceof ResponseError) throw error;
      // Cancelled while the device report was being made: nothing ran yet.
      if (signal.aborted) throw new ResponseError(REQUEST_CANCELLED, 'bench was cancelled');
      const message = error instanceof Error ? error.message : String(error);
      this.deps.log('error', `bench failed: ${message}`);
      throw new ResponseError(-32603, `bench failed: ${message}`);
    } finally {
      host?.close();
    }
  }
}
