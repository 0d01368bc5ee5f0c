// Joins the parsed probes into the device report of PROBES.md: its keys in its order,
// bytes as integers, null for unknown, accelerators and problems in a stable order.
import type { Accelerator, DeviceReport, HostInfo, MemoryInfo, Problem, SelectedDevice, TorchStatus } from './report';
import type { Topology } from './topology';

export interface ReportParts {
  host: HostInfo;
  accelerators: Accelerator[];
  torch: TorchStatus | null;
  selected: SelectedDevice;
  problems: Problem[];
  topology?: Topology | null;
}

function integerBytes(value: number | null): number | null {
  return value === null || !Number.isFinite(value) || value < 0 ? null : Math.round(value);
}

function memory(info: MemoryInfo): MemoryInfo {
  return { totalBytes: integerBytes(info.totalBytes), usedBytes: integerBytes(info.usedBytes), freeBytes: integerBytes(info.freeBytes) };
}

function accelerator(a: Accelerator): Accelerator {
  return {
    id: a.id,
    vendor: a.vendor,
    api: a.api,
    name: a.name,
    uuid: a.uuid,
    pciBusId: a.pciBusId,
    memory: memory(a.memory),
    utilizationPercent: a.utilizationPercent,
    temperatureC: a.temperatureC,
    powerW: a.powerW,
    driverVersion: a.driverVersion,
    cudaVersion: a.cudaVersion,
    mig: a.mig.map((instance) => ({ profile: instance.profile, deviceIndex: instance.deviceIndex, uuid: instance.uuid })),
  };
}

const VENDOR_RANK: Record<string, number> = { nvidia: 0, amd: 1, apple: 2, intel: 3, unknown: 4 };

/** PyTorch's devices first (cuda:0, cuda:1, …, mps), then the rest by vendor and index. */
function sortKey(a: Accelerator): [number, number, number] {
  const index = Number(/(\d+)$/.exec(a.id)?.[1] ?? 0);
  if (a.id.startsWith('cuda:')) return [0, index, 0];
  if (a.id === 'mps') return [1, 0, 0];
  return [2, VENDOR_RANK[a.vendor] ?? 5, index];
}

function compareAccelerators(a: Accelerator, b: Accelerator): number {
  const [left, right] = [sortKey(a), sortKey(b)];
  return left[0] - right[0] || left[1] - right[1] || left[2] - right[2] || a.id.localeCompare(b.id);
}

function host(info: HostInfo): HostInfo {
  return {
    platform: info.platform,
    arch: info.arch,
    cpu: { model: info.cpu.model, cores: info.cpu.cores, flags: [...info.cpu.flags] },
    memory: { totalBytes: integerBytes(info.memory.totalBytes), freeBytes: integerBytes(info.memory.freeBytes) },
  };
}

export function assembleReport(parts: ReportParts): DeviceReport {
  return {
    schemaVersion: 1,
    host: host(parts.host),
    accelerators: parts.accelerators.map(accelerator).sort(compareAccelerators),
    torch: parts.torch,
    selected: { device: parts.selected.device, reason: parts.selected.reason },
    problems: parts.problems.map((p) => ({ source: p.source, code: p.code, message: p.message, hint: p.hint })),
    ...(parts.topology ? { topology: parts.topology } : {}),
  };
}
