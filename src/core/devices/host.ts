// The CPU and system memory. /proc/cpuinfo and os.* values are read by the worker and
// handed in here.
import type { CpuInfo, HostInfo } from './report';

export function parseProcCpuinfo(text: string): CpuInfo {
  void text;
  return { model: null, cores: null, flags: [] };
}

/** What the worker reads from Node's os module (and /proc/cpuinfo on Linux). */
export interface HostFacts {
  platform: string;
  arch: string;
  /** os.cpus() models, one per logical core. */
  cpuModels: string[];
  /** os.availableParallelism() where it exists. */
  logicalCores?: number;
  totalMemoryBytes: number | null;
  freeMemoryBytes: number | null;
  /** The text of /proc/cpuinfo on Linux. */
  procCpuinfo?: string;
}

export function buildHostInfo(facts: HostFacts): HostInfo {
  return {
    platform: facts.platform,
    arch: facts.arch,
    cpu: { model: facts.cpuModels[0] ?? null, cores: facts.logicalCores ?? null, flags: [] },
    memory: { totalBytes: facts.totalMemoryBytes, freeBytes: facts.freeMemoryBytes },
  };
}
