// Tool rows become the report's accelerators. A GPU PyTorch can see gets PyTorch's id
// ("cuda:1"); one it cannot see keeps the tool's ("nvidia:0"), so the ids never lie.
import type { AmdGpuRow } from './amd';
import type { AppleGpuRow } from './apple';
import { mapTorchToGpuRows } from './gpuMapping';
import type { NvidiaListedGpu, NvidiaGpuRow } from './nvidiaSmi';
import type { Accelerator, HostInfo, MemoryInfo, TorchDevice, TorchStatus } from './report';

type TorchOk = Exclude<TorchStatus, { error: string }>;

export interface NvidiaInventory {
  rows: NvidiaGpuRow[];
  cudaVersion: string | null;
  listed: NvidiaListedGpu[];
}

function torchDevicesFor(torch: TorchStatus | null, rocm: boolean): { devices: TorchDevice[]; visible: string | null } {
  if (!torch || 'error' in torch || !torch.cuda.available || Boolean(torch.hip) !== rocm) return { devices: [], visible: null };
  return { devices: torch.cuda.devices ?? [], visible: torch.cudaVisibleDevices ?? null };
}

/** tool index → "cuda:N" for the rows PyTorch can see. */
function torchIds(torch: TorchStatus | null, rocm: boolean, rows: Array<NvidiaGpuRow | AmdGpuRow>): Map<number, string> {
  const { devices, visible } = torchDevicesFor(torch, rocm);
  // rocm-smi and PyTorch name the same AMD GPU differently ("AMD INSTINCT MI250 (MCM) OAM AC MBA"
  // vs "AMD Instinct MI250X/MI250") but both count in PCI order, so names must not veto the order.
  const identities = rows.map(({ index, uuid, pciBusId, name }) => (rocm ? { index, uuid, pciBusId } : { index, uuid, pciBusId, name }));
  const mappings = mapTorchToGpuRows(devices, identities, visible);
  return new Map(mappings.map((mapping) => [mapping.toolIndex, `cuda:${mapping.torchIndex}`]));
}

export function nvidiaAccelerators(inventory: NvidiaInventory, torch: TorchStatus | null): Accelerator[] {
  const ids = torchIds(torch, false, inventory.rows);
  return inventory.rows.map((row) => ({
    id: ids.get(row.index) ?? `nvidia:${row.index}`,
    vendor: 'nvidia',
    api: 'cuda',
    name: row.name,
    uuid: row.uuid,
    pciBusId: row.pciBusId,
    memory: row.memory,
    utilizationPercent: row.utilizationPercent,
    temperatureC: row.temperatureC,
    powerW: row.powerW,
    driverVersion: row.driverVersion,
    cudaVersion: inventory.cudaVersion,
    mig: inventory.listed.find((gpu) => gpu.uuid === row.uuid)?.mig ?? [],
  }));
}

export function amdAccelerators(rows: AmdGpuRow[], torch: TorchStatus | null): Accelerator[] {
  const ids = torchIds(torch, true, rows);
  return rows.map((row) => ({
    id: ids.get(row.index) ?? `amd:${row.index}`,
    vendor: 'amd',
    api: 'rocm',
    name: row.name,
    uuid: row.uuid,
    pciBusId: row.pciBusId,
    memory: row.memory,
    utilizationPercent: row.utilizationPercent,
    temperatureC: row.temperatureC,
    powerW: row.powerW,
    driverVersion: row.driverVersion,
    cudaVersion: null,
    mig: [],
  }));
}

/** Unified memory is the system's: used is what the host does not have free. */
function appleMemory(row: AppleGpuRow, host: HostInfo): MemoryInfo {
  if (!row.unifiedMemory) return { totalBytes: row.vramBytes, usedBytes: null, freeBytes: null };
  const { totalBytes, freeBytes } = host.memory;
  const usedBytes = totalBytes !== null && freeBytes !== null ? totalBytes - freeBytes : null;
  return { totalBytes, usedBytes, freeBytes };
}

export function appleAccelerators(rows: AppleGpuRow[], host: HostInfo): Accelerator[] {
  return rows.map((row) => ({
    id: row.vendor === 'apple' ? 'mps' : `${row.vendor}:${row.index}`,
    vendor: row.vendor,
    api: 'mps',
    name: row.name,
    uuid: null,
    pciBusId: null,
    memory: appleMemory(row, host),
    utilizationPercent: null,
    temperatureC: null,
    powerW: null,
    driverVersion: null,
    cudaVersion: null,
    mig: [],
  }));
}

/** When no tool answered but PyTorch sees GPUs (nvidia-smi missing from PATH, a container): PyTorch's own view. */
export function torchOnlyAccelerators(torch: TorchOk): Accelerator[] {
  const rocm = Boolean(torch.hip);
  return (torch.cuda.devices ?? []).map((device) => {
    const { totalMemoryBytes: totalBytes, freeBytes } = device;
    return {
      id: `cuda:${device.index}`,
      vendor: rocm ? 'amd' : 'nvidia',
      api: rocm ? 'rocm' : 'cuda',
      name: device.name,
      uuid: rocm || device.uuid === null || /^(GPU|MIG)-/i.test(device.uuid) ? device.uuid : `GPU-${device.uuid}`,
      pciBusId: device.pciBusId,
      memory: { totalBytes, usedBytes: totalBytes !== null && freeBytes !== null ? totalBytes - freeBytes : null, freeBytes },
      utilizationPercent: null,
      temperatureC: null,
      powerW: null,
      driverVersion: null,
      cudaVersion: null,
      mig: [],
    };
  });
}
