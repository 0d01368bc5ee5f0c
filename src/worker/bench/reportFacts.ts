// What the device report says that a benchmark needs: whether PyTorch imports with the
// interpreter, which devices it can use, and how much memory is free on each (the memory
// check runs against this before anything is spawned or allocated).
import * as os from 'os';
import type { DeviceReport, TorchStatus } from '../../core/devices/report';

type UsableTorch = Exclude<TorchStatus, { error: string }>;

/** The report's PyTorch section when it imported with this interpreter, else null. */
export function usableTorch(report: DeviceReport | null | undefined, python: string | null): UsableTorch | null {
  const torch = report?.torch;
  if (!torch || 'error' in torch) return null;
  return python === null || torch.interpreter === python ? torch : null;
}

/** The report's error for this interpreter's PyTorch ("No module named 'torch'"), if any. */
export function torchError(report: DeviceReport | null | undefined, python: string | null): string | null {
  const torch = report?.torch;
  if (!torch || !('error' in torch)) return null;
  return python === null || torch.interpreter === python ? torch.error : null;
}

/** Devices PyTorch can use: cpu, cuda:N for each visible CUDA/ROCm device, mps when it allocates. */
export function torchDevices(torch: UsableTorch): string[] {
  const devices = ['cpu'];
  if (torch.cuda.available) for (let i = 0; i < torch.cuda.deviceCount; i++) devices.push(`cuda:${i}`);
  if (torch.mps.available && torch.mps.allocates !== false) devices.push('mps');
  return devices;
}

/** "cuda" means cuda:0, as in PyTorch. */
export function canonicalDevice(device: string): string {
  return device === 'cuda' ? 'cuda:0' : device;
}

/**
 * Free bytes on `device` according to the report: host memory for the CPU and for MPS
 * (unified memory), torch's mem_get_info or nvidia-smi's free memory for cuda:N.
 * null when unknown (the memory check then lets the run go ahead).
 */
export function freeBytesOn(report: DeviceReport | null | undefined, device: string): number | null {
  const name = canonicalDevice(device);
  if (name === 'cpu' || name === 'mps') return report?.host.memory.freeBytes ?? os.freemem();
  const match = /^cuda:(\d+)$/.exec(name);
  if (!match || !report) return null;
  const index = Number(match[1]);
  const torch = usableTorch(report, null);
  const fromTorch = torch?.cuda.devices?.find((d) => d.index === index)?.freeBytes ?? null;
  if (fromTorch !== null) return fromTorch;
  return report.accelerators.find((a) => a.id === name)?.memory.freeBytes ?? null;
}
