// AMD GPUs: rocm-smi's JSON (every value a string), amd-smi's JSON (value objects) and
// sysfs (no tool at all). All three become the same row.
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
  /** The second die of an MI250 reports most values as "N/A (Secondary die)". */
  secondaryDie: boolean;
}

export interface AmdParseResult {
  gpus: AmdGpuRow[];
  /** Set when the tool printed no usable JSON (e.g. "WARNING: No JSON data to report"). */
  warning: string | null;
}

export const ROCM_SMI_ARGS: readonly string[] = ['--showproductname', '--showmeminfo', 'vram', '--showuse', '--json'];

export function parseRocmSmiJson(stdout: string): AmdParseResult {
  void stdout;
  return { gpus: [], warning: null };
}

export function parseAmdSmiJson(staticJson: string, metricJson?: string): AmdParseResult {
  void staticJson;
  void metricJson;
  return { gpus: [], warning: null };
}

/** The files of one /sys/class/drm/card<N>/device/ directory, as text (absent files undefined). */
export interface SysfsDrmCard {
  /** "card0" */
  card: string;
  vendor?: string;
  device?: string;
  mem_info_vram_total?: string;
  mem_info_vram_used?: string;
  gpu_busy_percent?: string;
  product_name?: string;
  /** The target of the device symlink's basename, e.g. "0000:03:00.0". */
  pciBusId?: string;
}

export function parseSysfsDrmCard(card: SysfsDrmCard): AmdGpuRow | null {
  void card;
  return null;
}
