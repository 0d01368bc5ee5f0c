// Run Matmul Benchmark's "every device" choice: the torch engine on every device PyTorch has,
// one at a time, then the accelerators all at once, so the panel can set each accelerator
// against its peers in both passes (peerSection.ts).
// Offered only with two accelerators or more; one GPU has no peers. No vscode import.
import { everyTorchDevice } from '../../core/bench/devices/everyDevice';
import type { DeviceReport } from '../../core/devices/report';

export interface EveryDevicePick {
  label: string;
  detail: string;
  compare: 'all';
  engine: 'torch';
  everyDevice: true;
}

export function everyDevicePick(report: DeviceReport | null): EveryDevicePick | null {
  const devices = everyTorchDevice(report);
  if (devices.length < 2) return null;
  return {
    label: 'Every device (torch)…',
    detail: `The torch matmul on each of ${devices.join(', ')} (and the CPU), one at a time, then the GPUs all at once; a GPU more than 10 % below the median of its peers is named, with its clock, temperature and power.`,
    compare: 'all',
    engine: 'torch',
    everyDevice: true,
  };
}
