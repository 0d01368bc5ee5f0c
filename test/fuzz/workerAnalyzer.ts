// The real analyzer in a worker thread with a time limit: an analysis that does not finish
// (exponential work on some nesting, an endless loop) is reported as a hang instead of
// stalling the fuzz run; the worker is terminated and a fresh one takes the next input.
import * as path from 'path';
import { Worker } from 'worker_threads';
import type { CellFinding, Finding } from '../../src/core/analysis';
import type { WorkerReply, WorkerRequest } from './analysisWorker';

/** Thrown (rejected) when one analysis takes longer than the limit. */
export class AnalysisTimeout extends Error {
  constructor(readonly ms: number) {
    super(`the analysis did not finish within ${ms / 1000} s`);
    this.name = 'AnalysisTimeout';
  }
}

type Request = { kind: 'source'; text: string } | { kind: 'notebook'; cells: string[] } | { kind: 'busy'; ms: number };

// The worker runs TypeScript: tsx's CommonJS hook is registered in it first, whether this
// process runs under the tsx CLI (npm run fuzz) or under mocha's `require: tsx/cjs`.
const BOOT = `require(${JSON.stringify(require.resolve('tsx/cjs'))}); require(${JSON.stringify(path.join(__dirname, 'analysisWorker.ts'))});`;

export class WorkerAnalyzer {
  private worker: Worker | undefined;
  private nextId = 0;
  private readonly waiting = new Map<number, { worker: Worker; resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  /** Workers terminated for taking too long. */
  restarts = 0;

  /** @param timeoutMs the time one analysis may take (may be changed between requests). */
  constructor(public timeoutMs = 10_000) {}

  source(text: string): Promise<Finding[]> {
    return this.request({ kind: 'source', text }) as Promise<Finding[]>;
  }

  notebook(cells: readonly string[]): Promise<CellFinding[]> {
    return this.request({ kind: 'notebook', cells: [...cells] }) as Promise<CellFinding[]>;
  }

  /** Self-check only: keeps the worker busy for `ms`, as an analysis that does not finish would. */
  busy(ms: number): Promise<unknown> {
    return this.request({ kind: 'busy', ms });
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    if (w) await w.terminate();
  }

  private start(): Worker {
    const worker = new Worker(BOOT, { eval: true });
    worker.on('message', (reply: WorkerReply) => {
      const w = this.waiting.get(reply.id);
      if (!w) return;
      this.waiting.delete(reply.id);
      if (reply.ok) w.resolve(reply.result);
      else {
        const error = new Error(reply.error.message);
        error.name = reply.error.name;
        error.stack = reply.error.stack;
        w.reject(error);
      }
    });
    const failAll = (error: Error) => {
      if (this.worker === worker) this.worker = undefined;
      for (const [id, w] of this.waiting) {
        if (w.worker !== worker) continue;
        this.waiting.delete(id);
        w.reject(error);
      }
    };
    worker.on('error', (error) => failAll(new Error(`the analysis worker died: ${error.stack ?? error.message}`)));
    worker.on('exit', (code) => failAll(new Error(`the analysis worker exited (${code})`)));
    worker.unref();
    return worker;
  }

  private request(request: Request): Promise<unknown> {
    const worker = (this.worker ??= this.start());
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        if (!this.waiting.delete(id)) return;
        this.restarts++;
        if (this.worker === worker) this.worker = undefined;
        void worker.terminate();
        reject(new AnalysisTimeout(this.timeoutMs));
      }, this.timeoutMs);
      this.waiting.set(id, {
        worker,
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      worker.postMessage({ ...request, id } as WorkerRequest);
    });
  }
}
