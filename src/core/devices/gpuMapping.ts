// Which tool row (nvidia-smi, rocm-smi) is torch's cuda:N. nvidia-smi numbers GPUs in
// PCI bus order, CUDA fastest first, and CUDA_VISIBLE_DEVICES renumbers what is left,
// so indices alone mislead: match by UUID, then PCI bus id, then what the variable says.
import type { TorchDevice } from './report';

/** The identity of one tool row. */
export interface GpuIdentity {
  index: number;
  uuid: string | null;
  pciBusId: string | null;
  name?: string;
}

export interface TorchDeviceMapping {
  torchIndex: number;
  /** The tool's index of the same GPU. */
  toolIndex: number;
  matchedBy: 'uuid' | 'pci-bus-id' | 'visible-devices' | 'name' | 'order';
}

/** "GPU-5d7f…" (nvidia-smi) and "5d7f…" (torch) are the same UUID. */
export function normalizeGpuUuid(uuid: string): string {
  return uuid.trim().toLowerCase().replace(/^gpu-/, '');
}

const BUS_ID = /^(?:([0-9a-f]{1,8}):)?([0-9a-f]{1,2}):([0-9a-f]{1,2})\.([0-7])$/i;

/** "00000000:19:00.0" (nvidia-smi), "0000:19:00.0" (sysfs, torch) and "19:00.0" are one id: "0000:19:00.0". */
export function normalizePciBusId(id: string): string | null {
  const match = BUS_ID.exec(id.trim());
  if (!match) return null;
  const [, domain = '0', bus, device, fn] = match;
  const hex = (value: string, width: number): string => parseInt(value, 16).toString(16).padStart(width, '0');
  return `${hex(domain, 4)}:${hex(bus, 2)}:${hex(device, 2)}.${fn}`;
}

/** CUDA_VISIBLE_DEVICES: unset (all), or the rows CUDA can see, in CUDA's order. */
function visibleRows(rows: GpuIdentity[], value: string | null | undefined): GpuIdentity[] | null {
  if (value === null || value === undefined) return null;
  const visible: GpuIdentity[] = [];
  for (const entry of value.split(',').map((part) => part.trim())) {
    const row = /^\d+$/.test(entry)
      ? rows.find((candidate) => candidate.index === Number(entry))
      : rows.find((candidate) => entry.length > 4 && candidate.uuid !== null && normalizeGpuUuid(candidate.uuid).startsWith(normalizeGpuUuid(entry)));
    // CUDA stops at the first entry it cannot use.
    if (!row || visible.includes(row)) break;
    visible.push(row);
  }
  return visible;
}

function byUuid(device: TorchDevice, rows: GpuIdentity[]): GpuIdentity | undefined {
  if (!device.uuid) return undefined;
  const wanted = normalizeGpuUuid(device.uuid);
  return rows.find((row) => row.uuid !== null && normalizeGpuUuid(row.uuid) === wanted);
}

function byBusId(device: TorchDevice, rows: GpuIdentity[]): GpuIdentity | undefined {
  const wanted = device.pciBusId ? normalizePciBusId(device.pciBusId) : null;
  return wanted ? rows.find((row) => row.pciBusId !== null && normalizePciBusId(row.pciBusId) === wanted) : undefined;
}

/** The only row with this GPU's name (a machine with two different GPUs). */
function byUniqueName(device: TorchDevice, rows: GpuIdentity[]): GpuIdentity | undefined {
  const named = rows.filter((row) => row.name === device.name);
  return named.length === 1 ? named[0] : undefined;
}

/** Same count and the same names position by position: CUDA's order is the tool's. */
function orderIsPlausible(devices: TorchDevice[], rows: GpuIdentity[]): boolean {
  return devices.length === rows.length && devices.every((device, i) => rows[i].name === undefined || rows[i].name === device.name);
}

type MatchedBy = TorchDeviceMapping['matchedBy'];

/** The ways one torch device can be found among the rows, surest first. */
function candidates(
  device: TorchDevice,
  position: number,
  rows: GpuIdentity[],
  visible: GpuIdentity[] | null,
  order: boolean,
): Array<[GpuIdentity | undefined, MatchedBy]> {
  return [
    [byUuid(device, rows), 'uuid'],
    [byBusId(device, rows), 'pci-bus-id'],
    [visible?.[position], 'visible-devices'],
    [visible === null ? byUniqueName(device, rows) : undefined, 'name'],
    [order ? rows[position] : undefined, 'order'],
  ];
}

export function mapTorchToGpuRows(
  torchDevices: TorchDevice[],
  rows: GpuIdentity[],
  cudaVisibleDevices: string | null | undefined,
): TorchDeviceMapping[] {
  const visible = visibleRows(rows, cudaVisibleDevices);
  const order = visible === null && orderIsPlausible(torchDevices, rows);
  const used = new Set<number>();
  const mappings: TorchDeviceMapping[] = [];
  torchDevices.forEach((device, position) => {
    const hit = candidates(device, position, rows, visible, order).find(([row]) => row !== undefined && !used.has(row.index));
    if (!hit || !hit[0]) return;
    used.add(hit[0].index);
    mappings.push({ torchIndex: device.index, toolIndex: hit[0].index, matchedBy: hit[1] });
  });
  return mappings;
}

/** torch's cuda:N to nvidia-smi rows (the name the worker expects). */
export const mapTorchToNvidia = mapTorchToGpuRows;
