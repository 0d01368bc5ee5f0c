// The worker's CollectiveBenchRequest: the request judged against the device report (one rank
// per GPU, buffers that fit) before any rank starts, the ranks run by run.ts, rank 0's
// report answered as the core checked it. One collective run at a time; a second is answered
// busy, as a second matmul benchmark is. Cancelling the request kills every rank.
import * as os from 'os';
import { ResponseError, type CancellationToken, type MessageConnection } from 'vscode-jsonrpc';
import {
  collectiveFactsOf,
  collectiveRequestProblem,
  DEFAULT_GROUP_TIMEOUT_SEC,
  DEFAULT_ITERS,
  DEFAULT_MAX_BYTES,
  DEFAULT_MIN_BYTES,
  DEFAULT_WARMUP,
  sweepBytes,
  type CollectiveRequest,
} from '../../../core/bench/collectives/request';
import type { DeviceReport } from '../../../core/devices/report';
import { CollectiveBenchRequest, CollectiveProgressNotification, type CollectiveBenchParams, type CollectiveBenchResponse } from '../../../protocol/collectives';
import { BENCH_BUSY, BENCH_INVALID, type ProbeOptions } from '../../../protocol/worker';
import type { LogFn } from '../../detect/probes/probeContext';
import { runCollectives, type CollectiveRunOptions, type CollectiveRunOutcome } from './run';

/** The whole sweep, every rank (as the CLI's --timeout default). */
const RUN_TIMEOUT_MS = 1800 * 1000;

export interface CollectiveServiceDeps {
  connection: MessageConnection;
  env: NodeJS.ProcessEnv;
  report(options: ProbeOptions, signal: AbortSignal): Promise<DeviceReport>;
  log: LogFn;
  /** Tests replace the run (ranks that never start); default: run.ts. */
  run?: (request: CollectiveRequest, options: CollectiveRunOptions) => Promise<CollectiveRunOutcome>;
  hostFreeBytes?: () => number;
}

function abortSignal(token: CancellationToken): AbortSignal {
  const controller = new AbortController();
  if (token.isCancellationRequested) controller.abort();
  else token.onCancellationRequested(() => controller.abort());
  return controller.signal;
}

/** The request the params name, with the defaults the CLI uses. */
export function collectiveRequestOf(params: CollectiveBenchParams, report: DeviceReport, hostFreeBytes: number | null) {
  const facts = collectiveFactsOf(report, hostFreeBytes);
  const device = params.device ?? ((facts.cudaDevices ?? 0) >= 2 ? 'cuda' : 'cpu');
  const request: CollectiveRequest = {
    collectives: [...params.collectives],
    device,
    worldSize: params.worldSize ?? (device === 'cuda' ? facts.cudaDevices ?? 2 : 2),
    minBytes: params.minBytes ?? DEFAULT_MIN_BYTES,
    maxBytes: params.maxBytes ?? DEFAULT_MAX_BYTES,
    iters: params.iters ?? DEFAULT_ITERS,
    warmup: DEFAULT_WARMUP,
    timeoutSec: DEFAULT_GROUP_TIMEOUT_SEC,
  };
  return { request, facts };
}

export class CollectiveService {
  private running: string | null = null;

  constructor(private readonly deps: CollectiveServiceDeps) {}

  register(): void {
    this.deps.connection.onRequest(CollectiveBenchRequest, (params, token) => this.bench(params, token));
  }

  private async bench(params: CollectiveBenchParams, token: CancellationToken): Promise<CollectiveBenchResponse> {
    if (this.running !== null) throw new ResponseError(BENCH_BUSY, `A collective benchmark is already running (${this.running}): cancel it or wait until it finishes.`);
    const python = params.pythonPath;
    if (!python) throw new ResponseError(BENCH_INVALID, 'No Python interpreter may run here (none found, or the workspace is not trusted): the ranks need PyTorch.');
    const signal = abortSignal(token);
    const report = await this.deps.report({ pythonPath: python, pinnedDevice: params.pinnedDevice }, signal);
    const { request, facts } = collectiveRequestOf(params, report, (this.deps.hostFreeBytes ?? os.freemem)());
    const problem = collectiveRequestProblem(request, facts);
    if (problem) throw new ResponseError(BENCH_INVALID, problem);
    const description = `${request.collectives.join(', ')} over ${request.worldSize} ${request.device === 'cuda' ? 'GPUs' : 'CPU processes'}`;
    this.running = description;
    const started = Date.now();
    const steps = request.collectives.length * sweepBytes(request.minBytes, request.maxBytes).length + (request.device === 'cuda' && request.worldSize >= 2 ? 1 : 0);
    let step = 0;
    const runId = params.runId ?? null;
    try {
      const outcome = await (this.deps.run ?? runCollectives)(request, {
        python,
        env: this.deps.env,
        timeoutMs: RUN_TIMEOUT_MS,
        signal,
        onMeasured: (collective, bytes) =>
          void this.deps.connection.sendNotification(CollectiveProgressNotification, { runId, step: ++step, steps: Math.max(steps, step), collective, bytes }).catch(() => undefined),
      });
      this.deps.log('info', `collective benchmark (${description}) took ${Date.now() - started} ms: ${outcome.status}`);
      if (outcome.status === 'cancelled') return { report: null, cancelled: true };
      if (outcome.status === 'failed') throw new ResponseError(-32603, outcome.message);
      return { report: outcome.report, cancelled: false };
    } finally {
      this.running = null;
    }
  }
}
