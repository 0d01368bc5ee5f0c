// What one interpreter's PyTorch can do on this machine, in a few words for the quick pick,
// the CLI and the tooltip: `torch 2.5.1 · CUDA 12.4 · can use cuda:0`, `no PyTorch`,
// `CPU-only build beside an NVIDIA GPU`.
import type { Accelerator, TorchStatus } from '../devices/report';
import type { DiscoveredInterpreter } from './model';

export type CapabilityKind = 'gpu' | 'cpu' | 'cpu-only-beside-gpu' | 'gpu-unusable' | 'no-torch' | 'broken' | 'untrusted';

export interface Capability {
  kind: CapabilityKind;
  label: string;
  /** Its PyTorch can use one of this machine's accelerators. */
  usesGpu: boolean;
}

const VENDOR_TEXT: Record<string, string> = { nvidia: 'NVIDIA', amd: 'AMD', apple: 'Apple', intel: 'Intel' };

/** The version as PyTorch prints it without the local tag: 2.5.1+cu124 → 2.5.1. */
function shortVersion(version: string): string {
  return version.replace(/\+.*$/, '');
}

type TorchOk = Exclude<TorchStatus, { error: string }>;

function build(torch: TorchOk): string {
  if (torch.hip) return `ROCm ${torch.hip}`;
  if (torch.cuda.built) return `CUDA ${torch.cuda.version ?? '?'}`;
  if (torch.mps.built) return 'MPS';
  return 'CPU-only';
}

/** The first device it can use, in get_device()'s order: cuda:N, then mps. */
function usableDevice(torch: TorchOk): string | null {
  if (torch.cuda.available && torch.cuda.deviceCount > 0) return 'cuda:0';
  if (torch.mps.available && torch.mps.allocates !== false) return 'mps';
  return null;
}

/** "an NVIDIA GPU" for the first accelerator (every vendor name starts with a vowel), or null without one. */
function gpuWords(accelerators: readonly Accelerator[]): { vendor: string; words: string } | null {
  const gpu = accelerators.find((a) => a.api !== 'mps') ?? accelerators[0];
  if (!gpu) return null;
  const vendor = VENDOR_TEXT[gpu.vendor];
  return vendor ? { vendor, words: `an ${vendor} GPU` } : { vendor: '', words: 'a GPU' };
}

export function torchCapability(torch: TorchStatus, accelerators: readonly Accelerator[]): Capability {
  if ('error' in torch) {
    // Only torch itself missing: a torch that fails on a missing dependency (numpy) is broken, not absent.
    const missing = /No module named ['"]?torch\b(?!\.)/.test(torch.error);
    return missing ? { kind: 'no-torch', label: 'no PyTorch', usesGpu: false } : { kind: 'broken', label: `PyTorch not usable: ${torch.error}`, usesGpu: false };
  }
  const head = `torch ${shortVersion(torch.version)} · ${build(torch)}`;
  const device = usableDevice(torch);
  if (device) return { kind: 'gpu', label: `${head} · can use ${device}`, usesGpu: true };
  const gpu = gpuWords(accelerators);
  if (gpu === null) return { kind: 'cpu', label: `${head} · no GPU here`, usesGpu: false };
  const cpuOnly = !torch.cuda.built && !torch.hip && !(gpu.vendor === 'Apple' && torch.mps.built);
  if (cpuOnly) return { kind: 'cpu-only-beside-gpu', label: `torch ${shortVersion(torch.version)} · CPU-only build beside ${gpu.words}`, usesGpu: false };
  return { kind: 'gpu-unusable', label: `${head} · cannot use ${gpu.words}`, usesGpu: false };
}

export function interpreterCapability(interpreter: DiscoveredInterpreter, accelerators: readonly Accelerator[]): Capability {
  if (interpreter.notProbed === 'untrusted') return { kind: 'untrusted', label: 'not probed: untrusted', usesGpu: false };
  if (interpreter.notProbed === 'needs-discover') return { kind: 'untrusted', label: 'not probed: pass --discover', usesGpu: false };
  if (interpreter.torch === null) return { kind: 'no-torch', label: 'not probed', usesGpu: false };
  return torchCapability(interpreter.torch, accelerators);
}
