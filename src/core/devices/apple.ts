// `system_profiler SPDisplaysDataType -json` on macOS. The blob carries display serial
// numbers (`spdisplays_ndrvs[]._spdisplays_display-serial-number`): only the GPU fields
// named here are ever read, so nothing about the displays can leak into a report or log.
import type { Vendor } from './report';
import { integerOrNull, isRecord, parseJsonOrUndefined, textOrNull } from './fields';

export const SYSTEM_PROFILER_ARGS: readonly string[] = ['SPDisplaysDataType', '-json'];

export interface AppleGpuRow {
  index: number;
  name: string;
  vendor: Vendor;
  /** GPU cores on Apple silicon (`sppci_cores`, a string in the blob). */
  cores: number | null;
  /** e.g. "apple7", "mac2" */
  metalFamily: string | null;
  /** Dedicated memory (`spdisplays_vram`, Intel Macs' discrete GPUs); null on Apple silicon. */
  vramBytes: number | null;
  /** Apple silicon: the GPU shares system memory. */
  unifiedMemory: boolean;
}

export interface AppleParseResult {
  gpus: AppleGpuRow[];
  warning: string | null;
}

/** Vendors as system_profiler spells them: "sppci_vendor_Apple", "AMD (0x1002)", "Intel", "ATI (0x1002)". */
const VENDOR_PATTERNS: Array<[RegExp, Vendor]> = [
  [/apple|0x106b/i, 'apple'],
  [/amd|ati\b|0x1002/i, 'amd'],
  [/intel|0x8086/i, 'intel'],
  [/nvidia|0x10de/i, 'nvidia'],
];

function vendorOf(raw: unknown, name: string): Vendor {
  const text = `${typeof raw === 'string' ? raw : ''} ${name}`;
  return VENDOR_PATTERNS.find(([pattern]) => pattern.test(text))?.[1] ?? 'unknown';
}

const MEMORY_UNITS: Record<string, number> = { KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3, TB: 1024 ** 4 };

/** "8 GB", "1536 MB" → bytes (system_profiler's units are binary). */
export function parseMacMemorySize(raw: unknown): number | null {
  const match = typeof raw === 'string' ? /(\d+(?:\.\d+)?)\s*([KMGT]B)/i.exec(raw) : null;
  if (!match) return null;
  return Math.round(Number(match[1]) * MEMORY_UNITS[match[2].toUpperCase()]);
}

function metalFamilyOf(entry: Record<string, unknown>): string | null {
  const raw = textOrNull(entry['spdisplays_metalfamily']) ?? textOrNull(entry['spdisplays_mtlgpufamilysupport']);
  return raw ? raw.replace(/^spdisplays_(mtlgpufamily)?/, '') : null;
}

function gpuRow(entry: Record<string, unknown>, index: number): AppleGpuRow {
  const name = textOrNull(entry['sppci_model']) ?? textOrNull(entry['_name']) ?? `GPU ${index}`;
  const vendor = vendorOf(entry['spdisplays_vendor'], name);
  return {
    index,
    name,
    vendor,
    cores: integerOrNull(entry['sppci_cores']),
    metalFamily: metalFamilyOf(entry),
    vramBytes: vendor === 'apple' ? null : parseMacMemorySize(entry['spdisplays_vram']),
    unifiedMemory: vendor === 'apple',
  };
}

function isGpuEntry(entry: unknown): entry is Record<string, unknown> {
  if (!isRecord(entry)) return false;
  const type = entry['sppci_device_type'];
  return type === undefined || type === 'spdisplays_gpu';
}

export function parseSystemProfilerDisplays(json: string): AppleParseResult {
  const parsed = parseJsonOrUndefined(json.trim());
  const entries = isRecord(parsed) ? parsed['SPDisplaysDataType'] : undefined;
  if (!Array.isArray(entries)) {
    return { gpus: [], warning: 'system_profiler printed no SPDisplaysDataType JSON' };
  }
  const gpus = entries.filter(isGpuEntry).map((entry, index) => gpuRow(entry, index));
  return { gpus, warning: null };
}
