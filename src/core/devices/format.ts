// Human text for devices and memory: the status bar's "cuda:0 H200 · 20.0/140.4 GiB"
// and the doctor summary.
import type { DeviceReport } from './report';

const GIB = 1024 ** 3;

/** "20.0 GiB"; "?" when unknown. */
export function formatBytes(bytes: number | null): string {
  return bytes === null ? '?' : `${(bytes / GIB).toFixed(1)} GiB`;
}

function totalText(totalBytes: number | null): string {
  if (totalBytes === null) return '?';
  return totalBytes % GIB === 0 ? String(totalBytes / GIB) : (totalBytes / GIB).toFixed(1);
}

/** "20.0/140.4 GiB", "9.8/16 GiB" (a whole total drops its ".0"). */
export function formatMemory(usedBytes: number | null, totalBytes: number | null): string {
  const used = usedBytes === null ? '?' : (usedBytes / GIB).toFixed(1);
  return `${used}/${totalText(totalBytes)} GiB`;
}

/** "NVIDIA H200" → "H200", "NVIDIA GeForce RTX 4070" → "RTX 4070", "AMD Radeon RX 7900 XT" → "RX 7900 XT". */
export function shortGpuName(name: string): string {
  const short = name.replace(/^(NVIDIA|AMD|Apple)\s+/i, '').replace(/^(GeForce|Radeon)\s+/i, '').trim();
  return short === '' ? name : short;
}

export interface MemoryReading {
  usedBytes: number | null;
  totalBytes: number | null;
}

/** The status bar's text for the selected device; `live` replaces the report's memory with a fresh sample. */
export function selectedDeviceText(report: DeviceReport, live?: MemoryReading): string {
  const { device } = report.selected;
  const accelerator = report.accelerators.find((candidate) => candidate.id === device);
  if (device === 'cpu' || !accelerator) {
    const { totalBytes, freeBytes } = report.host.memory;
    const used = live?.usedBytes ?? (totalBytes !== null && freeBytes !== null ? totalBytes - freeBytes : null);
    return `${device === 'cpu' ? 'CPU' : device} · ${formatMemory(used, live?.totalBytes ?? totalBytes)}`;
  }
  const memory = live ?? accelerator.memory;
  const label = device === 'mps' ? 'MPS' : `${device} ${shortGpuName(accelerator.name)}`;
  return `${label} · ${formatMemory(memory.usedBytes, memory.totalBytes)}`;
}
