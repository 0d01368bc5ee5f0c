// `system_profiler SPDisplaysDataType -json` on macOS. The blob carries display serial
// numbers: only the fields named here are ever read, so nothing else can leak.
import type { Vendor } from './report';

export const SYSTEM_PROFILER_ARGS: readonly string[] = ['SPDisplaysDataType', '-json'];

export interface AppleGpuRow {
  index: number;
  name: string;
  vendor: Vendor;
  /** GPU cores on Apple silicon (`sppci_cores`). */
  cores: number | null;
  metalFamily: string | null;
  /** Dedicated memory (Intel Macs' discrete GPUs); null on Apple silicon. */
  vramBytes: number | null;
  /** Apple silicon: the GPU shares system memory. */
  unifiedMemory: boolean;
}

export interface AppleParseResult {
  gpus: AppleGpuRow[];
  warning: string | null;
}

export function parseSystemProfilerDisplays(json: string): AppleParseResult {
  void json;
  return { gpus: [], warning: null };
}
