// The JSON lines bench.py prints (see its docstring) and how each becomes the core's
// result model. bench.py measures and reports relative errors; the thresholds, the
// statistics and the wording live here and in src/core/bench, the same for every engine.
import type { BenchPlan } from '../../../core/bench/plan';
import type { BenchProgress, Dtype, EngineOutcome, RunResult } from '../../../core/bench/model';
import { errorThreshold, type ProductCheck } from '../../../core/bench/correctness';
import { failedOutcome } from '../../../core/bench/outcomes';
import { resultOrFailure } from '../../../core/bench/result';
import { copyGbPerSec } from '../../../core/bench/memoryBandwidth';
import { median } from '../../../core/bench/statistics';
import type { TransferResult } from '../../../protocol/worker';

export interface ReadyLine {
  type: 'ready';
  torch: string;
  device: string;
  detail: string;
}

export interface ProgressLine {
  type: 'progress';
  dtype: Dtype;
  size: number;
  phase: BenchProgress['phase'];
  done: number;
  repeats: number;
  lastSec?: number;
}

export interface Worst {
  row: number;
  col: number;
  expected: number;
  /** null: not finite. */
  actual: number | null;
}

export interface ResultLine {
  type: 'result';
  dtype: Dtype;
  size: number;
  status: 'ok' | 'unsupported' | 'oom' | 'failed';
  timesSec?: number[];
  /** Products timed together per sample (blocked autorange); absent: 1 (an older bench.py). */
  productsPerSample?: number;
  /** null: not finite (a NaN or infinite entry). */
  maxRelError?: number | null;
  checksumRelError?: number | null;
  checkedEntries?: number;
  worst?: Worst | null;
  detail?: string;
  message?: string;
}

export interface StoppedLine {
  type: 'stopped';
  dtype: Dtype;
  size: number;
  reason: string;
}

export interface TransferLine {
  type: 'transfer';
  status: 'ok' | 'unsupported' | 'failed';
  direction?: TransferResult['direction'];
  memory?: TransferResult['memory'];
  bytes?: number;
  timesSec?: number[];
  message?: string;
}

export interface ErrorLine {
  type: 'error';
  code: 'torch-missing' | 'no-device' | 'bad-args' | 'oom' | 'failed';
  message: string;
}

export type BenchLine = ReadyLine | ProgressLine | ResultLine | StoppedLine | TransferLine | ErrorLine | { type: 'done' };

const LINE_TYPES = new Set(['ready', 'progress', 'result', 'stopped', 'transfer', 'error', 'done']);

/** One stdout line as a BenchLine, or null when it is not one (a stray print is ignored). */
export function parseBenchLine(text: string): BenchLine | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const type = (value as { type?: unknown }).type;
  return typeof type === 'string' && LINE_TYPES.has(type) ? (value as BenchLine) : null;
}

/** The key results and progress are matched to plans by. */
export function jobKey(dtype: string, size: number): string {
  return `${dtype}:${size}`;
}

/** The core's ProductCheck from the errors bench.py measured, judged by the core's thresholds. */
export function productCheckOf(plan: BenchPlan, line: ResultLine): ProductCheck {
  const threshold = errorThreshold(plan.dtype, plan.size);
  const maxRelError = line.maxRelError ?? Infinity;
  const checksumRelError = line.checksumRelError ?? Infinity;
  const worst = line.worst ? { row: line.worst.row, col: line.worst.col, expected: line.worst.expected, actual: line.worst.actual ?? NaN } : null;
  let failure: string | null = null;
  if (!(maxRelError <= threshold)) {
    const at = worst ? `entry [${worst.row}, ${worst.col}] is ${worst.actual}, the float64 reference is ${worst.expected} ` : 'a sampled entry is off ';
    failure = `Wrong product: ${at}(relative error ${maxRelError.toExponential(2)}, allowed ${threshold.toExponential(1)}).`;
  } else if (!(checksumRelError <= threshold)) {
    failure = `Wrong product: a row checksum is off by ${checksumRelError.toExponential(2)} relative (allowed ${threshold.toExponential(1)}), so some entry outside the sampled ones is wrong.`;
  }
  return { passed: failure === null, maxRelError, checkedEntries: line.checkedEntries ?? 0, checksumRelError, threshold, worst, failure };
}

/** A measurement (or the loud wrong-result outcome) from an ok line; a malformed line is a failure. */
function measuredRun(plan: BenchPlan, line: ResultLine): RunResult {
  const times = line.timesSec;
  if (!Array.isArray(times) || times.length === 0 || !times.every((t) => typeof t === 'number' && Number.isFinite(t) && t >= 0)) {
    return failedOutcome(plan, new Error('bench.py sent a result without valid times'));
  }
  // A product faster than the clock's resolution reads as 0 s; the statistics need a positive time.
  const timesSec = times.map((t) => Math.max(t, 1e-9));
  const perSample = line.productsPerSample;
  if (perSample !== undefined && !(Number.isSafeInteger(perSample) && perSample >= 1)) {
    return failedOutcome(plan, new Error(`bench.py sent a result with ${String(perSample)} products per sample`));
  }
  try {
    return resultOrFailure(plan, timesSec, productCheckOf(plan, line), line.detail ?? null, perSample ?? 1);
  } catch (error) {
    return failedOutcome(plan, error);
  }
}

export function unsupportedOutcome(plan: BenchPlan, why: string): EngineOutcome {
  const cpuHalf = plan.dtype === 'float16' && plan.device === 'cpu';
  return {
    status: 'unsupported',
    engine: 'torch',
    device: plan.device,
    dtype: plan.dtype,
    size: plan.size,
    message: `This PyTorch cannot multiply ${plan.dtype} matrices on ${plan.device}: ${why}`,
    remedy: cpuHalf
      ? 'Older PyTorch releases have no float16 matmul on the CPU: use float32 or bfloat16 there, float16 on a GPU, or a newer PyTorch.'
      : `Use float32 on ${plan.device}, or a PyTorch release that supports ${plan.dtype} there.`,
  };
}

export function outOfMemoryOutcome(plan: BenchPlan, why: string): EngineOutcome {
  return {
    status: 'failed',
    engine: 'torch',
    device: plan.device,
    dtype: plan.dtype,
    size: plan.size,
    message: `Out of memory on ${plan.device} at n = ${plan.size} (${plan.dtype}), although the three matrices seemed to fit: ${why}`,
    remedy: `Choose a smaller size, or free memory on ${plan.device} (other processes may hold it).`,
  };
}

/** What one result line means for its plan. */
export function runFromLine(plan: BenchPlan, line: ResultLine): RunResult {
  switch (line.status) {
    case 'ok':
      return measuredRun(plan, line);
    case 'unsupported':
      return unsupportedOutcome(plan, line.message ?? 'not supported');
    case 'oom':
      return outOfMemoryOutcome(plan, line.message ?? 'out of memory');
    default:
      return failedOutcome(plan, new Error(line.message ?? 'bench.py reported a failure'));
  }
}

/** A transfer line with its bandwidth, or why it was not measured. */
export function transferFromLine(device: string, line: TransferLine): TransferResult {
  const times = Array.isArray(line.timesSec) ? line.timesSec.filter((t) => typeof t === 'number' && Number.isFinite(t) && t > 0) : [];
  const ok = line.status === 'ok' && times.length > 0 && typeof line.bytes === 'number' && line.bytes > 0;
  const medianSec = ok ? median(times) : null;
  return {
    device,
    direction: line.direction ?? 'hostToDevice',
    memory: line.memory ?? 'pageable',
    bytes: line.bytes ?? 0,
    status: ok ? 'ok' : line.status === 'ok' ? 'failed' : line.status,
    timesSec: times,
    medianSec,
    gbPerSec: medianSec === null ? null : copyGbPerSec(line.direction ?? 'hostToDevice', line.bytes as number, medianSec),
    message: ok ? null : (line.message ?? 'no valid times'),
  };
}
