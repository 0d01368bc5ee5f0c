// Turns a benchmark request (from the CLI, the quick pick or the worker) into a plan an
// engine can run, or into a clear reason why not, before anything is allocated.
import { engineShareWords, hostFootprint } from './footprint';
import { BYTES_PER_ELEMENT, Dtype, EngineId, EngineOutcome, isDtype, isEngineId } from './model';
import { runOf, unsupportedDtype } from './outcomes';
import { AUTORANGE_MIN_BLOCKS, planRepeatBudget, repeatBudgetProblem, tf32Refusal } from './repeatBudget';

export const MIN_SIZE = 1;
/** 3·32768²·4 bytes = 12 GiB: beyond that nobody benchmarks a single matmul. */
export const MAX_SIZE = 32768;
export const MIN_REPEATS = 1;
export const MAX_REPEATS = 1000;
export const DEFAULT_REPEATS = 10;
export const DEFAULT_SIZE = 1024;
/** Entries of the product compared with the float64 reference (correctness.ts). */
export const DEFAULT_SAMPLES = 64;
/**
 * The pure-JavaScript engine's largest size in "everything": at its ~0.5 GFLOP/s a 2048
 * product takes about 35 s a repeat, and n = 1024 took 30 of a 38 s "Compare everything"
 * (issue 28 item 9), for a number nobody compares with anything (it exists to check
 * correctness). Named alone (--engine js) it still runs at any size.
 */
export const JS_EVERYTHING_MAX_SIZE = 512;

/** What an engine can do, so that a request it cannot serve is refused up front. */
export interface EngineCapabilities {
  engine: EngineId;
  dtypes: readonly Dtype[];
  /** Device names it can run on, as patterns ("cpu", /^cuda(:\d+)?$/). */
  devices: readonly (string | RegExp)[];
  /** Hard limit of the engine's address space, if any (wasm32: 4 GiB). */
  maxBytes?: number;
}

export interface BenchRequest {
  engine: string;
  device: string;
  size: number;
  dtype?: string;
  repeats?: number;
  /** Seconds the torch engine's samples adapt to (repeatBudget.ts); absent with no repeats: the size's default. */
  repeatBudgetSec?: number;
  /** Free bytes on the device (device report); null or absent: unknown, not checked. */
  freeBytes?: number | null;
  /** Devices the engine reported (engine.devices()); absent: not checked here. */
  availableDevices?: readonly string[];
  /** Seed of the input matrices and of the sampled entries. */
  seed?: number;
  /** torch on the CPU only: torch.set_num_threads for the run; absent: torch's own choice. */
  threads?: number;
}

/** A validated request, ready for an engine's run(). */
export interface BenchPlan {
  engine: EngineId;
  device: string;
  size: number;
  dtype: Dtype;
  /** Fixed repeats; with repeatBudgetSec, the fewest samples (AUTORANGE_MIN_BLOCKS), for time estimates. */
  repeats: number;
  /** torch: the seconds bench.py's blocked autorange adapts its samples to; null: `repeats` fixed products. */
  repeatBudgetSec?: number | null;
  /** Untimed runs before the timed ones (compilation, allocation, caches). */
  warmups: number;
  /** 3·n²·bytesPerElement: A, B and the product. */
  neededBytes: number;
  freeBytes: number | null;
  seed: number;
  samples: number;
  /** torch on the CPU: the thread count it runs with (BenchRequest.threads). */
  threads?: number;
}

/**
 * - plan: run it.
 * - invalid: an impossible request (bad size, repeats, unknown dtype/engine/device name):
 *   the CLI prints message and exits non-zero at once.
 * - outcome: a well-formed request this engine cannot serve (dtype unsupported, device
 *   absent, not enough memory): a result to report, and an error for the CLI when the user
 *   named this engine explicitly.
 */
export type PlanResult =
  | { kind: 'plan'; plan: BenchPlan }
  | { kind: 'invalid'; message: string }
  | { kind: 'outcome'; outcome: EngineOutcome };

export function matmulBytes(size: number, dtype: Dtype): number {
  return 3 * size * size * BYTES_PER_ELEMENT[dtype];
}

export function planBenchmark(request: BenchRequest, capabilities: EngineCapabilities): PlanResult {
  const invalid = invalidReason(request);
  if (invalid) return { kind: 'invalid', message: invalid };
  const dtype = (request.dtype ?? 'float32') as Dtype;
  const repeatBudgetSec = planRepeatBudget(request.engine as EngineId, request.size, request.repeats, request.repeatBudgetSec);
  const plan: BenchPlan = {
    engine: request.engine as EngineId,
    device: request.device,
    size: request.size,
    dtype,
    repeats: request.repeats ?? (repeatBudgetSec === null ? DEFAULT_REPEATS : AUTORANGE_MIN_BLOCKS),
    ...(repeatBudgetSec === null ? {} : { repeatBudgetSec }),
    warmups: 1,
    neededBytes: matmulBytes(request.size, dtype),
    freeBytes: request.freeBytes ?? null,
    seed: request.seed ?? 1,
    samples: DEFAULT_SAMPLES,
    ...(request.threads !== undefined ? { threads: request.threads } : {}),
  };
  const refusal = capabilityRefusal(plan, capabilities, request.availableDevices) ?? tf32Refusal(plan);
  if (refusal) return { kind: 'outcome', outcome: refusal };
  const memory = checkMemory(plan, capabilities.maxBytes);
  return memory ? { kind: 'outcome', outcome: memory } : { kind: 'plan', plan };
}

function invalidReason(request: BenchRequest): string | null {
  if (!isEngineId(request.engine)) return `Unknown engine "${request.engine}": use torch, tfjs-node-gpu, tfjs-node, wasm or js.`;
  if (!Number.isInteger(request.size) || request.size < MIN_SIZE || request.size > MAX_SIZE) {
    return `Matrix size must be a whole number from ${MIN_SIZE} to ${MAX_SIZE}, not ${request.size}.`;
  }
  const repeats = request.repeats ?? DEFAULT_REPEATS;
  if (!Number.isInteger(repeats) || repeats < MIN_REPEATS || repeats > MAX_REPEATS) {
    return `Repeats must be a whole number from ${MIN_REPEATS} to ${MAX_REPEATS}, not ${repeats}.`;
  }
  const budget = repeatBudgetProblem(request.repeatBudgetSec, request.repeats);
  if (budget) return budget;
  if (request.dtype !== undefined && !isDtype(request.dtype)) {
    return `Unknown dtype "${request.dtype}": use float32, tf32 (CUDA), float16 or bfloat16.`;
  }
  if (!/^(cpu|cuda|mps|xpu)(:\d+)?$/.test(request.device)) {
    return `Unknown device "${request.device}": use cpu, cuda, cuda:N or mps.`;
  }
  if (request.freeBytes != null && !(request.freeBytes >= 0)) return `Free memory must be a number of bytes, not ${request.freeBytes}.`;
  if (request.threads !== undefined) {
    if (!Number.isInteger(request.threads) || request.threads < 1) return `A thread count must be a whole number from 1, not ${request.threads}.`;
    if (request.engine !== 'torch' || request.device !== 'cpu') return `Only torch on the CPU takes a thread count, not ${request.engine} on ${request.device}.`;
  }
  return null;
}

/**
 * js above JS_EVERYTHING_MAX_SIZE in an "everything" run: skipped before it runs, with the
 * reason, so the run neither stalls on it nor drops the size without a word.
 */
export function jsEverythingRefusal(plan: Pick<BenchPlan, 'engine' | 'device' | 'dtype' | 'size'>): EngineOutcome | null {
  if (plan.engine !== 'js' || plan.size <= JS_EVERYTHING_MAX_SIZE) return null;
  return {
    status: 'refused',
    ...runOf(plan),
    message: `js skipped above n = ${JS_EVERYTHING_MAX_SIZE}: too slow to be worth measuring.`,
    remedy: `Run it alone to measure it anyway: device-doctor bench --engine js --device cpu --size ${plan.size}.`,
  };
}

function capabilityRefusal(plan: BenchPlan, caps: EngineCapabilities, available?: readonly string[]): EngineOutcome | null {
  const base = { engine: plan.engine, device: plan.device, dtype: plan.dtype, size: plan.size };
  if (!caps.dtypes.includes(plan.dtype)) return unsupportedDtype(plan.engine, plan.device, plan.dtype, plan.size, caps.dtypes);
  const servesDevice = caps.devices.some((d) => (typeof d === 'string' ? d === plan.device : d.test(plan.device)));
  if (!servesDevice || (available && !available.includes(plan.device))) {
    const choices = available ?? caps.devices.filter((d): d is string => typeof d === 'string');
    return {
      ...base,
      status: 'no-device',
      message: `The ${plan.engine} engine has no device ${plan.device}${choices.length ? `; it has ${choices.join(', ')}` : ''}.`,
      remedy: 'Pick one of the devices the engine lists (device-doctor detect shows what this machine has).',
    };
  }
  return null;
}

/**
 * The memory check, before any allocation: the three n×n matrices must fit in the device's
 * free memory (and in the engine's address space). Unknown free memory is not a refusal.
 */
export function checkMemory(plan: Pick<BenchPlan, 'engine' | 'device' | 'dtype' | 'size' | 'freeBytes'>, engineMaxBytes?: number): EngineOutcome | null {
  const neededBytes = matmulBytes(plan.size, plan.dtype);
  const limits = [plan.freeBytes, engineMaxBytes ?? null].filter((v): v is number => v !== null && v !== undefined);
  if (limits.length === 0) return null;
  const freeBytes = Math.min(...limits);
  if (neededBytes <= freeBytes) return null;
  const where = engineMaxBytes !== undefined && freeBytes === engineMaxBytes ? `the ${plan.engine} engine's limit` : plan.device;
  return {
    status: 'refused',
    ...runOf(plan),
    neededBytes,
    freeBytes,
    message: `Refused: n = ${plan.size} ${plan.dtype} needs ${formatBytes(neededBytes)} (3 × n² × ${BYTES_PER_ELEMENT[plan.dtype]} bytes), ${formatBytes(freeBytes)} free on ${where}.`,
    remedy: `Choose a size up to ${largestFittingSize(freeBytes, plan.dtype)}, or free memory on ${plan.device}.`,
  };
}

/**
 * The host check of a CPU plan (the worker's planner runs it after planBenchmark, with the
 * device report's free memory), before anything is spawned or allocated: its three matrices,
 * the engine's own needs (footprint.ts: torch's interpreter and float64 checks, the copies an
 * in-process engine makes) and a reserve for the rest of the machine must fit in the host's
 * free memory. Other devices, and unknown free memory, are not checked here.
 */
export function checkHostMemory(plan: Pick<BenchPlan, 'engine' | 'device' | 'dtype' | 'size' | 'freeBytes' | 'samples'>): EngineOutcome | null {
  if (plan.device !== 'cpu' || plan.freeBytes === null) return null;
  const need = hostFootprint(plan.engine, plan.size, plan.dtype, plan.samples);
  if (need.totalBytes <= plan.freeBytes) return null;
  const largest = largestHostSize(plan.engine, plan.dtype, plan.samples, plan.freeBytes);
  return {
    status: 'refused',
    ...runOf(plan),
    neededBytes: need.totalBytes,
    freeBytes: plan.freeBytes,
    message:
      `Refused: n = ${plan.size} ${plan.dtype} on the CPU needs ${formatBytes(need.totalBytes)} of host memory: ` +
      `${formatBytes(need.matricesBytes)} for the matrices (3 × n² × ${BYTES_PER_ELEMENT[plan.dtype]} bytes) + ` +
      `${formatBytes(need.engineBytes)} for ${engineShareWords(plan.engine)} + ${formatBytes(need.reserveBytes)} left to the system; ` +
      `${formatBytes(plan.freeBytes)} is free.`,
    remedy: largest > 0 ? `Choose a size up to ${largest}, or close programs to free memory.` : `Close programs to free memory: the ${plan.engine} engine alone needs more than is free.`,
  };
}

/** Largest n whose host footprint fits in `freeBytes` (0: not even n = 1). */
export function largestHostSize(engine: EngineId, dtype: Dtype, samples: number, freeBytes: number): number {
  let low = 0;
  let high = MAX_SIZE;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (hostFootprint(engine, middle, dtype, samples).totalBytes <= freeBytes) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** Largest n whose three matrices fit in the given bytes. */
export function largestFittingSize(bytes: number, dtype: Dtype): number {
  return Math.floor(Math.sqrt(bytes / (3 * BYTES_PER_ELEMENT[dtype])));
}

export function formatBytes(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${value} bytes` : `${value.toFixed(1)} ${units[unit]}`;
}
