// The benchmark result model: what every engine returns, what the panel draws, and
// what `device-doctor bench --json` prints (see export.ts for the exact JSON shape).
// Times are seconds (floats); sizes are the matrix order n of an n×n · n×n product.

export const BENCH_SCHEMA_VERSION = 1;

export type EngineId = 'torch' | 'tfjs-node-gpu' | 'tfjs-node' | 'wasm' | 'js';
export const ENGINE_IDS: readonly EngineId[] = ['torch', 'tfjs-node-gpu', 'tfjs-node', 'wasm', 'js'];

/**
 * tf32 is not a storage type: float32 matrices multiplied with TensorFloat-32 allowed
 * (torch.backends.cuda.matmul.allow_tf32), so a CUDA-only mode (plan.ts refuses it elsewhere).
 */
export type Dtype = 'float32' | 'tf32' | 'float16' | 'bfloat16';
export const DTYPES: readonly Dtype[] = ['float32', 'tf32', 'float16', 'bfloat16'];
/** The dtypes every device may have: `--dtype all` off CUDA. */
export const STORAGE_DTYPES: readonly Dtype[] = ['float32', 'float16', 'bfloat16'];

export const BYTES_PER_ELEMENT: Readonly<Record<Dtype, number>> = { float32: 4, tf32: 4, float16: 2, bfloat16: 2 };

/** Where the tf32 mode applies: torch's CUDA devices (ROCm reports as cuda). */
export function isCudaDevice(device: string): boolean {
  return /^cuda(:\d+)?$/.test(device);
}

export function isEngineId(value: string): value is EngineId {
  return (ENGINE_IDS as readonly string[]).includes(value);
}

export function isDtype(value: string): value is Dtype {
  return (DTYPES as readonly string[]).includes(value);
}

/** One measured matmul benchmark (one engine, device, dtype and size). */
export interface BenchResult {
  engine: EngineId;
  /** "cpu", "cuda:0", "mps", … in PyTorch's terms. */
  device: string;
  /** torch on the CPU: the torch.set_num_threads it ran with (absent: the engine's own choice). */
  threads?: number;
  dtype: Dtype;
  size: number;
  /** Timed samples (the warm-up run is not among them). */
  repeats: number;
  /** Every sample's seconds per product, in the order run. */
  timesSec: number[];
  /**
   * Products timed together for one sample (the sample is the block's time / this); 1 for
   * fixed repeats. Absent: 1 (engines without blocks).
   */
  productsPerSample?: number;
  /** The seconds the samples adapted to (torch's blocked autorange); null or absent: a fixed count of repeats. */
  repeatBudgetSec?: number | null;
  medianSec: number;
  minSec: number;
  maxSec: number;
  /** First and third quartiles and their difference (statistics.ts: linear interpolation). */
  q1Sec: number;
  q3Sec: number;
  iqrSec: number;
  /** 2·n³ / medianSec / 1e9. */
  gflops: number;
  /** Largest relative error of the checked entries against a float64 reference (correctness.ts). */
  maxRelError: number;
  /** Entries of the product compared with the reference. */
  checkedEntries: number;
  /** Engine-specific detail for people, e.g. "wasm, SIMD, 1 thread" or "torch 2.4.0+cu121, NVIDIA H200". */
  detail: string | null;
  /**
   * Set once the run is diagnosed (diagnosis.ts): the device's peak for this dtype in GFLOP/s
   * and what it is (null: unknown part or CPU), gflops as a percent of it, and whether the
   * repeats disagree (IQR above 10 % of the median).
   */
  peakGflops?: number | null;
  percentOfPeak?: number | null;
  peakBasis?: string | null;
  noisy?: boolean;
  /**
   * A noisy result only: what the run watcher saw disturb it (noiseReason.ts: another process on
   * the GPU, a moving clock, other load on the host's CPUs), or the generic sentence.
   */
  noiseReason?: string;
  /**
   * What the run watcher saw of other processes keeping the host's CPUs busy while this result
   * ran (noiseReason.ts), noisy or not: a busy host is said before any comparison.
   */
  hostLoad?: string;
}

/**
 * Everything that is not a measurement. These are results shown to the user with a remedy,
 * never crashes:
 * - not-installed: the engine's package is absent (tfjs-node, tfjs-node-gpu, torch).
 * - tfjs-cuda-mismatch: tfjs-node-gpu loaded but TensorFlow registered no GPU (CUDA 11.2 / cuDNN 8.1).
 * - no-device: the engine works but the requested device does not exist for it.
 * - unsupported: the engine cannot run this dtype (tfjs backends are float32 only).
 * - refused: nothing was allocated: 3·n²·bytes (on the CPU, with the engine's own needs and
 *   a reserve: footprint.ts) does not fit in the free memory, or the run's estimated time
 *   passes its budget (timeBudget.ts).
 * - wrong-result: the product failed the correctness check (a run that fails loudly).
 * - failed: the engine threw; message is the error's message, never a stack trace.
 * - cancelled: the user cancelled before this run finished.
 * - below-peak: not a failure but a diagnosis of a measurement far below its device's peak
 *   (diagnosis.ts; `code` says which: cpu-blas, one-thread, blas-threads, cuda-tf32-off, gpu-throttled).
 */
export type OutcomeStatus =
  | 'not-installed'
  | 'tfjs-cuda-mismatch'
  | 'no-device'
  | 'unsupported'
  | 'refused'
  | 'wrong-result'
  | 'failed'
  | 'cancelled'
  | 'below-peak';

export interface EngineOutcome {
  status: OutcomeStatus;
  engine: EngineId;
  device: string | null;
  dtype: Dtype | null;
  size: number | null;
  /** One sentence saying what happened. */
  message: string;
  /** What the user can do about it; null when there is nothing to do (e.g. cancelled). */
  remedy: string | null;
  /** below-peak: which diagnosis (gpu-throttled: throttling.ts, from the clocks seen during the run). */
  code?: 'cpu-blas' | 'one-thread' | 'blas-threads' | 'cuda-tf32-off' | 'gpu-throttled';
  /** refused for memory: bytes the run needs and bytes free on the device. */
  neededBytes?: number;
  freeBytes?: number;
  /** refused for time: the run's estimated seconds and the budget it passed. */
  estimatedSec?: number;
  budgetSec?: number;
  /** wrong-result: the error found and the dtype's threshold. */
  maxRelError?: number;
  threshold?: number;
}

/** What one engine run produces: a measurement, or an outcome explaining why not. */
export type RunResult = { status: 'ok'; result: BenchResult } | EngineOutcome;

export function isMeasured(run: RunResult): run is { status: 'ok'; result: BenchResult } {
  return run.status === 'ok';
}

/**
 * How much faster each result is than the CPU baseline of the same run
 * (compare.ts picks the baseline: torch cpu, then tfjs-node cpu, then wasm, then js).
 * speedup = baseline medianSec / result medianSec, matched by size, and by dtype where the
 * baseline has that dtype, else against the baseline's float32 (a float16 GPU run against
 * the CPU's float32: the question "what does my GPU's half precision buy over my CPU"):
 * `baselineDtype` says which, and every sentence that shows a speedup whose dtypes differ
 * names both, so a float16 figure is never read as a like-for-like comparison.
 * The baseline's own results are not listed.
 */
export interface SpeedupReport {
  baseline: BenchTarget;
  entries: SpeedupEntry[];
}

/** What one series of results ran on: an engine, a device and, for torch on the CPU, a thread count. */
export interface BenchTarget {
  engine: EngineId;
  device: string;
  threads?: number;
}

export interface SpeedupEntry {
  engine: EngineId;
  device: string;
  threads?: number;
  dtype: Dtype;
  /** The dtype of the baseline result it was divided by: `dtype`, or float32 where the baseline lacks `dtype`. */
  baselineDtype: Dtype;
  size: number;
  speedup: number;
}

/** True when a speedup compares two different dtypes (float16 on the GPU against float32 on the CPU). */
export function mixesDtypes(entry: Pick<SpeedupEntry, 'dtype' | 'baselineDtype'>): boolean {
  return entry.dtype !== entry.baselineDtype;
}

/** One benchmark session: every measurement, every outcome, and the speedups. */
export interface BenchRun {
  results: BenchResult[];
  /** Outcomes other than measurements (not installed, refused, unsupported, …). */
  problems: EngineOutcome[];
  /** null when the run has no CPU baseline. */
  speedup: SpeedupReport | null;
}

/**
 * Copy bandwidth measured by the torch engine: host↔device (pageable and pinned host memory),
 * and deviceToDevice, a copy within the device's own memory (host memory on the CPU), which
 * reads and writes every byte.
 */
export interface TransferResult {
  device: string;
  direction: 'hostToDevice' | 'deviceToHost' | 'deviceToDevice';
  /** The host memory of a host↔device copy; 'device' for deviceToDevice. */
  memory: 'pageable' | 'pinned' | 'device';
  bytes: number;
  status: 'ok' | 'unsupported' | 'failed';
  timesSec: number[];
  medianSec: number | null;
  /** bytes / medianSec / 1e9; deviceToDevice: 2 × bytes / medianSec / 1e9 (read and write). */
  gbPerSec: number | null;
  /** deviceToDevice on a known accelerator: its datasheet memory bandwidth (memoryBandwidth.ts), the share of it, and which part. */
  peakGbPerSec?: number | null;
  percentOfPeak?: number | null;
  peakBasis?: string | null;
  /** Why not measured, when status is not ok. */
  message: string | null;
}

/** Progress of one engine run, for the notification and the CLI's stderr. */
export interface BenchProgress {
  engine: EngineId;
  device: string;
  threads?: number;
  dtype: Dtype;
  size: number;
  phase: 'preparing' | 'warmup' | 'timing' | 'checking';
  /** Timed repeats finished so far, out of `repeats`. */
  done: number;
  repeats: number;
  /** Seconds of the repeat that just finished, when phase is timing. */
  lastSec?: number;
}
