// AMD GPUs: rocm-smi's JSON (every value a string), amd-smi's JSON (value objects) and
// sysfs (no tool at all). All three become the same row.
import type { AmdGpuRow, AmdParseResult } from './amdRow';
import { bytesOrNull, freeFrom, isRecord, numberOrNull, parseJsonOrUndefined, textOrNull } from './fields';

export type { AmdGpuRow, AmdParseResult } from './amdRow';

/**
 * PROBES.md's flags plus --showbus: the "PCI Bus" it adds is what links a card to PyTorch's
 * device and to /sys/class/drm for the live monitor. Temperature and power keys are read
 * when a rocm-smi prints them too.
 */
export const ROCM_SMI_ARGS: readonly string[] = ['--showproductname', '--showmeminfo', 'vram', '--showuse', '--showbus', '--json'];

/** Looks a key up case-insensitively: rocm-smi has spelt "Card series" and "Card Series". */
function field(card: Record<string, unknown>, ...names: string[]): unknown {
  for (const name of names) {
    const wanted = name.toLowerCase();
    const key = Object.keys(card).find((candidate) => candidate.toLowerCase() === wanted);
    if (key !== undefined) return card[key];
  }
  return undefined;
}

const SECONDARY_DIE = /secondary die/i;

function rocmCardRow(key: string, card: Record<string, unknown>, driverVersion: string | null): AmdGpuRow {
  const index = Number(/\d+$/.exec(key)?.[0] ?? 0);
  const totalBytes = bytesOrNull(field(card, 'VRAM Total Memory (B)'));
  const usedBytes = bytesOrNull(field(card, 'VRAM Total Used Memory (B)', 'VRAM Used Memory (B)'));
  return {
    index,
    name: textOrNull(field(card, 'Card Series', 'Card Model', 'Device Name')) ?? `AMD GPU ${index}`,
    uuid: textOrNull(field(card, 'Unique ID')),
    pciBusId: textOrNull(field(card, 'PCI Bus')),
    memory: { totalBytes, usedBytes, freeBytes: freeFrom(totalBytes, usedBytes) },
    utilizationPercent: numberOrNull(field(card, 'GPU use (%)')),
    temperatureC: numberOrNull(field(card, 'Temperature (Sensor edge) (C)', 'Temperature (Sensor junction) (C)')),
    powerW: numberOrNull(field(card, 'Average Graphics Package Power (W)', 'Current Socket Graphics Package Power (W)')),
    driverVersion,
    gfxVersion: textOrNull(field(card, 'GFX Version')),
    secondaryDie: Object.values(card).some((value) => typeof value === 'string' && SECONDARY_DIE.test(value)),
  };
}

function noJson(stdout: string, tool: string): AmdParseResult {
  const line = stdout.split(/\r?\n/).find((candidate) => candidate.trim() !== '')?.trim();
  return { gpus: [], warning: line ? `${tool} printed no JSON: ${line}` : `${tool} printed nothing` };
}

/** `rocm-smi ... --json`: `{"card0": {...}, "system": {...}}` with every value a string. */
export function parseRocmSmiJson(stdout: string): AmdParseResult {
  const parsed = parseJsonOrUndefined(stdout.trim());
  if (!isRecord(parsed)) return noJson(stdout, 'rocm-smi');
  const system = parsed['system'];
  const driverVersion = isRecord(system) ? textOrNull(field(system, 'Driver version')) : null;
  const gpus = Object.entries(parsed)
    .filter(([key, value]) => /^card\d+$/i.test(key) && isRecord(value))
    .map(([key, value]) => rocmCardRow(key, value as Record<string, unknown>, driverVersion))
    .sort((a, b) => a.index - b.index);
  return { gpus, warning: null };
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
  /** The basename of the device symlink's target, e.g. "0000:03:00.0". */
  pciBusId?: string;
}

export const AMD_PCI_VENDOR = '0x1002';

/** One DRM card from sysfs; null unless it is an AMD GPU that reports its VRAM. */
export function parseSysfsDrmCard(card: SysfsDrmCard): AmdGpuRow | null {
  if (card.vendor?.trim().toLowerCase() !== AMD_PCI_VENDOR) return null;
  const totalBytes = bytesOrNull(card.mem_info_vram_total);
  if (totalBytes === null) return null;
  const usedBytes = bytesOrNull(card.mem_info_vram_used);
  const index = Number(/\d+$/.exec(card.card)?.[0] ?? 0);
  const deviceId = textOrNull(card.device);
  return {
    index,
    name: textOrNull(card.product_name) ?? `AMD GPU${deviceId ? ` ${deviceId}` : ''}`,
    uuid: null,
    pciBusId: textOrNull(card.pciBusId),
    memory: { totalBytes, usedBytes, freeBytes: freeFrom(totalBytes, usedBytes) },
    utilizationPercent: numberOrNull(card.gpu_busy_percent),
    temperatureC: null,
    powerW: null,
    driverVersion: null,
    gfxVersion: null,
    secondaryDie: false,
  };
}

// amd-smi lives in its own module; its names are re-exported so AMD callers need one import.
export { AMD_SMI_LIST_ARGS, AMD_SMI_METRIC_ARGS, AMD_SMI_STATIC_ARGS, parseAmdSmiJson } from './amdSmi';
