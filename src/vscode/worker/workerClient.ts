// The extension's side of the compute worker: forks dist/worker.js lazily, sends typed requests
// with a timeout and the caller's cancellation, and restarts the worker when it dies — one
// lifecycle step at a time, and not after 5 crashes in 3 minutes (then the state is 'gaveUp'
// until the user restarts it). Crashes are a state change and a rejected request, never a throw
// into the editor. No vscode import: the same code runs in the unit tests against a fake worker.
import { CollectiveProgressNotification, type CollectiveProgressParams } from '../../protocol/collectives';
import * as fs from 'fs';
import { CancellationTokenSource, Emitter } from 'vscode-jsonrpc/node';
import type { CancellationToken, Event, RequestParam, RequestType } from 'vscode-jsonrpc/node';
import {
  BenchProgressNotification,
  GpuProcessesNotification,
  MemorySamplesNotification,
  StartMonitorRequest,
  StopMonitorRequest,
  WorkerProblemNotification,
} from '../../protocol/worker';
import type { BenchProgressParams, GpuProcesses, MemorySamples, MonitorOptions, WorkerLog, WorkerProblem } from '../../protocol/worker';
import { CrashWindow, MAX_CRASHES } from '../analysis/crashWindow';
import { LifecycleQueue } from '../shared/lifecycleQueue';
import {
  cancelledError, crashedError, describeExit, failedError, isConnectionFailure, stoppedError, timeoutError, WorkerError,
} from './workerErrors';
import { WorkerProcess } from './workerProcess';
import type { ProcessExit } from './workerProcess';

export type WorkerState = 'stopped' | 'starting' | 'running' | 'gaveUp';

/** The log methods the client needs; a vscode.LogOutputChannel fits. */
export interface WorkerLogger {
  trace(message: string): void;
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export interface WorkerClientOptions {
  modulePath: string;
  log: WorkerLogger;
  env?: NodeJS.ProcessEnv;
  /** Default per-request timeout. */
  requestTimeoutMs?: number;
  /** How long a worker gets to exit after its ipc channel closes before SIGKILL. */
  shutdownGraceMs?: number;
  crashes?: CrashWindow;
}

export interface RequestOptions {
  token?: CancellationToken;
  timeoutMs?: number;
  /**
   * After a cancel, wait this long for the worker's own answer instead of failing at once:
   * a cancelled benchmark answers with what finished before the cancel (BenchRunResponse.cancelled).
   * Without it (or when the answer does not come in time) a cancel fails the request as cancelled.
   */
  answerAfterCancelMs?: number;
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
const DEFAULT_SHUTDOWN_GRACE_MS = 2_000;
/** After a connection error, how long to wait for the exit that explains it. */
const EXIT_EXPLANATION_WAIT_MS = 500;

export const WORKER_GAVE_UP_MESSAGE = `The Device Doctor worker crashed ${MAX_CRASHES} times in the last 3 minutes `
  + 'and will not be restarted. The "Device Doctor" output has the details.';

interface PendingRequest {
  worker: WorkerProcess;
  method: string;
  fail(error: WorkerError): void;
}

export class WorkerClient {
  private worker: WorkerProcess | undefined;
  private currentState: WorkerState = 'stopped';
  private stoppedMessage: string | undefined;
  private disposed = false;
  private monitor: MonitorOptions | null = null;
  private readonly pending = new Set<PendingRequest>();
  private readonly queue = new LifecycleQueue();
  private readonly crashes: CrashWindow;
  private readonly stateEmitter = new Emitter<WorkerState>();
  private readonly samplesEmitter = new Emitter<MemorySamples>();
  private readonly processesEmitter = new Emitter<GpuProcesses>();
  private readonly problemEmitter = new Emitter<WorkerProblem>();
  private readonly restartedEmitter = new Emitter<void>();
  private readonly benchProgressEmitter = new Emitter<BenchProgressParams>();
  private readonly collectiveProgressEmitter = new Emitter<CollectiveProgressParams>();

  readonly onDidChangeState: Event<WorkerState> = this.stateEmitter.event;
  readonly onMemorySamples: Event<MemorySamples> = this.samplesEmitter.event;
  readonly onGpuProcesses: Event<GpuProcesses> = this.processesEmitter.event;
  readonly onProblem: Event<WorkerProblem> = this.problemEmitter.event;
  /** A worker was started again after a crash (monitoring is already re-applied). */
  readonly onDidRestartAfterCrash: Event<void> = this.restartedEmitter.event;
  /** Progress of a running benchmark (matched to its request by runId). */
  readonly onBenchProgress: Event<BenchProgressParams> = this.benchProgressEmitter.event;
  /** Each measurement a collective benchmark finished (matched to its request by runId). */
  readonly onCollectiveProgress: Event<CollectiveProgressParams> = this.collectiveProgressEmitter.event;

  constructor(private readonly options: WorkerClientOptions) {
    this.crashes = options.crashes ?? new CrashWindow();
  }

  get state(): WorkerState {
    return this.currentState;
  }

  /** Why the worker is stopped for good ('gaveUp'), in words. */
  get gaveUpMessage(): string | undefined {
    return this.stoppedMessage;
  }

  /** The running worker's process id (for the log and the tests). */
  get pid(): number | undefined {
    return this.worker?.isRunning ? this.worker.pid : undefined;
  }

  start(): Promise<void> {
    return this.queue.run(() => this.startWorker());
  }

  stop(): Promise<void> {
    return this.queue.run(() => this.stopWorker());
  }

  /** The user's restart: forgets past crashes, so a given-up worker starts again. */
  restart(): Promise<void> {
    return this.queue.restart(async () => {
      this.crashes.reset();
      this.stoppedMessage = undefined;
      await this.stopWorker();
      await this.startWorker();
    });
  }

  async request<P, R>(type: RequestType<P, R, void>, params: P, options: RequestOptions = {}): Promise<R> {
    if (options.token?.isCancellationRequested) throw cancelledError(type.method);
    const worker = await this.runningWorker(type.method);
    return this.send(worker, type, params, options);
  }

  /** Monitoring wanted (with its interval) or not; re-applied to every new worker. */
  async setMonitor(monitor: MonitorOptions | null): Promise<void> {
    if (sameMonitor(monitor, this.monitor)) return;
    this.monitor = monitor;
    const worker = this.worker;
    if (worker?.isRunning) await this.applyMonitor(worker);
    // A worker started from here on applies the wish itself (startWorker).
    else if (monitor && this.currentState !== 'gaveUp' && !this.disposed) await this.start();
  }

  /** Stops the worker for good (deactivate). */
  async dispose(): Promise<void> {
    this.disposed = true;
    await this.stop();
    for (const emitter of [this.stateEmitter, this.samplesEmitter, this.processesEmitter, this.problemEmitter, this.restartedEmitter, this.benchProgressEmitter, this.collectiveProgressEmitter]) emitter.dispose();
  }

  private async runningWorker(method: string): Promise<WorkerProcess> {
    await this.queue.idle();
    if (!this.worker?.isRunning && this.currentState !== 'gaveUp' && !this.disposed) await this.start();
    const worker = this.worker;
    if (worker?.isRunning) return worker;
    if (this.currentState === 'gaveUp') throw new WorkerError('stopped', this.stoppedMessage ?? WORKER_GAVE_UP_MESSAGE);
    throw stoppedError(method, this.disposed);
  }

  private async startWorker(): Promise<void> {
    if (this.worker?.isRunning || this.disposed) return;
    if (!fs.existsSync(this.options.modulePath)) {
      this.giveUp(`The Device Doctor worker is missing (${this.options.modulePath}); reinstall the extension.`);
      return;
    }
    this.setState('starting');
    const worker: WorkerProcess = new WorkerProcess({
      modulePath: this.options.modulePath,
      env: this.options.env,
      onLog: (entry) => this.logFromWorker(entry),
      onExit: (exit) => this.handleExit(worker, exit),
    });
    worker.own(worker.connection.onNotification(MemorySamplesNotification, (samples) => this.samplesEmitter.fire(samples)));
    worker.own(worker.connection.onNotification(GpuProcessesNotification, (processes) => this.processesEmitter.fire(processes)));
    worker.own(worker.connection.onNotification(WorkerProblemNotification, (problem) => this.problemEmitter.fire(problem)));
    worker.own(worker.connection.onNotification(BenchProgressNotification, (progress) => this.benchProgressEmitter.fire(progress)));
    worker.own(worker.connection.onNotification(CollectiveProgressNotification, (progress) => this.collectiveProgressEmitter.fire(progress)));
    worker.own(worker.connection.onError(([error]) => this.options.log.warn(`Worker connection: ${error.message}`)));
    worker.listen();
    this.worker = worker;
    this.options.log.info(`Device Doctor worker started (pid ${worker.pid ?? '?'}).`);
    this.setState('running');
    if (this.monitor) await this.applyMonitor(worker);
  }

  private async stopWorker(): Promise<void> {
    const worker = this.worker;
    // Cleared first, so that handleExit knows this exit was asked for.
    this.worker = undefined;
    if (worker?.isRunning) {
      const exit = await worker.shutdown(this.options.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS);
      this.options.log.info(`Device Doctor worker stopped (${describeExit(exit)}).`);
    }
    if (this.currentState !== 'gaveUp') this.setState('stopped');
  }

  private handleExit(worker: WorkerProcess, exit: ProcessExit): void {
    const unexpected = this.worker === worker;
    for (const request of [...this.pending]) {
      if (request.worker !== worker) continue;
      request.fail(unexpected ? crashedError(request.method, exit) : stoppedError(request.method, this.disposed));
    }
    worker.dispose();
    if (!unexpected) return;
    this.worker = undefined;
    if (this.disposed) return;
    if (!this.crashes.shouldRestart(Date.now())) {
      this.giveUp(`${WORKER_GAVE_UP_MESSAGE} Last exit: ${describeExit(exit)}.`);
      return;
    }
    this.options.log.warn(`The Device Doctor worker stopped unexpectedly (${describeExit(exit)}); restarting it.`);
    this.setState('stopped');
    void this.queue.restart(() => this.startWorker()).then(() => {
      if (this.worker?.isRunning) this.restartedEmitter.fire();
    });
  }

  private giveUp(message: string): void {
    this.stoppedMessage = message;
    this.options.log.error(message);
    this.setState('gaveUp');
  }

  private send<P, R>(worker: WorkerProcess, type: RequestType<P, R, void>, params: P, options: RequestOptions): Promise<R> {
    const timeoutMs = options.timeoutMs ?? this.options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    const source = new CancellationTokenSource();
    return new Promise<R>((resolve, reject) => {
      let settled = false;
      const settle = (action: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        clearTimeout(cancelTimer);
        cancelListener?.dispose();
        source.dispose();
        this.pending.delete(request);
        action();
      };
      const request: PendingRequest = { worker, method: type.method, fail: (error) => settle(() => reject(error)) };
      this.pending.add(request);
      // Cancelling the source tells the worker ($/cancelRequest) to stop the work too.
      const timer = setTimeout(() => { source.cancel(); request.fail(timeoutError(type.method, timeoutMs)); }, timeoutMs);
      let cancelTimer: NodeJS.Timeout | undefined;
      const cancelListener = options.token?.onCancellationRequested(() => {
        source.cancel();
        if (options.answerAfterCancelMs === undefined) request.fail(cancelledError(type.method));
        else cancelTimer = setTimeout(() => request.fail(cancelledError(type.method)), options.answerAfterCancelMs);
      });
      worker.connection.sendRequest(type, params as RequestParam<P>, source.token).then(
        (result) => settle(() => resolve(result)),
        (error: unknown) => {
          // A cancelled request the worker answered with an error (its "request cancelled") is a cancel.
          if (options.token?.isCancellationRequested && !isConnectionFailure(error)) return request.fail(cancelledError(type.method));
          if (!isConnectionFailure(error)) return request.fail(failedError(type.method, error));
          // The connection broke: the process exit, if it comes, explains it better.
          void Promise.race([worker.exited, delay(EXIT_EXPLANATION_WAIT_MS)])
            .then(() => request.fail(this.disposed ? stoppedError(type.method, true)
              : worker.isRunning ? failedError(type.method, error) : stoppedError(type.method)));
        },
      );
    });
  }

  private async applyMonitor(worker: WorkerProcess): Promise<void> {
    try {
      if (this.monitor) await this.send(worker, StartMonitorRequest, this.monitor, {});
      else await this.send(worker, StopMonitorRequest, undefined, {});
    } catch (error) {
      this.options.log.warn(error instanceof Error ? error.message : String(error));
    }
  }

  private logFromWorker(entry: WorkerLog): void {
    const write = this.options.log[entry.level] ?? this.options.log.info;
    write.call(this.options.log, `[worker] ${entry.message}`);
  }

  private setState(state: WorkerState): void {
    if (state === this.currentState) return;
    this.currentState = state;
    this.stateEmitter.fire(state);
  }
}

function sameMonitor(a: MonitorOptions | null, b: MonitorOptions | null): boolean {
  if (a === null || b === null) return a === b;
  return a.intervalMs === b.intervalMs && (a.windowPids ?? []).join(',') === (b.windowPids ?? []).join(',');
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
