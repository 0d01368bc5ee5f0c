// Whether a PyTorch can use an accelerator: CUDA (or ROCm, which PyTorch reports as CUDA) with a
// device, or MPS that really allocates. One definition for the editor and the CLI.
import type { TorchStatus } from '../devices/report';

export function torchCanUse(torch: TorchStatus): boolean {
  if ('error' in torch) return false;
  const cuda = torch.cuda.available && torch.cuda.deviceCount > 0;
  const mps = torch.mps.available && torch.mps.allocates !== false;
  return cuda || mps;
}
