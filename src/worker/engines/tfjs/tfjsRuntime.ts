// What the TensorFlow.js engines share: one tfjs-core (bundled), quiet (its "install the
// node backend" banner would land on the CLI's stderr and in the worker's pipe), and one
// benchmark at a time, because the backend is process-global state.
import * as tf from '@tensorflow/tfjs-core';
// Not a bare import: the package's "sideEffects" list would let esbuild drop it, and with
// it the registration of the cpu backend. Using an export keeps the module in the bundle.
import { version_cpu } from '@tensorflow/tfjs-backend-cpu';

/** Version of the bundled tfjs-backend-cpu (and, in lockstep, tfjs-core and tfjs-backend-wasm). */
export const TFJS_VERSION: string = version_cpu;

export type Tf = typeof tf;

let quieted = false;

/** The bundled tfjs-core, in production mode (no warnings on the console, no debug checks). */
export function bundledTf(): Tf {
  if (!quieted) {
    tf.enableProdMode();
    quieted = true;
  }
  return tf;
}

let tail: Promise<void> = Promise.resolve();

/** Runs tasks one after another: two benchmarks must never switch the global backend under each other. */
export function serialized<T>(task: () => Promise<T>): Promise<T> {
  const run = tail.then(task);
  tail = run.then(
    () => undefined,
    () => undefined,
  );
  return run;
}

/** Thrown inside a run when its AbortSignal fired; the runner turns it into a 'cancelled' outcome. */
export class RunCancelled extends Error {
  constructor() {
    super('cancelled');
    this.name = 'RunCancelled';
  }
}

/**
 * Lets the event loop deliver pending messages (a JSON-RPC cancel arrives that way), then
 * stops the run if it was cancelled. Called between every two matmuls.
 */
export async function yieldAndCheck(signal: AbortSignal | undefined): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve));
  if (signal?.aborted) throw new RunCancelled();
}

/** Switches the process-global tfjs backend, with a clear error when it cannot start. */
export async function useBackend(tfjs: Tf, name: string): Promise<void> {
  if (tfjs.getBackend() === name) return;
  const ok = await tfjs.setBackend(name);
  if (!ok) throw new Error(`the TensorFlow.js "${name}" backend did not start`);
  await tfjs.ready();
}
