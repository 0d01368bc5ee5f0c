// Run Matmul Benchmark, as pure decisions: the quick-pick entries (what to compare, which
// engine/device, which size), and how the choices become the worker's BenchParams. No vscode
// import, so the mapping is tested without an editor.
import { DEFAULT_SIZE, JS_EVERYTHING_MAX_SIZE } from '../../core/bench/plan';
import { DEFAULT_SWEEP_BUDGET_SEC, SWEEP_SIZES } from '../../core/bench/sweep';
import { isCudaDevice, type Dtype, type EngineId } from '../../core/bench/model';
import type { BenchCompare, BenchParams, EngineInfo, EnginesResponse } from '../../protocol/worker';

export interface ComparePick {
  label: string;
  description?: string;
  detail: string;
  compare: BenchCompare;
}

export const COMPARE_PICKS: readonly ComparePick[] = [
  {
    label: 'Selected device vs CPU',
    description: 'default',
    detail: 'The device Device Doctor selected (or your pin) against torch on all CPU threads, in the same run; without an accelerator, torch on all threads against one thread.',
    compare: 'versus-cpu',
  },
  { label: 'One engine/device…', detail: 'Pick one engine and device from what this machine has.', compare: 'single' },
  { label: 'Compare everything available', detail: `Every engine on every device it can use here (js up to n = ${JS_EVERYTHING_MAX_SIZE}: slower is not worth measuring); engines that cannot run say why.`, compare: 'all' },
];

export interface SizePick {
  label: string;
  description?: string;
  /** The matrix order n, or 'sweep' for 256 … 8192. */
  size: number | 'sweep';
}

const FIRST_SWEEP_SIZE = SWEEP_SIZES[0]!;
const LAST_SWEEP_SIZE = SWEEP_SIZES[SWEEP_SIZES.length - 1]!;

export const SIZE_PICKS: readonly SizePick[] = [
  { label: String(DEFAULT_SIZE), description: 'default', size: DEFAULT_SIZE },
  ...[256, 512, 2048, 4096].map((n) => ({ label: String(n), size: n })),
  {
    label: `Sweep ${FIRST_SWEEP_SIZE}…${LAST_SWEEP_SIZE}`,
    description: `GFLOP/s against n; stops after a size whose median product passes ${DEFAULT_SWEEP_BUDGET_SEC * 1000} ms (the panel says where)`,
    size: 'sweep' as const,
  },
];

export interface DtypePick {
  label: string;
  description?: string;
  detail: string;
  dtype: Dtype;
}

const DTYPE_DETAILS: Readonly<Record<Dtype, string>> = {
  float32: 'Full precision: what a model runs in unless told otherwise (on CUDA, TF32 only where PyTorch allows it).',
  tf32: 'float32 with TensorFloat-32 tensor cores (torch.backends.cuda.matmul.allow_tf32 = True for the run): float32 storage, inputs rounded to 10 mantissa bits.',
  bfloat16: 'Half the memory; tensor cores on GPUs, AVX512_BF16 or AMX on CPUs that have them (the report lists the flags).',
  float16: 'Half the memory; tensor cores on GPUs; most CPUs emulate it slowly, or cannot multiply it at all.',
};

/**
 * The dtypes to offer, float32 first as the default; none when only float32 can run (the
 * tfjs engines), so no question is asked that has one answer. tf32 only on a CUDA device:
 * elsewhere it is not a mode at all.
 */
export function dtypePicks(supported: readonly Dtype[] = ['float32', 'bfloat16', 'float16'], device?: string): DtypePick[] {
  const order: Dtype[] = ['float32', 'tf32', 'bfloat16', 'float16'];
  const offered = order.filter((d) => supported.includes(d) && (d !== 'tf32' || (device !== undefined && isCudaDevice(device))));
  if (offered.length <= 1) return [];
  return offered.map((dtype) => ({ label: dtype, ...(dtype === 'float32' ? { description: 'default' } : {}), detail: DTYPE_DETAILS[dtype], dtype }));
}

/** One engine on one device, or an engine that cannot run here (with the reason). */
export interface TargetPick {
  label: string;
  description?: string;
  detail?: string;
  engine: EngineId;
  /** null: the engine cannot run here; `unavailable` says why. */
  device: string | null;
  /** What the engine multiplies (runnable picks). */
  dtypes?: Dtype[];
  unavailable?: { message: string; remedy: string | null };
  /** The torch row while PyTorch's probe is still running (targetPickModel.ts): not a choice yet. */
  probing?: boolean;
}

/**
 * Every engine/device pair that can run, then the engines that cannot, each with its reason
 * (quick picks have no disabled items: choosing one shows the remedy instead of running).
 */
export function targetPicks(engines: EnginesResponse): TargetPick[] {
  const runnable: TargetPick[] = [];
  const unavailable: TargetPick[] = [];
  for (const info of engines.engines) {
    if (info.problem !== null || info.devices.length === 0) {
      unavailable.push(unavailablePick(info));
      continue;
    }
    for (const device of info.devices) {
      // Every CPU entry would say it on a CPU-only machine: only an accelerator is worth marking.
      const selected = device === engines.selectedDevice && device !== 'cpu' ? ' · selected device' : '';
      runnable.push({ label: `${info.engine} ${device}`, description: `${info.dtypes.join(', ')}${selected}`, engine: info.engine, device, dtypes: [...info.dtypes] });
    }
  }
  return [...runnable, ...unavailable];
}

function unavailablePick(info: EngineInfo): TargetPick {
  const message = info.problem?.message ?? `The ${info.engine} engine has no device here.`;
  const remedy = info.problem?.remedy ?? null;
  return {
    label: `$(circle-slash) ${info.engine}`,
    description: info.problem ? statusWords(info.problem.status) : 'no device',
    detail: message,
    engine: info.engine,
    device: null,
    unavailable: { message, remedy },
  };
}

function statusWords(status: string): string {
  return status === 'tfjs-cuda-mismatch' ? 'no GPU registered' : status.replace(/-/g, ' ');
}

/** What the user chose, in order. */
export interface BenchChoice {
  compare: BenchCompare;
  /** Required when compare is 'single'. */
  target?: { engine: EngineId; device: string };
  /** compare 'all' with one engine: that engine on every device it has ("every device"). */
  engine?: EngineId;
  size: number | 'sweep';
  /** float32 when not given. */
  dtype?: Dtype;
  /** The "every device" choice: the accelerators also all at once (BenchParams.everyDevice). */
  everyDevice?: boolean;
}

/** What the extension adds to every request. */
export interface BenchRequestContext {
  pythonPath: string | null;
  pinnedDevice: string | null;
  runId: string;
  /** Folders where native TensorFlow.js may be installed (the extension's global storage). */
  nativeSearchPaths?: string[];
}

export function toBenchParams(choice: BenchChoice, context: BenchRequestContext): BenchParams {
  const params: BenchParams = {
    pythonPath: context.pythonPath,
    pinnedDevice: context.pinnedDevice,
    compare: choice.compare,
    runId: context.runId,
  };
  if (choice.compare === 'single') {
    if (!choice.target) throw new Error('a single-engine benchmark needs an engine and a device');
    params.engine = choice.target.engine;
    params.device = choice.target.device;
  }
  if (choice.compare === 'all' && choice.engine) params.engine = choice.engine;
  if (choice.compare === 'all' && choice.everyDevice) params.everyDevice = true;
  if (choice.size === 'sweep') params.sweep = true;
  else params.size = choice.size;
  if (choice.dtype && choice.dtype !== 'float32') params.dtypes = [choice.dtype];
  if (context.nativeSearchPaths?.length) params.nativeSearchPaths = [...context.nativeSearchPaths];
  return params;
}

/** "wasm on cpu, n = 256", "selected device vs CPU, sweep 256…8192": for titles and the log. */
export function describeChoice(choice: BenchChoice): string {
  const what = choice.compare === 'single' && choice.target
    ? `${choice.target.engine} on ${choice.target.device}`
    : choice.compare === 'all' && choice.engine
      ? `${choice.engine} on every device`
      : COMPARE_PICKS.find((p) => p.compare === choice.compare)!.label.replace(/…$/, '');
  const size = choice.size === 'sweep' ? `sweep ${FIRST_SWEEP_SIZE}…${LAST_SWEEP_SIZE}` : `n = ${choice.size}`;
  return `${what}, ${size}${choice.dtype && choice.dtype !== 'float32' ? `, ${choice.dtype}` : ''}`;
}
