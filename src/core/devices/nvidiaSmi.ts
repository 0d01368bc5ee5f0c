// nvidia-smi's machine-readable outputs (PROBES.md): the inventory CSV, the CUDA version
// from `-q`, the `-L` listing with MIG instances, and per-process memory.
import type { MemoryInfo, MigInstance } from './report';
import { freeFrom, integerOrNull, mibToBytes, nonBlankLines, numberOrNull, textOrNull } from './fields';

/** The inventory fields, in the order parseNvidiaQueryCsv expects them. */
export const NVIDIA_QUERY_FIELDS =
  'index,uuid,name,pci.bus_id,memory.total,memory.used,memory.free,utilization.gpu,temperature.gpu,power.draw,driver_version';
export const NVIDIA_QUERY_ARGS: readonly string[] = [`--query-gpu=${NVIDIA_QUERY_FIELDS}`, '--format=csv,noheader,nounits'];

export const NVIDIA_COMPUTE_APPS_FIELDS = 'gpu_uuid,pid,process_name,used_memory';
export const NVIDIA_COMPUTE_APPS_ARGS: readonly string[] = [
  `--query-compute-apps=${NVIDIA_COMPUTE_APPS_FIELDS}`,
  '--format=csv,noheader,nounits',
];
export const NVIDIA_DETAILS_ARGS: readonly string[] = ['-q'];
export const NVIDIA_LIST_ARGS: readonly string[] = ['-L'];

/** One GPU from the inventory CSV; bytes are integers, unknown values null. */
export interface NvidiaGpuRow {
  /** nvidia-smi's index: PCI bus order, not necessarily CUDA's order. */
  index: number;
  uuid: string | null;
  name: string;
  pciBusId: string | null;
  memory: MemoryInfo;
  utilizationPercent: number | null;
  temperatureC: number | null;
  powerW: number | null;
  driverVersion: string | null;
}

const QUERY_FIELD_COUNT = NVIDIA_QUERY_FIELDS.split(',').length;
const NAME_FIELD = 2;

/** Splits a CSV line; a GPU name containing commas is put back together. */
function splitQueryLine(line: string, expected: number, nameField: number): string[] | null {
  const parts = line.split(',').map((part) => part.trim());
  if (parts.length < expected) return null;
  const extra = parts.length - expected;
  if (extra === 0) return parts;
  const name = parts.slice(nameField, nameField + extra + 1).join(', ');
  return [...parts.slice(0, nameField), name, ...parts.slice(nameField + extra + 1)];
}

/** nvidia-smi's spellings of a GPU's identity: GPU-<uuid>, and the PCI bus id 00000000:19:00.0. */
const GPU_UUID = /^GPU-[0-9a-f][0-9a-f-]*$/i;
const PCI_BUS_ID = /^([0-9a-f]{4,8}:)?[0-9a-f]{2}:[0-9a-f]{2}\.[0-9a-f]$/i;

/**
 * A GPU row has an index and an identity (its UUID or its PCI bus id): a line of
 * `[Unknown Error]`s, a warning with enough commas, or a cut-off row is not a GPU.
 */
function parseQueryLine(line: string): NvidiaGpuRow | null {
  const fields = splitQueryLine(line, QUERY_FIELD_COUNT, NAME_FIELD);
  if (!fields) return null;
  const [index, uuid, name, busId, total, used, free, utilization, temperature, power, driver] = fields;
  const indexValue = integerOrNull(index);
  if (indexValue === null || !/^\d+$/.test(index)) return null;
  if (!GPU_UUID.test(uuid) && !PCI_BUS_ID.test(busId)) return null;
  const totalBytes = mibToBytes(numberOrNull(total));
  const usedBytes = mibToBytes(numberOrNull(used));
  return {
    index: indexValue,
    uuid: textOrNull(uuid),
    name: textOrNull(name) ?? `NVIDIA GPU ${indexValue}`,
    pciBusId: textOrNull(busId),
    memory: { totalBytes, usedBytes, freeBytes: mibToBytes(numberOrNull(free)) ?? freeFrom(totalBytes, usedBytes) },
    utilizationPercent: numberOrNull(utilization),
    temperatureC: numberOrNull(temperature),
    powerW: numberOrNull(power),
    driverVersion: textOrNull(driver),
  };
}

export interface ParsedNvidiaInventory {
  rows: NvidiaGpuRow[];
  /** The non-blank lines that are not GPU rows (a warning, an error row, a cut-off line). */
  skipped: string[];
}

/** `nvidia-smi --query-gpu=<NVIDIA_QUERY_FIELDS> --format=csv,noheader,nounits`, line by line. */
export function parseNvidiaInventory(stdout: string): ParsedNvidiaInventory {
  const inventory: ParsedNvidiaInventory = { rows: [], skipped: [] };
  for (const line of nonBlankLines(stdout)) {
    const row = parseQueryLine(line);
    if (row) inventory.rows.push(row);
    else inventory.skipped.push(line);
  }
  return inventory;
}

/** The GPU rows of the inventory; lines that are not GPU rows are skipped. */
export function parseNvidiaQueryCsv(stdout: string): NvidiaGpuRow[] {
  return parseNvidiaInventory(stdout).rows;
}

/** The CUDA version the driver supports, from `nvidia-smi -q` (or the plain `nvidia-smi` banner). */
export function parseNvidiaCudaVersion(stdout: string): string | null {
  const match = /CUDA Version\s*:\s*(\d+\.\d+(?:\.\d+)?)/.exec(stdout);
  return match ? match[1] : null;
}

/** The driver version from `nvidia-smi -q`, for when the inventory query failed. */
export function parseNvidiaDriverVersion(stdout: string): string | null {
  const match = /Driver Version\s*:\s*(\d+(?:\.\d+)+)/.exec(stdout);
  return match ? match[1] : null;
}

export interface NvidiaListedGpu {
  index: number;
  name: string;
  uuid: string;
  mig: MigInstance[];
}

const LIST_GPU_LINE = /^GPU\s+(\d+):\s*(.*?)\s*\(UUID:\s*([^)\s]+)\s*\)/;
const LIST_MIG_LINE = /^\s+MIG\s+(\S+)\s+Device\s+(\d+):\s*\(UUID:\s*([^)\s]+)\s*\)/;

/** `nvidia-smi -L`: GPU lines, each followed by its indented MIG instance lines. */
export function parseNvidiaMigList(stdout: string): NvidiaListedGpu[] {
  const gpus: NvidiaListedGpu[] = [];
  for (const line of nonBlankLines(stdout)) {
    const gpu = LIST_GPU_LINE.exec(line);
    if (gpu) {
      gpus.push({ index: Number(gpu[1]), name: gpu[2], uuid: gpu[3], mig: [] });
      continue;
    }
    const mig = LIST_MIG_LINE.exec(line);
    const owner = gpus[gpus.length - 1];
    if (mig && owner) owner.mig.push({ profile: mig[1], deviceIndex: Number(mig[2]), uuid: mig[3] });
  }
  return gpus;
}

export interface NvidiaComputeApp {
  gpuUuid: string;
  pid: number;
  processName: string;
  usedBytes: number | null;
}

/** `--query-compute-apps=gpu_uuid,pid,process_name,used_memory`; in containers other processes may be missing. */
export function parseNvidiaComputeApps(csv: string): NvidiaComputeApp[] {
  const apps: NvidiaComputeApp[] = [];
  for (const line of nonBlankLines(csv)) {
    const fields = splitQueryLine(line, 4, 2);
    if (!fields) continue;
    const pid = integerOrNull(fields[1]);
    const gpuUuid = textOrNull(fields[0]);
    if (pid === null || gpuUuid === null) continue;
    apps.push({ gpuUuid, pid, processName: fields[2], usedBytes: mibToBytes(numberOrNull(fields[3])) });
  }
  return apps;
}
