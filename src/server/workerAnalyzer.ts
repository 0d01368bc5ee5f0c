// The main thread's side of one analysis worker (analysisWorker.ts; the server runs two, see
// analysisLanes.ts): the same interface as FileAnalyzer, but every analysis runs in a worker
// thread, so that the LSP connection is served while a large file is analysed.
//
// One request is in the worker at a time; the rest wait here in order. The worker keeps the
// trees: each request carries the client's full text and the changes recorded since the
// previous request for that document (the worker updates its tree with them and checks the
// result against the text, parsing afresh if they differ). If the worker dies (an uncaught
// error, memory), the request it was running is rejected with AnalysisWorkerCrashedError, a
// fresh worker is started for the next one, and it parses every document afresh from its text.
import { Worker } from 'worker_threads';
import type { AnalyzeOptions, CellFinding, Finding } from '../core/analysis';
import type { TextChange } from '../core/python/document';
import { ParserCrashedError, ParserReload } from '../core/python/parser';
import type { AnalysisReply, AnalysisRequest } from './analysisMessages';
import type { DocumentAnalyzer } from './fileAnalyzer';
import { OverlaySync, plainOptions, specOf, type ProjectRequest } from './projectRequest';
import { RecentDocuments } from './recentDocuments';

/** The worker thread stopped while it analysed this document; a fresh one takes the next request. */
export class AnalysisWorkerCrashedError extends Error {
  constructor(readonly uri: string, readonly reason: string) {
    super(`The analysis worker stopped while analysing ${uri} (${reason}); a fresh worker was started for the next analysis.`);
    this.name = 'AnalysisWorkerCrashedError';
  }
}

/** The analyzer was disposed (the server is shutting down) before this analysis ran. */
export class AnalysisStoppedError extends Error {
  constructor() {
    super('The analysis worker was stopped');
    this.name = 'AnalysisStoppedError';
  }
}

/** A newer edit made this queued analysis stale before it started: the newer one takes its place. */
export class AnalysisCancelledError extends Error {
  constructor(readonly uri: string) {
    super(`The analysis of ${uri} was cancelled: a newer one replaces it`);
    this.name = 'AnalysisCancelledError';
  }
}

type Request = Extract<AnalysisRequest, { kind: 'file' | 'notebook' }>;

interface Job {
  request: Request;
  /** Stays in this thread: the open documents to bring the worker's copy of up to date, and who hears what was read. */
  project?: ProjectRequest;
  resolve: (findings: Finding[] | CellFinding[]) => void;
  reject: (error: unknown) => void;
  /**
   * A whole analysis (no tree to start from: a document new to this worker, a notebook) that
   * may be stopped when stale; a document is stopped at most once while it is open, so that
   * the whole analysis after the stop runs to its end and builds the tree.
   */
  stoppable: boolean;
  /** When it was sent to the worker (Date.now()). */
  sentAt?: number;
}

/**
 * A running whole analysis made stale is stopped only once it has run this long: stopping it
 * ends the worker, and a fresh one loads its parser in 140-290 ms here (four starts).
 */
const STOP_STALE_AFTER_MS = 500;

interface PendingReload {
  resolve: (reload: ParserReload) => void;
  reject: (error: unknown) => void;
}

export interface WorkerAnalyzerOptions {
  /** How long a stale whole analysis runs before it may be stopped (default STOP_STALE_AFTER_MS; tests: 0). */
  stopStaleAfterMs?: number;
  /** Documents whose analysis was stopped, shared by the lanes: a document is stopped once, wherever it runs next. */
  stopped?: Set<string>;
}

export interface WorkerAnalyzerEvents {
  /** The worker stopped unexpectedly; a fresh one is started when there is work. */
  crashed?: (reason: string, uri: string | undefined) => void;
  /** For the tests: how many workers were started so far. */
  started?: (count: number) => void;
}

export class WorkerAnalyzer implements DocumentAnalyzer {
  private worker?: Worker;
  private lastError?: string;
  private readonly queue: Job[] = [];
  private inFlight?: Job;
  private nextId = 1;
  private starts = 0;
  private disposed = false;
  /** Documents whose stale analysis was stopped (until closed): their whole analyses run to their end. */
  private readonly stopped: Set<string>;
  /**
   * Documents the current worker may hold a tree for (their changes are forwarded), with the
   * length of their text: the worker's FileAnalyzer keeps the same few, analysed in the same order.
   */
  private readonly known = new RecentDocuments();
  private readonly pendingChanges = new Map<string, TextChange[]>();
  private readonly reloads = new Map<number, PendingReload>();
  /** Which open documents' texts the current worker holds. */
  private readonly overlay = new OverlaySync();

  private readonly stopStaleAfterMs: number;

  constructor(private readonly spawn: () => Worker, private readonly events: WorkerAnalyzerEvents = {}, options: WorkerAnalyzerOptions = {}) {
    this.stopStaleAfterMs = options.stopStaleAfterMs ?? STOP_STALE_AFTER_MS;
    this.stopped = options.stopped ?? new Set();
  }

  recordChanges(uri: string, changes: readonly TextChange[]): void {
    if (!this.known.has(uri)) return;
    const pending = this.pendingChanges.get(uri) ?? [];
    pending.push(...changes.map((change) => ({ ...change })));
    this.pendingChanges.set(uri, pending);
  }

  analyze(uri: string, text: string, options: AnalyzeOptions, project?: ProjectRequest): Promise<Finding[]> {
    const changes = this.pendingChanges.get(uri) ?? [];
    this.pendingChanges.delete(uri);
    const stoppable = !this.known.has(uri) && !this.stopped.has(uri);
    // A document the worker will drop as this one arrives: its changes would reach no tree.
    for (const dropped of this.known.use(uri, text.length)) this.pendingChanges.delete(dropped);
    const request: Request = { kind: 'file', id: this.nextId++, uri, text, changes, options: plainOptions(options), ...(project ? { project: specOf(project) } : {}) };
    return this.enqueue(request, project, stoppable) as Promise<Finding[]>;
  }

  analyzeNotebook(cells: readonly string[], options: AnalyzeOptions, uri: string, project?: ProjectRequest): Promise<CellFinding[]> {
    const request: Request = { kind: 'notebook', id: this.nextId++, uri, cells: [...cells], options: plainOptions(options), ...(project ? { project: specOf(project) } : {}) };
    return this.enqueue(request, project, true) as Promise<CellFinding[]>;
  }

  filesChanged(paths: readonly string[]): void {
    // A worker that is not running caches nothing; one that is hears it in order with the analyses.
    if (paths.length > 0) this.worker?.postMessage({ kind: 'filesChanged', paths: [...paths] } satisfies AnalysisRequest);
  }

  release(uri: string): void {
    this.pendingChanges.delete(uri);
    this.stopped.delete(uri);
    if (!this.known.forget(uri)) return;
    // Queued after any analysis of it, in order; a worker that is not running holds no tree.
    this.worker?.postMessage({ kind: 'release', uri } satisfies AnalysisRequest);
  }

  /** How many analyses are waiting or running (0 when idle). */
  get busy(): number {
    return this.queue.length + (this.inFlight ? 1 : 0);
  }

  /** True when the worker may hold a tree of `uri`: its next analysis there can be incremental. */
  holds(uri: string): boolean {
    return this.known.has(uri);
  }

  /** The characters of text waiting or being analysed: a rough measure of how long this worker is taken. */
  get pendingChars(): number {
    return [...(this.inFlight ? [this.inFlight] : []), ...this.queue].reduce((sum, job) => sum + textLength(job.request), 0);
  }

  /** Drops the analyses of `uri` that have not started (a newer edit made them stale); see supersede for one that runs. */
  cancelQueued(uri: string): void {
    const stale = this.queue.filter((job) => job.request.uri === uri);
    if (stale.length === 0) return;
    this.queue.splice(0, this.queue.length, ...this.queue.filter((job) => job.request.uri !== uri));
    // Their changes never reached the worker's tree: the next request carries them, in order.
    const unsent = stale.flatMap((job) => (job.request.kind === 'file' ? job.request.changes : []));
    if (unsent.length > 0) this.pendingChanges.set(uri, [...unsent, ...(this.pendingChanges.get(uri) ?? [])]);
    for (const job of stale) job.reject(new AnalysisCancelledError(uri));
  }

  /**
   * A newer analysis of `uri` is due while an older one runs. An analysis cannot be interrupted
   * inside the worker, only ended with it, which loses every tree the worker keeps; so only a
   * stoppable whole analysis that has run STOP_STALE_AFTER_MS, in a worker whose other trees
   * are smaller than its text, is stopped: the newer one starts at once on a fresh worker.
   * An incremental one is left to finish: measured on a 49,000-line file
   * edited every 500 ms, its last edit's diagnostics came 2.2-2.7 s after it when the runs were
   * left to finish, 10-25 s when each was stopped (the next run parsed the whole file again).
   */
  supersede(uri: string): void {
    const job = this.inFlight;
    if (!job || job.request.uri !== uri || !job.stoppable || this.otherTreesChars(uri) >= textLength(job.request)) return;
    const wait = (job.sentAt ?? 0) + this.stopStaleAfterMs - Date.now();
    if (wait <= 0) this.stop(job);
    else setTimeout(() => this.stop(job), wait).unref();
  }

  dispose(): void {
    this.disposed = true;
    const jobs = [...(this.inFlight ? [this.inFlight] : []), ...this.queue.splice(0)];
    this.inFlight = undefined;
    for (const job of jobs) job.reject(new AnalysisStoppedError());
    for (const reload of this.reloads.values()) reload.reject(new AnalysisStoppedError());
    this.reloads.clear();
    const worker = this.worker;
    this.worker = undefined;
    void worker?.terminate();
  }

  /** Ends the worker running `job` (if it still is) and rejects it as cancelled; the next request starts a fresh worker. */
  private stop(job: Job): void {
    if (this.inFlight !== job || !this.worker) return;
    const worker = this.worker;
    this.worker = undefined;
    this.inFlight = undefined;
    this.stopped.add(job.request.uri);
    this.forgetWorkerState();
    void worker.terminate();
    job.reject(new AnalysisCancelledError(job.request.uri));
    this.pump();
  }

  /** The new worker starts with no trees: every document is parsed from its full text. */
  private forgetWorkerState(): void {
    this.known.clear();
    // Those still queued will be parsed by the fresh worker, which then holds their trees.
    for (const { request } of this.queue) if (request.kind === 'file') this.known.use(request.uri, request.text.length);
    this.pendingChanges.clear();
    this.overlay.reset();
    // A parser reload the old worker had under way is moot: the fresh worker loads its own.
    this.reloads.clear();
  }

  private otherTreesChars(uri: string): number {
    let sum = 0;
    for (const [held, chars] of this.known.entries()) if (held !== uri) sum += chars;
    return sum;
  }

  private enqueue(request: Request, project: ProjectRequest | undefined, stoppable: boolean): Promise<Finding[] | CellFinding[]> {
    if (this.disposed) return Promise.reject(new AnalysisStoppedError());
    return new Promise((resolve, reject) => {
      this.queue.push({ request, project, resolve, reject, stoppable });
      this.pump();
    });
  }

  private pump(): void {
    if (this.disposed || this.inFlight) return;
    const job = this.queue.shift();
    if (!job) return;
    this.inFlight = job;
    job.sentAt = Date.now();
    try {
      const worker = this.ensureWorker();
      // Computed as the request leaves, against what this worker holds (a fresh one holds nothing).
      const overlay = job.project ? this.overlay.update(job.project) : undefined;
      worker.postMessage(overlay && (overlay.set.length > 0 || overlay.drop.length > 0) ? { ...job.request, overlay } : job.request);
    } catch (error) {
      // The worker may or may not have the texts: it is sent them all again.
      this.overlay.reset();
      this.inFlight = undefined;
      job.reject(error);
      this.pump();
    }
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = this.spawn();
    this.worker = worker;
    this.lastError = undefined;
    this.events.started?.(++this.starts);
    worker.on('message', (reply: AnalysisReply) => {
      if (this.worker === worker) this.received(reply);
    });
    worker.on('error', (error: Error) => {
      if (this.worker === worker) this.lastError = error.stack ?? error.message;
    });
    worker.on('exit', (code) => {
      if (this.worker === worker) this.exited(code);
    });
    // An idle worker must not keep the server process alive on its own.
    worker.unref();
    return worker;
  }

  private received(reply: AnalysisReply): void {
    if (reply.kind === 'ready') return;
    if (reply.kind === 'parserReloaded' || reply.kind === 'parserReloadFailed') {
      const reload = this.reloads.get(reply.id);
      this.reloads.delete(reply.id);
      if (reply.kind === 'parserReloaded') reload?.resolve({ ms: reply.ms, reloads: reply.reloads });
      else reload?.reject(new Error(reply.message));
      return;
    }
    const job = this.inFlight;
    if (!job || job.request.id !== reply.id) return;
    this.inFlight = undefined;
    if (reply.kind === 'file' || reply.kind === 'notebook') {
      try {
        if (reply.modules) job.project?.resolved?.(reply.modules);
      } finally {
        job.resolve(reply.findings);
      }
    } else if (reply.kind === 'parserCrashed') {
      const reloaded = new Promise<ParserReload>((resolve, reject) => this.reloads.set(reply.id, { resolve, reject }));
      job.reject(new ParserCrashedError(reply.textLength, reloaded, new Error(reply.cause)));
    } else {
      const error = new Error(reply.message);
      if (reply.stack) error.stack = reply.stack;
      job.reject(error);
    }
    this.pump();
  }

  private exited(code: number): void {
    this.worker = undefined;
    this.forgetWorkerState();
    if (this.disposed) return;
    const reason = this.lastError ? `exit code ${code}: ${this.lastError}` : `exit code ${code}`;
    // The request it was running is the likely cause: not sent again. A worker that died before
    // taking any request costs the next one, so that a worker that cannot start does not loop.
    const job = this.inFlight ?? this.queue.shift();
    this.inFlight = undefined;
    this.events.crashed?.(reason, job?.request.uri);
    job?.reject(new AnalysisWorkerCrashedError(job.request.uri, reason));
    this.pump();
  }
}

function textLength(request: Request): number {
  return request.kind === 'file' ? request.text.length : request.cells.reduce((sum, cell) => sum + cell.length, 0);
}
