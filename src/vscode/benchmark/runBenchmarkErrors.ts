// How a benchmark request can end other than with results, in words for the user: cancelled
// (no error toast), the worker busy with another benchmark, an impossible request (the worker's
// own message), or a failure (one line, never a stack trace). No vscode import.
import { BENCH_BUSY, BENCH_INVALID } from '../../protocol/worker';
import { WorkerError } from '../worker/workerErrors';

export const BENCH_BUSY_MESSAGE = 'A matmul benchmark is already running. Wait for it, or cancel it from its notification, then try again.';

export type BenchFailure =
  | { kind: 'cancelled' }
  | { kind: 'busy'; message: string }
  | { kind: 'invalid'; message: string }
  | { kind: 'failed'; message: string };

export function classifyBenchError(error: unknown): BenchFailure {
  if (error instanceof WorkerError) {
    if (error.kind === 'cancelled') return { kind: 'cancelled' };
    if (error.kind === 'failed' && error.code === BENCH_BUSY) return { kind: 'busy', message: BENCH_BUSY_MESSAGE };
    if (error.kind === 'failed' && error.code === BENCH_INVALID) return { kind: 'invalid', message: firstLine(error.workerMessage ?? error.message) };
    return { kind: 'failed', message: firstLine(error.message) };
  }
  return { kind: 'failed', message: firstLine(error instanceof Error ? error.message : String(error)) };
}

/** A message's first line: whatever follows (a stack, a traceback) belongs in the log. */
export function firstLine(text: string): string {
  return text.split(/\r?\n/)[0]!.trim() || 'unknown error';
}
