// The ways a worker request can fail, each with a sentence a user can read (no stack
// traces: details go to the log). No vscode import.
import { ConnectionError, ErrorCodes, ResponseError } from 'vscode-jsonrpc/node';
import type { ProcessExit } from './workerProcess';

export type WorkerErrorKind =
  /** The worker did not answer in time (the request was cancelled in the worker). */
  | 'timeout'
  /** The caller cancelled. */
  | 'cancelled'
  /** The worker process died while the request was in flight. */
  | 'crashed'
  /** The worker is stopped: shutting down, or given up after repeated crashes. */
  | 'stopped'
  /** The worker answered with an error. */
  | 'failed';

export class WorkerError extends Error {
  /**
   * For 'failed': the worker's JSON-RPC error code (e.g. BENCH_BUSY) and its own message, so a
   * caller can tell a busy or impossible request from a failure and show just the worker's words.
   */
  code?: number;
  workerMessage?: string;
  /** For 'stopped': the extension stopped the worker for good (deactivate: a window reload or close), not a failure. */
  byShutdown?: boolean;

  constructor(readonly kind: WorkerErrorKind, message: string) {
    super(message);
    this.name = 'WorkerError';
  }
}

/** "detect" for "deviceDoctor/detect". */
export function shortMethod(method: string): string {
  return method.replace(/^deviceDoctor\//, '');
}

/** "exit code 1", "killed by SIGKILL". */
export function describeExit(exit: ProcessExit): string {
  if (exit.signal) return `killed by ${exit.signal}`;
  if (exit.code !== null) return `exit code ${exit.code}`;
  return 'it could not be started';
}

export function crashedError(method: string, exit: ProcessExit): WorkerError {
  return new WorkerError('crashed', `The Device Doctor worker stopped unexpectedly (${describeExit(exit)}) while running "${shortMethod(method)}".`);
}

export function stoppedError(method: string, byShutdown = false): WorkerError {
  const stopped = new WorkerError('stopped', `The Device Doctor worker was stopped before "${shortMethod(method)}" finished.`);
  if (byShutdown) stopped.byShutdown = true;
  return stopped;
}

/**
 * A request that ended because the extension itself is shutting down (a window reload): nothing
 * failed, so nothing is logged as an error. `shuttingDown`: the caller knows it is being disposed.
 */
export function isShutdownStop(error: unknown, shuttingDown = false): boolean {
  return error instanceof WorkerError && error.kind === 'stopped' && (error.byShutdown === true || shuttingDown);
}

export function timeoutError(method: string, timeoutMs: number): WorkerError {
  const seconds = Math.round(timeoutMs / 100) / 10;
  return new WorkerError('timeout', `The Device Doctor worker did not answer "${shortMethod(method)}" within ${seconds} s.`);
}

export function cancelledError(method: string): WorkerError {
  return new WorkerError('cancelled', `"${shortMethod(method)}" was cancelled.`);
}

/** True when the error came from the connection (closed, disposed), not from the worker's handler. */
export function isConnectionFailure(error: unknown): boolean {
  if (error instanceof ConnectionError) return true;
  return error instanceof ResponseError && error.code === ErrorCodes.PendingResponseRejected;
}

/** The worker's own error answer, as a WorkerError with its message. */
export function failedError(method: string, error: unknown): WorkerError {
  const message = error instanceof Error ? error.message : String(error);
  const failed = new WorkerError('failed', `The Device Doctor worker could not run "${shortMethod(method)}": ${message}`);
  failed.workerMessage = message;
  if (error instanceof ResponseError) failed.code = error.code;
  return failed;
}
