// Every request and notification between the extension and the compute worker, typed
// once. Both ends import these; nothing else crosses the boundary. (The CLI runs the
// worker's code in-process and uses the same parameter and result types.)
import { NotificationType, RequestType } from 'vscode-jsonrpc';
import type { BenchProgress, BenchRun, Dtype, EngineId, EngineOutcome, TransferResult } from '../core/bench/model';
import type { GpuProcess } from '../core/devices/gpuProcesses';
import type { DeviceReport } from '../core/devices/report';
import type { SweepSummary } from '../core/bench/sweep';
import type { EveryDeviceReport } from '../core/bench/devices/everyDevice';
import type { HistoryPoint } from '../core/devices/sampleHistory';

// A transfer measurement is the core's model (core/bench/model.ts); it crosses the
// boundary inside BenchRunResponse, so the protocol names it too.
export type { TransferResult };

/** Settings the worker needs; sent with each request so the worker holds no config state. */
export interface ProbeOptions {
  /** Interpreter to ask about PyTorch; null: none usable (e.g. untrusted workspace setting). */
  pythonPath: string | null;
  /** The user's pinned device ("cuda:1"), or null to follow get_device()'s order. */
  pinnedDevice: string | null;
  /** Per-probe timeout in milliseconds for every kind; absent: each kind's default (probeTimeouts.ts). */
  timeoutMs?: number;
  /** Probe PyTorch again even when nothing in the interpreter changed (the user asked to detect). */
  refresh?: boolean;
  /**
   * Folders whose node_modules may hold @tensorflow/tfjs-node-gpu (the extension's global
   * storage), as for a benchmark: detect asks it whether TensorFlow registers the NVIDIA GPU.
   */
  nativeSearchPaths?: string[];
}

export const DetectRequest = new RequestType<ProbeOptions, DeviceReport, void>('deviceDoctor/detect');

export interface MonitorOptions {
  intervalMs: number;
  /** This window's processes (the extension host, its terminals' shells): what descends from one is marked as the window's. */
  windowPids?: number[];
}

/** Starts streaming memory samples (one long-lived `nvidia-smi -lms`, sysfs polling for AMD, host memory). */
export const StartMonitorRequest = new RequestType<MonitorOptions, void, void>('deviceDoctor/startMonitor');
export const StopMonitorRequest = new RequestType<void, void, void>('deviceDoctor/stopMonitor');

export interface MemorySample {
  /** Accelerator id as in the report ("cuda:0") or "cpu" for host memory. */
  id: string;
  usedBytes: number | null;
  totalBytes: number | null;
  utilizationPercent: number | null;
  /** Milliseconds since the epoch. */
  time: number;
}

export interface MemorySamples {
  samples: MemorySample[];
}

export const MemorySamplesNotification = new NotificationType<MemorySamples>('deviceDoctor/memorySamples');

export type { GpuProcess, HistoryPoint };

export interface HistoryResponse {
  /** Per id ("cuda:0", "cpu"), the monitor's samples of the last windowMs, oldest first. */
  series: Record<string, HistoryPoint[]>;
  windowMs: number;
  /** The worker's clock when it answered. */
  now: number;
}

/** What the monitor kept of the last minutes (memory and utilization per device). */
export const HistoryRequest = new RequestType<void, HistoryResponse, void>('deviceDoctor/history');

export interface GpuProcesses {
  /** Every process the GPU tools list, most memory first; empty when none uses a GPU. */
  processes: GpuProcess[];
  /** Milliseconds since the epoch. */
  time: number;
}

/** Who uses the GPUs, polled every few seconds while monitoring (nvidia-smi compute apps, amd-smi/rocm-smi, /proc). */
export const GpuProcessesNotification = new NotificationType<GpuProcesses>('deviceDoctor/gpuProcesses');

/** A probe or monitor failure worth showing (a hung nvidia-smi killed after its timeout). */
export interface WorkerProblem {
  source: string;
  message: string;
}

export const WorkerProblemNotification = new NotificationType<WorkerProblem>('deviceDoctor/problem');

/** Log lines for the extension's output channel (the worker never writes to stdout). */
export interface WorkerLog {
  level: 'trace' | 'debug' | 'info' | 'warn' | 'error';
  message: string;
}

export const WorkerLogNotification = new NotificationType<WorkerLog>('deviceDoctor/log');

// ---- Benchmarks ----

/**
 * What a benchmark compares:
 * - versus-cpu: `engine` (default torch when PyTorch is usable, else wasm) on `device`
 *   (default the selected device) and a CPU baseline (on a CPU-only machine: another CPU engine).
 * - all: every engine on every device it has here (`engine`/`device` filter when given).
 * - single: exactly `engine` on `device` (both required); a target that cannot run rejects the request.
 */
export type BenchCompare = 'versus-cpu' | 'all' | 'single';

export interface BenchParams {
  /** Interpreter for the torch engine; null: none may be run (torch is then reported not installed). */
  pythonPath: string | null;
  /** The pinned device, as for detect; decides the selected device. */
  pinnedDevice: string | null;
  compare: BenchCompare;
  engine?: string;
  device?: string;
  /** Matrix order n (default 1024); ignored when sweep is true. */
  size?: number;
  /** Sizes 256 … 8192, stopping after the first whose median passes budgetSec. */
  sweep?: boolean;
  budgetSec?: number;
  /**
   * Timed repeats per size, a fixed count (default: the torch engine adapts its samples to
   * repeatBudgetSec; other engines run 10).
   */
  repeats?: number;
  /** torch: seconds of timed blocks per size (blocked autorange; default by size: core/bench/repeatBudget.ts); not with repeats. */
  repeatBudgetSec?: number;
  /** Default ["float32"]; "all" is not a dtype: list them. An engine skips dtypes it lacks unless compare is single. */
  dtypes?: string[];
  /** Host↔device bandwidth for torch on accelerators, with the device's own memory copy (default true). */
  transfer?: boolean;
  /** The memory copy (dst.copy_(src)) on the CPU too; accelerators measure it with `transfer`. */
  memory?: boolean;
  /** Echoed in every BenchProgressNotification, so a client can match them to its request. */
  runId?: string;
  /** Folders whose node_modules may hold @tensorflow/tfjs-node(-gpu) (the extension's global storage). */
  nativeSearchPaths?: string[];
  /**
   * With compare 'all' and engine 'torch' (the "every device" choice): the accelerators are then
   * also run all at once, and the response carries `everyDevice` (both passes, with each GPU's
   * clock, temperature and power during its runs), as `bench --devices all` prints it.
   */
  everyDevice?: boolean;
}

/** A finished (or cancelled) benchmark: the core's BenchRun plus what only the worker knows. */
export interface BenchRunResponse extends BenchRun {
  transfers: TransferResult[];
  /** true when the request was cancelled; results holds what finished before. */
  cancelled: boolean;
  /** The device the selection resolved to (versus-cpu), and what was compared, in words. */
  selectedDevice: string;
  description: string;
  /** A sweep only: its sizes, the median after which it stops, and where each series stopped short (core/bench/sweep.ts). */
  sweep?: SweepSummary;
  /** params.everyDevice only: each accelerator alone (from this run's results) and all at once, against its peers. */
  everyDevice?: EveryDeviceReport;
}

/** Runs a benchmark; one at a time: a request while one runs is rejected with BENCH_BUSY. */
export const BenchRequest = new RequestType<BenchParams, BenchRunResponse, void>('deviceDoctor/bench');

/** JSON-RPC error code of a bench request rejected because another one is running. */
export const BENCH_BUSY = -32001;
/** JSON-RPC error code of an impossible bench request (size, dtype, device, engine): the message says why. */
export const BENCH_INVALID = -32602;

export interface BenchProgressParams {
  runId: string | null;
  /** 1-based index of the engine run in progress, out of `steps` planned (a sweep may end sooner). */
  step: number;
  steps: number;
  progress: BenchProgress;
}

export const BenchProgressNotification = new NotificationType<BenchProgressParams>('deviceDoctor/benchProgress');

export interface EngineInfo {
  engine: EngineId;
  /** Devices it can run on here; empty when unavailable. */
  devices: string[];
  dtypes: Dtype[];
  /** Why it cannot run (not installed, no GPU registered), or null when it can. */
  problem: EngineOutcome | null;
}

export interface EnginesResponse {
  engines: EngineInfo[];
  /** The selected device of the device report the answer is based on. */
  selectedDevice: string;
}

export type EnginesParams = Pick<BenchParams, 'pythonPath' | 'pinnedDevice' | 'nativeSearchPaths'> & {
  /**
   * Answer at once with the engines that need no device report (TensorFlow.js), torch left out:
   * the editor's pick shows them while PyTorch's probe (up to its 120 s timeout) is still running.
   */
  withoutTorch?: boolean;
};

/** Which engines and devices a benchmark can use here (for the quick pick). */
export const EnginesRequest = new RequestType<EnginesParams, EnginesResponse, void>('deviceDoctor/engines');
