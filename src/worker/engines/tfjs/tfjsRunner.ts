// One matmul benchmark on a TensorFlow.js backend: warm-up, timed repeats with a
// synchronization before every clock reading, then the correctness check.
//
// Cancel: the in-process backends (cpu, wasm) compute a matmul synchronously, so nothing
// can interrupt one. A product predicted to take longer than `sliceSec` is therefore timed
// in row slices (C[r0:r1] = A[r0:r1]·B), each a full-width matmul of its own, with a look at
// the AbortSignal between slices; the reported time is the sum of the slices' compute
// times. Cancel then lands within about sliceSec, at any size where a single row of the
// product takes less (js: n up to about 8000 on a 2-core machine; wasm: every allowed n).
import type { Tensor2D } from '@tensorflow/tfjs-core';
import { checkMemory } from '../../../core/bench/plan';
import type { BenchPlan } from '../../../core/bench/plan';
import type { BenchProgress, RunResult } from '../../../core/bench/model';
import { checkProduct, makeInputs } from '../../../core/bench/correctness';
import { cancelledOutcome, failedOutcome } from '../../../core/bench/outcomes';
import { resultOrFailure } from '../../../core/bench/result';
import type { RunOptions } from '../engine';
import { RunCancelled, Tf, serialized, useBackend, yieldAndCheck } from './tfjsRuntime';

export interface TfjsRunSettings {
  /** tfjs backend name: "cpu", "wasm", "tensorflow". */
  backend: string;
  /** Shown with the result, e.g. "tfjs-backend-wasm 4.22.0, SIMD, 1 thread". */
  detail: string;
  /** Longest one timed matmul may take before the product is timed in row slices; Infinity: never slice. */
  sliceSec: number;
  /** The engine's own memory ceiling (wasm32 heap), on top of the device's free memory. */
  maxBytes?: number;
}

/** Floating-point work of the calibration product that sizes the slices (0.1 s at 0.2 GFLOP/s). */
const CALIBRATION_FLOP = 2e7;
/** A calibration product shorter than this is grown: overheads would dominate it. */
const CALIBRATION_MIN_SEC = 0.02;

export function runTfjsMatmul(tf: Tf, plan: BenchPlan, settings: TfjsRunSettings, options: RunOptions = {}): Promise<RunResult> {
  return serialized(async () => {
    if (options.signal?.aborted) return cancelledOutcome(plan);
    const refusal = checkMemory(plan, settings.maxBytes);
    if (refusal) return refusal;
    const tensors: Tensor2D[] = [];
    try {
      return await measure(tf, plan, settings, options, tensors);
    } catch (error) {
      return error instanceof RunCancelled ? cancelledOutcome(plan) : failedOutcome(plan, error);
    } finally {
      tf.dispose(tensors);
    }
  });
}

async function measure(tf: Tf, plan: BenchPlan, settings: TfjsRunSettings, options: RunOptions, tensors: Tensor2D[]): Promise<RunResult> {
  const { signal } = options;
  const report = (phase: BenchProgress['phase'], done: number, lastSec?: number) =>
    options.onProgress?.({ engine: plan.engine, device: plan.device, dtype: plan.dtype, size: plan.size, phase, done, repeats: plan.repeats, lastSec });
  report('preparing', 0);
  await useBackend(tf, settings.backend);
  const n = plan.size;
  const inputs = makeInputs(n, plan.seed);
  await yieldAndCheck(signal);
  const a = keep(tensors, tf.tensor2d(inputs.a, [n, n], 'float32'));
  const b = keep(tensors, tf.tensor2d(inputs.b, [n, n], 'float32'));
  const rows = await rowsPerSlice(tf, a, b, settings.sliceSec, signal);
  for (let w = 0; w < plan.warmups; w++) {
    report('warmup', 0);
    tf.dispose((await timedProduct(tf, a, b, rows, signal)).blocks);
    await yieldAndCheck(signal);
  }
  const timesSec: number[] = [];
  let last: Tensor2D[] = [];
  for (let i = 0; i < plan.repeats; i++) {
    tf.dispose(last);
    const { seconds, blocks } = await timedProduct(tf, a, b, rows, signal);
    last = blocks;
    tensors.push(...blocks);
    timesSec.push(seconds);
    report('timing', i + 1, seconds);
    await yieldAndCheck(signal);
  }
  report('checking', plan.repeats);
  const product = await readRows(last, n);
  options.corruptProduct?.(product, n);
  const check = checkProduct({ size: n, dtype: plan.dtype, inputs, product, seed: plan.seed, samples: plan.samples });
  const detail = rows < n ? `${settings.detail}; timed in ${Math.ceil(n / rows)} row slices of ${rows}` : settings.detail;
  return resultOrFailure(plan, timesSec, check, detail);
}

function keep(tensors: Tensor2D[], tensor: Tensor2D): Tensor2D {
  tensors.push(tensor);
  return tensor;
}

/** Waits until `c` is computed by reading back one entry (reading all n² would time a copy too). */
async function synchronize(tf: Tf, c: Tensor2D): Promise<void> {
  const [rows, cols] = c.shape;
  const corner = tf.slice(c, [rows - 1, cols - 1], [1, 1]);
  try {
    await corner.data();
  } finally {
    corner.dispose();
  }
}

/** One product A·B, as row blocks of `rows` rows, timed from before each matmul to after its synchronization. */
async function timedProduct(tf: Tf, a: Tensor2D, b: Tensor2D, rows: number, signal?: AbortSignal): Promise<{ seconds: number; blocks: Tensor2D[] }> {
  const n = a.shape[0];
  if (rows >= n) {
    const start = performance.now();
    const c = tf.matMul<Tensor2D>(a, b);
    await synchronize(tf, c);
    return { seconds: (performance.now() - start) / 1e3, blocks: [c] };
  }
  const blocks: Tensor2D[] = [];
  let seconds = 0;
  try {
    for (let r0 = 0; r0 < n; r0 += rows) {
      const slice = tf.slice(a, [r0, 0], [Math.min(rows, n - r0), n]) as Tensor2D;
      const start = performance.now();
      const c = tf.matMul<Tensor2D>(slice, b);
      await synchronize(tf, c);
      seconds += (performance.now() - start) / 1e3;
      slice.dispose();
      blocks.push(c);
      if (r0 + rows < n) await yieldAndCheck(signal);
    }
  } catch (error) {
    tf.dispose(blocks);
    throw error;
  }
  return { seconds, blocks };
}

/**
 * Rows per timed slice so that one slice takes about sliceSec (n: no slicing). The rate is
 * measured on a product of the first rows of A, grown 8× at a time until it takes at least
 * CALIBRATION_MIN_SEC, so launch and synchronization overheads do not dominate it.
 */
async function rowsPerSlice(tf: Tf, a: Tensor2D, b: Tensor2D, sliceSec: number, signal?: AbortSignal): Promise<number> {
  const n = a.shape[0];
  if (!Number.isFinite(sliceSec)) return n;
  let probeRows = Math.min(n, Math.max(1, Math.floor(CALIBRATION_FLOP / (2 * n * n))));
  for (;;) {
    const seconds = await probeSeconds(tf, a, b, probeRows, signal);
    if (probeRows === n && seconds <= sliceSec) return n;
    if (seconds >= CALIBRATION_MIN_SEC || probeRows === n) {
      const rows = Math.floor((probeRows * sliceSec) / Math.max(seconds, 1e-9));
      return rows >= n ? n : Math.max(1, rows);
    }
    probeRows = Math.min(n, probeRows * 8);
  }
}

/** Best of three timings of A[0:rows]·B: the first ones of a process run cold (JIT, first allocation). */
async function probeSeconds(tf: Tf, a: Tensor2D, b: Tensor2D, rows: number, signal?: AbortSignal): Promise<number> {
  const probe = rows === a.shape[0] ? a : (tf.slice(a, [0, 0], [rows, a.shape[1]]) as Tensor2D);
  let best = Infinity;
  try {
    for (let i = 0; i < 3; i++) {
      const { seconds, blocks } = await timedProduct(tf, probe, b, rows);
      tf.dispose(blocks);
      best = Math.min(best, seconds);
      await yieldAndCheck(signal);
    }
  } finally {
    if (probe !== a) probe.dispose();
  }
  return best;
}

/** The product's blocks read back into one row-major Float32Array. */
async function readRows(blocks: readonly Tensor2D[], n: number): Promise<Float32Array> {
  const product = new Float32Array(n * n);
  let offset = 0;
  for (const block of blocks) {
    const values = (await block.data()) as Float32Array;
    product.set(values, offset);
    offset += values.length;
  }
  if (offset !== n * n) throw new Error(`the product has ${offset} entries, not ${n * n}`);
  return product;
}
