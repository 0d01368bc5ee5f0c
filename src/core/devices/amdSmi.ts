// amd-smi's JSON (ROCm 6+): a list of per-GPU objects, wrapped in {"gpu_data": [...]} by
// newer releases, whose leaves are {"value": 42, "unit": "%"} or "N/A". Field names are
// those of amd-smi's `static` (asic, bus, vram, driver) and `metric` (usage, power,
// temperature, mem_usage) commands; `list` adds bdf and uuid at the top level.
import type { AmdGpuRow, AmdParseResult } from './amdRow';
import { freeFrom, integerOrNull, isRecord, numberOrNull, parseJsonOrUndefined, textOrNull } from './fields';

export const AMD_SMI_STATIC_ARGS: readonly string[] = ['static', '--asic', '--bus', '--vram', '--driver', '--json'];
export const AMD_SMI_METRIC_ARGS: readonly string[] = ['metric', '--usage', '--power', '--temperature', '--mem-usage', '--json'];
export const AMD_SMI_LIST_ARGS: readonly string[] = ['list', '--json'];

type Entry = Record<string, unknown>;

/** amd-smi labels binary units with decimal names ("MB" is MiB: it divides by 1024*1024). */
const UNIT_BYTES: Record<string, number> = { b: 1, kb: 1024, kib: 1024, mb: 1024 ** 2, mib: 1024 ** 2, gb: 1024 ** 3, gib: 1024 ** 3 };

function path(entry: Entry, ...keys: string[]): unknown {
  let value: unknown = entry;
  for (const key of keys) value = isRecord(value) ? value[key] : undefined;
  return value;
}

/** A `{"value": 42, "unit": "%"}` leaf, a bare number, or "N/A". */
function measured(raw: unknown): number | null {
  return numberOrNull(isRecord(raw) ? raw['value'] : raw);
}

function measuredBytes(raw: unknown): number | null {
  const value = measured(raw);
  if (value === null || value < 0) return null;
  const unit = isRecord(raw) && typeof raw['unit'] === 'string' ? raw['unit'].toLowerCase() : 'mb';
  const scale = UNIT_BYTES[unit];
  return scale === undefined ? null : Math.round(value * scale);
}

function entriesOf(json: string): Entry[] | null {
  const parsed = parseJsonOrUndefined(json.trim());
  const list = isRecord(parsed) ? parsed['gpu_data'] : parsed;
  return Array.isArray(list) ? list.filter(isRecord) : null;
}

function rowFrom(index: number, entry: Entry): AmdGpuRow {
  const totalBytes = measuredBytes(path(entry, 'mem_usage', 'total_vram')) ?? measuredBytes(path(entry, 'vram', 'size'));
  const usedBytes = measuredBytes(path(entry, 'mem_usage', 'used_vram'));
  return {
    index,
    name: textOrNull(path(entry, 'asic', 'market_name')) ?? `AMD GPU ${index}`,
    uuid: textOrNull(entry['uuid']),
    pciBusId: textOrNull(path(entry, 'bus', 'bdf')) ?? textOrNull(entry['bdf']),
    memory: { totalBytes, usedBytes, freeBytes: measuredBytes(path(entry, 'mem_usage', 'free_vram')) ?? freeFrom(totalBytes, usedBytes) },
    utilizationPercent: measured(path(entry, 'usage', 'gfx_activity')),
    temperatureC: measured(path(entry, 'temperature', 'edge')) ?? measured(path(entry, 'temperature', 'hotspot')),
    powerW: measured(path(entry, 'power', 'socket_power')),
    driverVersion: textOrNull(path(entry, 'driver', 'version')),
    gfxVersion: textOrNull(path(entry, 'asic', 'target_graphics_version')),
    secondaryDie: false,
  };
}

/** Merges the outputs of `amd-smi static`, `metric` and `list` (any of them) by GPU index. */
export function parseAmdSmiJson(...outputs: string[]): AmdParseResult {
  const merged = new Map<number, Entry>();
  let parsedAny = false;
  for (const output of outputs) {
    const entries = entriesOf(output);
    if (!entries) continue;
    parsedAny = true;
    for (const entry of entries) {
      const index = integerOrNull(entry['gpu']);
      if (index !== null) merged.set(index, { ...merged.get(index), ...entry });
    }
  }
  if (!parsedAny) {
    const line = outputs.join('\n').split(/\r?\n/).find((candidate) => candidate.trim() !== '')?.trim();
    return { gpus: [], warning: line ? `amd-smi printed no JSON: ${line}` : 'amd-smi printed nothing' };
  }
  const gpus = [...merged.entries()].sort(([a], [b]) => a - b).map(([index, entry]) => rowFrom(index, entry));
  return { gpus, warning: null };
}
