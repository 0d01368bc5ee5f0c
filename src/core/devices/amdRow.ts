// The row every AMD source (rocm-smi, amd-smi, sysfs) becomes, apart from the parsers so
// that amd.ts and amdSmi.ts can share it without importing each other.
import type { MemoryInfo } from './report';

export interface AmdGpuRow {
  /** The tool's card index (card0 → 0). */
  index: number;
  name: string;
  uuid: string | null;
  pciBusId: string | null;
  memory: MemoryInfo;
  utilizationPercent: number | null;
  temperatureC: number | null;
  powerW: number | null;
  driverVersion: string | null;
  /** e.g. "gfx1100" */
  gfxVersion: string | null;
  /** The second die of an MI250 reports some values (power) as "N/A (Secondary die)". */
  secondaryDie: boolean;
}

export interface AmdParseResult {
  gpus: AmdGpuRow[];
  /** Set when the tool printed no usable JSON (e.g. "WARNING: No JSON data to report"). */
  warning: string | null;
}
