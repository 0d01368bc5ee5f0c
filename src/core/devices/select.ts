// Which device PyTorch code should use: the tutorial's get_device() order (CUDA, then
// MPS if a tensor can be allocated there, else CPU), or the user's pin when PyTorch can
// honour it.
import type { Accelerator, SelectedDevice, TorchStatus } from './report';

export { mapTorchToNvidia, mapTorchToGpuRows, type GpuIdentity, type TorchDeviceMapping } from './gpuMapping';

type TorchOk = Exclude<TorchStatus, { error: string }>;

function usableTorch(torch: TorchStatus | null): TorchOk | null {
  return torch && !('error' in torch) ? torch : null;
}

function cudaUsable(torch: TorchOk | null): boolean {
  return torch !== null && torch.cuda.available && torch.cuda.deviceCount > 0;
}

function mpsUsable(torch: TorchOk | null): boolean {
  return torch !== null && torch.mps.available && torch.mps.allocates !== false;
}

function cpuReason(torch: TorchStatus | null, accelerators: Accelerator[]): string {
  if (torch === null) return 'no Python interpreter was asked about PyTorch';
  if ('error' in torch) return `PyTorch is not usable in ${torch.interpreter}`;
  if (torch.mps.available) return 'MPS is available but a tensor cannot be allocated there';
  if (accelerators.length > 0) return "GPU present, PyTorch can't use it";
  return 'no accelerator is available to PyTorch';
}

/** get_device(): CUDA (ROCm builds report as cuda), then MPS, else CPU. */
function defaultDevice(torch: TorchStatus | null, accelerators: Accelerator[]): SelectedDevice {
  const ok = usableTorch(torch);
  if (ok && cudaUsable(ok)) {
    const reason = ok.hip ? 'ROCm is available to PyTorch (AMD GPUs appear as cuda devices)' : 'CUDA is available to PyTorch';
    return { device: 'cuda:0', reason };
  }
  if (mpsUsable(ok)) return { device: 'mps', reason: 'MPS is available and a tensor can be allocated there' };
  return { device: 'cpu', reason: cpuReason(torch, accelerators) };
}

/** "cuda" means cuda:0, as in torch.device("cuda"); case and spaces do not matter. */
function normalizePin(pinned: string | null): string | null {
  const pin = pinned?.trim().toLowerCase() ?? '';
  if (pin === '' || pin === 'auto') return null;
  return pin === 'cuda' ? 'cuda:0' : pin;
}

/** Why PyTorch cannot use the pinned device, or null when it can. */
function pinProblem(pin: string, torch: TorchOk | null): string | null {
  if (pin === 'cpu') return null;
  if (pin === 'mps') {
    if (mpsUsable(torch)) return null;
    return torch?.mps.available ? 'a tensor cannot be allocated on MPS' : 'MPS is not available to PyTorch';
  }
  const cuda = /^cuda:(\d+)$/.exec(pin);
  if (!cuda) return 'PyTorch has no such device';
  if (!cudaUsable(torch)) return 'CUDA is not available to PyTorch';
  const count = torch?.cuda.deviceCount ?? 0;
  return Number(cuda[1]) < count ? null : `PyTorch sees ${count} CUDA device${count === 1 ? '' : 's'}`;
}

export function selectDevice(torch: TorchStatus | null, accelerators: Accelerator[], pinned: string | null): SelectedDevice {
  const fallback = defaultDevice(torch, accelerators);
  const pin = normalizePin(pinned);
  if (pin === null) return fallback;
  const problem = pinProblem(pin, usableTorch(torch));
  if (problem === null) return { device: pin, reason: 'pinned by deviceDoctor.device' };
  return { device: fallback.device, reason: `deviceDoctor.device is "${pinned?.trim()}" but ${problem}; ${fallback.reason}` };
}
