// What a collective benchmark is asked to do, judged before any rank starts: the
// collectives, one rank per GPU (NCCL cannot put two ranks of a group on one GPU) or CPU
// processes over gloo, the size sweep, and whether the buffers fit in memory. Also the
// command line collectives.py is given, so the launcher and torchrun users pass the same flags.
import type { DeviceReport } from '../../devices/report';
import { COLLECTIVES, isCollective, type Collective } from './bandwidth';

export const MIB = 1024 * 1024;
export const DEFAULT_MIN_BYTES = MIB;
export const DEFAULT_MAX_BYTES = 1024 * MIB;
/** The largest size accepted: 16 GiB per buffer is past any GPU's sweet spot already. */
export const LARGEST_BYTES = 16 * 1024 * MIB;
export const DEFAULT_ITERS = 10;
export const DEFAULT_WARMUP = 2;
/** A group of CPU processes larger than this is a typo, not a benchmark. */
export const MAX_CPU_RANKS = 64;
/** How long the ranks may take to form the group and to finish one collective (torch's timeout). */
export const DEFAULT_GROUP_TIMEOUT_SEC = 120;
/**
 * Buffers of the largest size a rank holds at once: all-reduce and send-recv keep the
 * pattern, the input, the buffer and the expected result (collectives.py).
 */
const BUFFERS_PER_RANK = 4;

export type CollectiveDevice = 'cpu' | 'cuda';

export interface CollectiveRequest {
  collectives: Collective[];
  device: CollectiveDevice;
  worldSize: number;
  minBytes: number;
  maxBytes: number;
  iters: number;
  warmup: number;
  timeoutSec: number;
}

/** What the device report says about this machine, for the checks. */
export interface CollectiveFacts {
  /** CUDA (or ROCm) devices PyTorch sees; null when unknown. */
  cudaDevices: number | null;
  /** Host memory free now; null when unknown. */
  hostFreeBytes: number | null;
  /** Free memory of the smallest GPU; null when unknown. */
  gpuFreeBytes: number | null;
}

/** CUDA devices PyTorch sees and the least free memory among them; nulls when unknown. */
export function collectiveFactsOf(report: DeviceReport | null, hostFreeBytes: number | null): CollectiveFacts {
  const torch = report?.torch;
  if (!torch || 'error' in torch) return { cudaDevices: report ? 0 : null, hostFreeBytes, gpuFreeBytes: null };
  const count = torch.cuda.available ? torch.cuda.deviceCount : 0;
  const free = (torch.cuda.devices ?? []).map((d) => d.freeBytes).filter((b): b is number => b !== null);
  return { cudaDevices: count, hostFreeBytes, gpuFreeBytes: free.length > 0 ? Math.min(...free) : null };
}

/** `all` or a comma-separated list of collectives; null names the first unknown one. */
export function parseCollectives(text: string): { collectives: Collective[] } | { unknown: string } {
  if (text.trim() === 'all') return { collectives: [...COLLECTIVES] };
  const names = text.split(',').map((n) => n.trim()).filter((n) => n !== '');
  const unknown = names.find((n) => !isCollective(n));
  if (unknown !== undefined || names.length === 0) return { unknown: unknown ?? text };
  return { collectives: [...new Set(names)] as Collective[] };
}

const UNITS: Readonly<Record<string, number>> = { '': 1, b: 1, k: 1024, kib: 1024, m: MIB, mib: MIB, g: 1024 * MIB, gib: 1024 * MIB };

/** "4MiB", "512k", "1G", "1048576" as bytes (binary units, as nccl-tests' -b/-e); null when unreadable. */
export function parseByteSize(text: string): number | null {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  if (!match) return null;
  const unit = UNITS[match[2].toLowerCase()];
  if (unit === undefined) return null;
  const bytes = Math.round(Number(match[1]) * unit);
  return Number.isSafeInteger(bytes) ? bytes : null;
}

/** The sizes measured: min, doubling, up to max (collectives.py's sweep). */
export function sweepBytes(minBytes: number, maxBytes: number): number[] {
  const sizes: number[] = [];
  for (let size = minBytes; size <= maxBytes; size *= 2) sizes.push(size);
  return sizes;
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * MIB) return `${Number((bytes / (1024 * MIB)).toPrecision(3))} GiB`;
  return `${Number((bytes / MIB).toPrecision(3))} MiB`;
}

/** Why the request cannot run here, or null. */
export function collectiveRequestProblem(request: CollectiveRequest, facts: CollectiveFacts): string | null {
  const { worldSize, minBytes, maxBytes } = request;
  if (request.collectives.length === 0) return 'no collective was named';
  if (!Number.isSafeInteger(worldSize) || worldSize < 2) return `--world-size must be a whole number >= 2: a collective needs at least two ranks (got ${worldSize})`;
  if (!Number.isSafeInteger(minBytes) || minBytes < 4) return `the smallest size must be at least 4 bytes, one float32 (got ${minBytes})`;
  if (!Number.isSafeInteger(maxBytes) || maxBytes < minBytes) return `the largest size (${maxBytes} bytes) is below the smallest (${minBytes} bytes)`;
  if (maxBytes > LARGEST_BYTES) return `the largest size may be at most ${formatBytes(LARGEST_BYTES)} (got ${formatBytes(maxBytes)})`;
  if (!Number.isSafeInteger(request.iters) || request.iters < 1 || request.iters > 1000) return `--repeats must be a whole number from 1 to 1000 (got ${request.iters})`;
  if (request.device === 'cpu' && worldSize > MAX_CPU_RANKS) return `--world-size may be at most ${MAX_CPU_RANKS} CPU processes (got ${worldSize})`;
  const need = BUFFERS_PER_RANK * maxBytes;
  if (request.device === 'cuda') {
    if (facts.cudaDevices === 0) return 'PyTorch sees no CUDA or ROCm device here; use --device cpu for CPU processes over gloo';
    if (facts.cudaDevices !== null && worldSize > facts.cudaDevices) {
      return `--world-size ${worldSize} needs one GPU per rank, and PyTorch sees ${facts.cudaDevices}; use at most ${facts.cudaDevices}, or --device cpu`;
    }
    if (facts.gpuFreeBytes !== null && need > facts.gpuFreeBytes) {
      return `the largest size (${formatBytes(maxBytes)}) needs ${formatBytes(need)} on each GPU and one has ${formatBytes(facts.gpuFreeBytes)} free; lower --max-size`;
    }
  } else if (facts.hostFreeBytes !== null && need * worldSize > facts.hostFreeBytes) {
    return `the largest size (${formatBytes(maxBytes)}) needs ${formatBytes(need * worldSize)} of memory for ${worldSize} CPU ranks and ${formatBytes(facts.hostFreeBytes)} is free; lower --max-size`;
  }
  return null;
}

/** collectives.py's flags for the request (the same ones a torchrun user types). */
export function collectiveScriptArgs(request: CollectiveRequest): string[] {
  return [
    '--collective', request.collectives.join(','),
    '--device', request.device,
    '--min-bytes', String(request.minBytes),
    '--max-bytes', String(request.maxBytes),
    '--warmup', String(request.warmup),
    '--iters', String(request.iters),
    '--timeout', String(request.timeoutSec),
    // GPUs: rank 0 also copies between every pair of its node's GPUs (the P2P matrix).
    ...(request.device === 'cuda' ? ['--p2p'] : []),
  ];
}
