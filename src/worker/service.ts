// The worker's methods on a JSON-RPC connection. Kept apart from worker.ts (the process
// entry) so that tests can serve a connection in-process too.
import * as os from 'os';
import { ResponseError, type CancellationToken, type MessageConnection } from 'vscode-jsonrpc';
import type { DeviceReport } from '../core/devices/report';
import {
  DetectRequest,
  GpuProcessesNotification,
  HistoryRequest,
  MemorySamplesNotification,
  StartMonitorRequest,
  StopMonitorRequest,
  WorkerLogNotification,
  WorkerProblemNotification,
  type MonitorOptions,
  type ProbeOptions,
  type WorkerLog,
} from '../protocol/worker';
import { InterpretersRequest, type InterpretersParams, type InterpretersResponse } from '../protocol/interpreters';
import { HISTORY_WINDOW_MS } from '../core/devices/sampleHistory';
import { BenchService } from './bench/service';
import { CollectiveService } from './bench/collectives/service';
import { TorchProbeCache } from './interpreters/probeCache';
import { probeInterpreters } from './interpreters/probeInterpreters';
import { detectDevices, type DetectEnvironment, type Hang } from './detect/detect';
import { idMapperFor } from './detect/reportIds';
import { Monitor } from './monitor/monitor';
import { CancelledError, DEFAULT_GATE_OPTIONS, ProbeGate, type GateOptions } from './detect/probes/probeGate';

/** JSON-RPC's "request cancelled" (LSP's -32800): what a cancelled detect answers. */
export const REQUEST_CANCELLED = -32800;

export interface ServiceOptions {
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  gate?: GateOptions;
  sysfsDrmRoot?: string;
  monitorRestartDelayMs?: number;
  /** Test hooks for interpreter discovery: the home folder (conda's files) and the system interpreter. */
  homeDir?: string;
  systemInterpreter?: string | null;
}

function toAbortSignal(token: CancellationToken): AbortSignal {
  const controller = new AbortController();
  if (token.isCancellationRequested) controller.abort();
  else token.onCancellationRequested(() => controller.abort());
  return controller.signal;
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function hangMessage(hang: Hang): string {
  const retry = hang.retryAt === undefined ? '' : `; not starting it again before ${new Date(hang.retryAt).toLocaleTimeString()}`;
  return hang.fresh ? `${hang.kind} did not answer in time and was killed${retry}` : `${hang.kind} hung last time${retry}`;
}

export class WorkerService {
  private readonly gate: ProbeGate;
  readonly monitor: Monitor;
  private readonly bench: BenchService;
  private readonly collectives: CollectiveService;
  /** The last detect and what it was asked, so a benchmark can reuse its report. */
  private lastDetect: { options: ProbeOptions; report: DeviceReport } | null = null;
  private readonly torchProbes = new TorchProbeCache();

  constructor(private readonly connection: MessageConnection, private readonly options: ServiceOptions) {
    this.gate = new ProbeGate(options.gate ?? DEFAULT_GATE_OPTIONS);
    this.monitor = new Monitor(
      {
        samples: (samples) => void connection.sendNotification(MemorySamplesNotification, { samples }).catch(() => undefined),
        processes: (processes) => void connection.sendNotification(GpuProcessesNotification, { processes, time: Date.now() }).catch(() => undefined),
        problem: (message) => this.problem('monitor', message),
        log: (level, message) => this.log(level, message),
      },
      { env: options.env, platform: options.platform, sysfsDrmRoot: options.sysfsDrmRoot, restartDelayMs: options.monitorRestartDelayMs },
    );
    this.bench = new BenchService({
      connection,
      env: options.env,
      report: (probe, signal, torchProbeRun) => this.reportFor(probe, signal, torchProbeRun),
      willProbeTorch: (probe) => this.willProbeTorch(probe),
      log: (level, message) => this.log(level, message),
    });
    this.collectives = new CollectiveService({
      connection,
      env: options.env,
      report: (probe, signal) => this.reportFor(probe, signal),
      log: (level, message) => this.log(level, message),
    });
  }

  register(): void {
    this.connection.onRequest(DetectRequest, (params, token) => this.detect(params, token));
    this.connection.onRequest(StartMonitorRequest, (params: MonitorOptions) => {
      this.log('info', `monitoring memory every ${params.intervalMs} ms`);
      this.monitor.setWindowPids(params.windowPids ?? []);
      this.monitor.start(params.intervalMs);
    });
    // By method name: the typed RequestType<void> rejects a request sent without params.
    this.connection.onRequest(StopMonitorRequest.method, () => {
      this.monitor.stop();
    });
    this.connection.onRequest(InterpretersRequest, (params, token) => this.interpreters(params, token));
    this.connection.onRequest(HistoryRequest.method, () => ({ series: this.monitor.history.snapshot(Date.now()), windowMs: HISTORY_WINDOW_MS, now: Date.now() }));
    this.bench.register();
    this.collectives.register();
  }

  /** Every interpreter found, each probed once per path and modification times (probeCache.ts), sharing detect's probes. */
  private async interpreters(params: InterpretersParams, token: CancellationToken): Promise<InterpretersResponse> {
    const signal = toAbortSignal(token);
    const { env, platform } = this.options;
    const log = (level: WorkerLog['level'], message: string) => this.log(level, message);
    try {
      const [interpreters, accelerators] = await Promise.all([
        probeInterpreters(
          { workspaceFolders: params.workspaceFolders, trusted: params.trusted, known: params.known, env, platform, homeDir: this.options.homeDir ?? os.homedir(), systemInterpreter: this.options.systemInterpreter, signal },
          { ctx: { gate: this.gate, timeoutMs: params.timeoutMs, env, platform, signal, log }, cache: this.torchProbes },
        ),
        this.currentAccelerators(signal),
      ]);
      if (signal.aborted) throw new CancelledError();
      return { interpreters, accelerators };
    } catch (err) {
      if (err instanceof CancelledError) throw new ResponseError(REQUEST_CANCELLED, 'interpreter discovery was cancelled');
      this.log('error', `interpreter discovery failed: ${describe(err)}`);
      throw new ResponseError(-32603, `interpreter discovery failed: ${describe(err)}`);
    }
  }

  /** The last detect's accelerators, else a detect that runs no interpreter (and is not kept as the last one). */
  private async currentAccelerators(signal: AbortSignal) {
    if (this.lastDetect) return this.lastDetect.report.accelerators;
    const outcome = await detectDevices(
      { pythonPath: null, pinnedDevice: null },
      { gate: this.gate, env: this.options.env, platform: this.options.platform, log: (l, m) => this.log(l, m), sysfsDrmRoot: this.options.sysfsDrmRoot },
      signal,
    );
    return outcome.report.accelerators;
  }

  private lastDetectMatches(options: ProbeOptions): boolean {
    const last = this.lastDetect;
    return last !== null && (last.options.pythonPath || null) === (options.pythonPath || null) && last.options.pinnedDevice === options.pinnedDevice;
  }

  /** Whether reportFor(options) would start this interpreter's PyTorch probe. */
  private willProbeTorch(options: ProbeOptions): boolean {
    return Boolean(options.pythonPath) && !this.lastDetectMatches(options) && this.torchProbes.run(options.pythonPath ?? '') === undefined;
  }

  /** The last detect's report when it was asked about the same interpreter and pin, else a new detect. */
  private async reportFor(options: ProbeOptions, signal: AbortSignal, torchProbeRun?: DetectEnvironment['torchProbeRun']): Promise<DeviceReport> {
    if (this.lastDetect && this.lastDetectMatches(options)) return this.lastDetect.report;
    const outcome = await detectDevices(options, { ...this.detectEnvironment(), torchProbeRun }, signal);
    this.lastDetect = { options, report: outcome.report };
    return outcome.report;
  }

  /** What every detect here shares: the gate, and the PyTorch probes remembered per interpreter. */
  private detectEnvironment(): DetectEnvironment {
    return { gate: this.gate, env: this.options.env, platform: this.options.platform, log: (l, m) => this.log(l, m), sysfsDrmRoot: this.options.sysfsDrmRoot, torchProbes: this.torchProbes };
  }

  dispose(): void {
    this.monitor.stop();
  }

  log(level: WorkerLog['level'], message: string): void {
    void this.connection.sendNotification(WorkerLogNotification, { level, message }).catch(() => undefined);
  }

  problem(source: string, message: string): void {
    this.log('warn', `${source}: ${message}`);
    void this.connection.sendNotification(WorkerProblemNotification, { source, message }).catch(() => undefined);
  }

  private async detect(params: ProbeOptions, token: CancellationToken): Promise<DeviceReport> {
    const started = Date.now();
    try {
      const outcome = await detectDevices(params, this.detectEnvironment(), toAbortSignal(token));
      for (const hang of outcome.hangs) this.problem(hang.kind, hangMessage(hang));
      this.monitor.setIds(idMapperFor(outcome));
      this.monitor.setAccelerators(outcome.report.accelerators);
      this.lastDetect = { options: params, report: outcome.report };
      this.log('info', `detect took ${Date.now() - started} ms: ${outcome.report.accelerators.length} accelerator(s), selected ${outcome.report.selected.device}`);
      return outcome.report;
    } catch (err) {
      if (err instanceof CancelledError) throw new ResponseError(REQUEST_CANCELLED, 'detect was cancelled');
      this.log('error', `detect failed: ${describe(err)}`);
      throw new ResponseError(-32603, `detect failed: ${describe(err)}`);
    }
  }
}
