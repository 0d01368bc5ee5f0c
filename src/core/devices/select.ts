// Which device PyTorch code should use: the tutorial's get_device() order, or the
// user's pin; and which nvidia-smi row each of torch's cuda:N devices is.
import type { Accelerator, SelectedDevice, TorchDevice, TorchStatus } from './report';

export function selectDevice(torch: TorchStatus | null, accelerators: Accelerator[], pinned: string | null): SelectedDevice {
  void torch;
  void accelerators;
  void pinned;
  return { device: 'cpu', reason: 'no accelerator is available to PyTorch' };
}

/** The identity of one tool row (nvidia-smi or an AMD tool). */
export interface GpuIdentity {
  index: number;
  uuid: string | null;
  pciBusId: string | null;
}

export interface TorchDeviceMapping {
  torchIndex: number;
  /** The tool's index of the same GPU. */
  toolIndex: number;
  matchedBy: 'uuid' | 'pci-bus-id' | 'visible-devices' | 'order';
}

export function mapTorchToNvidia(
  torchDevices: TorchDevice[],
  rows: GpuIdentity[],
  cudaVisibleDevices: string | null | undefined,
): TorchDeviceMapping[] {
  void torchDevices;
  void rows;
  void cudaVisibleDevices;
  return [];
}
