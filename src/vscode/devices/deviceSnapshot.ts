// What the editor knows about the devices at one moment, and the facts the status bar and the
// device report both derive from it (which memory to show, whether PyTorch can use the GPU).
// Plain data and pure functions: no vscode import, unit-tested through the two renderers.
import type { Accelerator, DeviceReport, TorchStatus } from '../../core/devices/report';
import type { GpuProcess, MemorySample, WorkerProblem } from '../../protocol/worker';
import type { InterpreterChoice } from '../interpreter/interpreterChoice';
import { torchCanUse } from '../../core/interpreters/usable';

export interface DeviceSnapshot {
  /** The latest report; kept while a new detection runs. */
  report: DeviceReport | null;
  /** A detection is running. */
  probing: boolean;
  /** Why the last detection failed (a sentence), or null. */
  detectError: string | null;
  /** Set when the worker was given up after repeated crashes. */
  workerStopped: string | null;
  /** The newest memory sample per id ("cuda:0", "cpu"). */
  samples: Readonly<Record<string, MemorySample>>;
  /** Who uses the GPUs, newest poll; null until the first one arrives. */
  processes: readonly GpuProcess[] | null;
  /** Recent problems the worker reported outside a detection (a hung nvidia-smi). */
  workerProblems: readonly WorkerProblem[];
  /** The interpreter of the last detection, and why it was (not) chosen. */
  interpreter: InterpreterChoice | null;
}

export const EMPTY_SNAPSHOT: DeviceSnapshot = {
  report: null,
  probing: false,
  detectError: null,
  workerStopped: null,
  samples: {},
  processes: null,
  workerProblems: [],
  interpreter: null,
};

export interface MemoryReading {
  usedBytes: number | null;
  totalBytes: number | null;
  utilizationPercent: number | null;
}

/** "H200" for "NVIDIA H200": the vendor is implied by "cuda:0" and the status bar is narrow. */
export function shortDeviceName(name: string): string {
  return name.replace(/^(NVIDIA|AMD|Apple|Intel\(R\)|Intel)\s+/i, '').trim() || name;
}

export function findAccelerator(report: DeviceReport, id: string): Accelerator | undefined {
  return report.accelerators.find((a) => a.id === id);
}

/** Host memory from the newest "cpu" sample, else from the report. */
export function hostMemory(snapshot: DeviceSnapshot, report: DeviceReport): MemoryReading {
  const sample = snapshot.samples.cpu;
  const { totalBytes, freeBytes } = report.host.memory;
  const reportUsed = totalBytes !== null && freeBytes !== null ? totalBytes - freeBytes : null;
  return {
    usedBytes: sample?.usedBytes ?? reportUsed,
    totalBytes: sample?.totalBytes ?? totalBytes,
    utilizationPercent: sample?.utilizationPercent ?? null,
  };
}

/** An accelerator's memory: the newest sample where there is one, else the report's numbers. */
export function acceleratorMemory(snapshot: DeviceSnapshot, accelerator: Accelerator): MemoryReading {
  // Apple GPUs share system memory: a host sample is the best live figure when none is its own.
  const sample = snapshot.samples[accelerator.id] ?? (accelerator.api === 'mps' ? snapshot.samples.cpu : undefined);
  return {
    usedBytes: sample?.usedBytes ?? accelerator.memory.usedBytes,
    totalBytes: sample?.totalBytes ?? accelerator.memory.totalBytes,
    utilizationPercent: sample?.utilizationPercent ?? accelerator.utilizationPercent,
  };
}

/** The selected device's memory: its accelerator's, or the host's for "cpu". */
export function selectedMemory(snapshot: DeviceSnapshot, report: DeviceReport): MemoryReading {
  const accelerator = findAccelerator(report, report.selected.device);
  return accelerator ? acceleratorMemory(snapshot, accelerator) : hostMemory(snapshot, report);
}

/** Used share of memory in percent, or null when either number is unknown. */
export function memoryPercent(reading: MemoryReading): number | null {
  const { usedBytes, totalBytes } = reading;
  if (usedBytes === null || totalBytes === null || totalBytes <= 0) return null;
  return (usedBytes / totalBytes) * 100;
}

/** One definition with the CLI and the interpreter list (core/interpreters/usable.ts). */
export function torchCanUseAccelerator(torch: TorchStatus): boolean {
  return torchCanUse(torch);
}

/**
 * A GPU is in the machine but PyTorch runs on the CPU because it cannot use it (not because
 * the user pinned the CPU). Unknown while PyTorch was not probed (Restricted Mode).
 */
export function gpuPresentButUnusable(report: DeviceReport): boolean {
  if (report.accelerators.length === 0 || report.selected.device !== 'cpu' || report.torch === null) return false;
  return !torchCanUseAccelerator(report.torch);
}

/** "PyTorch 2.11.0 · CUDA 13.0 available (1 device) · MPS not built", or why there is none. */
export function describeTorch(torch: TorchStatus | null): string {
  if (torch === null) return 'PyTorch was not probed';
  if ('error' in torch) return `PyTorch is not usable in ${torch.interpreter}: ${torch.error}`;
  const { cuda, mps } = torch;
  const parts = [`PyTorch ${torch.version}`];
  const backend = torch.hip ? `ROCm ${torch.hip}` : `CUDA${cuda.version ? ` ${cuda.version}` : ''}`;
  if (!cuda.built) parts.push(`built without ${torch.hip ? 'ROCm' : 'CUDA'}`);
  else if (cuda.available) parts.push(`${backend} available (${cuda.deviceCount} ${cuda.deviceCount === 1 ? 'device' : 'devices'})`);
  else parts.push(`${backend} not available`);
  if (mps.built) parts.push(mps.available ? (mps.allocates === false ? 'MPS available but failing' : 'MPS available') : 'MPS not available');
  return parts.join(' · ');
}
