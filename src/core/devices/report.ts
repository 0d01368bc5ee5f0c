// The device report (PROBES.md): what `device-doctor detect --json` prints and what the
// worker's `detect` method returns. Bytes are integers; unknown values are null.
import type { Topology } from './topology';

export type Vendor = 'nvidia' | 'amd' | 'apple' | 'intel' | 'unknown';
export type AcceleratorApi = 'cuda' | 'rocm' | 'mps';

export interface MemoryInfo {
  totalBytes: number | null;
  usedBytes: number | null;
  freeBytes: number | null;
}

export interface MigInstance {
  /** e.g. "3g.20gb" */
  profile: string;
  deviceIndex: number;
  uuid: string;
}

export interface Accelerator {
  /** Stable id in PyTorch's terms where known ("cuda:0", "mps"), else "<vendor>:<index>". */
  id: string;
  vendor: Vendor;
  api: AcceleratorApi;
  name: string;
  uuid: string | null;
  pciBusId: string | null;
  memory: MemoryInfo;
  utilizationPercent: number | null;
  temperatureC: number | null;
  powerW: number | null;
  driverVersion: string | null;
  /** CUDA version the driver supports (nvidia-smi -q), for NVIDIA. */
  cudaVersion: string | null;
  mig: MigInstance[];
}

export interface CpuInfo {
  model: string | null;
  cores: number | null;
  flags: string[];
}

export interface HostInfo {
  platform: string;
  arch: string;
  cpu: CpuInfo;
  memory: { totalBytes: number | null; freeBytes: number | null };
}

export interface TorchDevice {
  index: number;
  name: string;
  capability: [number, number] | null;
  totalMemoryBytes: number | null;
  uuid: string | null;
  pciBusId: string | null;
  freeBytes: number | null;
  allocatedBytes: number | null;
  reservedBytes: number | null;
}

/** What the user's interpreter says about PyTorch (src/worker/python/probe.py). */
export type TorchStatus =
  | {
      interpreter: string;
      version: string;
      cuda: { built: boolean; available: boolean; version: string | null; deviceCount: number; devices?: TorchDevice[]; cudnnVersion?: number | null };
      hip?: string | null;
      mps: { built: boolean; available: boolean; allocates?: boolean; error?: string | null };
      currentAccelerator?: string | null;
      cudaVisibleDevices?: string | null;
    }
  | { interpreter: string; error: string };

export interface Problem {
  source: 'torch' | 'nvidia-smi' | 'rocm-smi' | 'amd-smi' | 'system_profiler' | 'interpreter' | 'tfjs' | 'host';
  /** Stable code from PROBES.md's diagnosis table, e.g. "torch-cpu-only-build". */
  code: string;
  message: string;
  hint: string;
}

export interface SelectedDevice {
  /** "cuda:0", "mps" or "cpu" */
  device: string;
  reason: string;
}

export interface DeviceReport {
  schemaVersion: 1;
  host: HostInfo;
  accelerators: Accelerator[];
  torch: TorchStatus | null;
  selected: SelectedDevice;
  problems: Problem[];
  /** How the GPUs are linked (nvidia-smi topo -m); present only when read for two GPUs or more. */
  topology?: Topology;
}
