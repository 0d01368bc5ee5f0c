// What the machine did while a benchmark ran, as the worker's run watcher saw it
// (src/worker/bench/runWatcher.ts): each GPU's clocks, the host's load from processes other
// than the benchmark's own, other processes holding a benchmarked GPU, and when each result
// was timed. Plain data so the diagnosis (throttling.ts, noiseReason.ts) stays pure and is
// tested on recorded samples.
import type { Dtype, EngineId } from './model';
import type { GpuClockReading } from './gpuClockSamples';

/** One GPU at one moment, under the benchmark's device name ("cuda:0"). */
export interface GpuClockSample extends GpuClockReading {
  /** Milliseconds since the epoch. */
  time: number;
  device: string;
}

/** A process that used the machine's CPUs between two readings of /proc. */
export interface BusyProcess {
  pid: number;
  name: string;
  /** Its share of all CPUs' time in the interval, 0–1. */
  share: number;
}

/** The host's CPU time between two readings of /proc, split into the benchmark's own and everyone else's. */
export interface HostLoadSample {
  /** The interval's start and end, ms since the epoch. */
  from: number;
  to: number;
  /** Share of all CPUs' time used by processes outside the benchmark's process tree, 0–1. */
  othersShare: number;
  /** Logical CPUs, to say the share in cores. */
  cpus: number;
  /** The busiest of those other processes, busiest first. */
  busiest: BusyProcess[];
}

/** A process outside the benchmark that held a benchmarked GPU. */
export interface OtherGpuProcess {
  device: string;
  pid: number;
  name: string;
  usedBytes: number | null;
}

/** Which result: a thread count too, where torch on the CPU ran with one it chose. */
export interface ResultKey {
  engine: EngineId;
  device: string;
  threads?: number;
  dtype: Dtype;
  size: number;
}

/** When one result was measured: from its warm-up to its check. */
export interface ResultWindow extends ResultKey {
  from: number;
  to: number;
}

export interface RunSamples {
  gpu: GpuClockSample[];
  host: HostLoadSample[];
  gpuProcesses: OtherGpuProcess[];
  windows: ResultWindow[];
}

export const NO_SAMPLES: RunSamples = { gpu: [], host: [], gpuProcesses: [], windows: [] };

export function sameResult(a: ResultKey, b: ResultKey): boolean {
  return a.engine === b.engine && a.device === b.device && (a.threads ?? null) === (b.threads ?? null) && a.dtype === b.dtype && a.size === b.size;
}

export function windowOf(samples: RunSamples, r: ResultKey): ResultWindow | null {
  return samples.windows.find((w) => sameResult(w, r)) ?? null;
}

/**
 * A GPU's samples that speak for the window: those taken in it and the first after it (a
 * sample reports the interval before it, so a window shorter than the interval still gets one).
 */
export function gpuSamplesIn(samples: RunSamples, device: string, window: ResultWindow): GpuClockSample[] {
  const own = samples.gpu.filter((s) => s.device === device).sort((a, b) => a.time - b.time);
  const inside = own.filter((s) => s.time >= window.from && s.time <= window.to);
  const after = own.find((s) => s.time > window.to);
  return after ? [...inside, after] : inside;
}

/** Host intervals that overlap the window. */
export function hostSamplesIn(samples: RunSamples, window: ResultWindow): HostLoadSample[] {
  return samples.host.filter((s) => s.to >= window.from && s.from <= window.to);
}
