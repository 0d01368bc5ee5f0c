// Run Matmul Benchmark's "collective bandwidth" choice, as pure decisions: whether to offer it
// (PyTorch usable: two GPUs or more → NCCL, one rank per GPU; otherwise CPU processes over
// gloo), which collective, the largest size, and the worker's CollectiveBenchParams. No vscode
// import, so it is tested without an editor.
import { COLLECTIVES, type Collective } from '../../../core/bench/collectives/bandwidth';
import { MIB } from '../../../core/bench/collectives/request';
import { sizeText } from '../../../core/bench/collectives/sizeText';
import type { DeviceReport } from '../../../core/devices/report';
import type { CollectiveBenchParams } from '../../../protocol/collectives';

/** How a collective benchmark would run here. */
export interface CollectiveOffer {
  device: 'cuda' | 'cpu';
  worldSize: number;
  /** "4 GPUs over NCCL", "2 CPU processes over gloo". */
  where: string;
}

/** CPU ranks started when there is no second GPU: the least a collective needs. */
const CPU_RANKS = 2;

/** null when the interpreter's PyTorch cannot run (not found, not importable): nothing to offer. */
export function collectiveOffer(report: DeviceReport | null): CollectiveOffer | null {
  const torch = report?.torch;
  if (!torch || 'error' in torch) return null;
  const gpus = torch.cuda.available ? torch.cuda.deviceCount : 0;
  if (gpus >= 2) return { device: 'cuda', worldSize: gpus, where: `${gpus} GPUs over NCCL` };
  return { device: 'cpu', worldSize: CPU_RANKS, where: `${CPU_RANKS} CPU processes over gloo` };
}

export interface CollectiveComparePick {
  label: string;
  detail: string;
  collective: CollectiveOffer;
}

export function collectiveComparePick(offer: CollectiveOffer): CollectiveComparePick {
  const why = offer.device === 'cpu' ? ' (no second GPU PyTorch can use: CPU ranks measure the engine, not a link)' : '';
  return {
    label: 'Collective bandwidth (torch.distributed)…',
    detail: `all-reduce, all-gather, broadcast, send-recv on ${offer.where}${why}: nccl-tests' bus bandwidth against size.`,
    collective: offer,
  };
}

export interface CollectiveKindPick {
  label: string;
  description?: string;
  collectives: Collective[];
}

export const COLLECTIVE_KIND_PICKS: readonly CollectiveKindPick[] = [
  { label: 'all-reduce', description: 'default · what data-parallel training does every step', collectives: ['all-reduce'] },
  { label: 'All four', description: COLLECTIVES.join(', '), collectives: [...COLLECTIVES] },
  ...COLLECTIVES.filter((c) => c !== 'all-reduce').map((c) => ({ label: c, collectives: [c] })),
];

export interface CollectiveSizePick {
  label: string;
  description?: string;
  maxBytes: number;
}

/** The largest size of the sweep (from 1 MiB, doubling); CPU ranks default small, GPUs to nccl-tests' 1 GiB. */
export function collectiveSizePicks(offer: CollectiveOffer): CollectiveSizePick[] {
  const sizes = offer.device === 'cpu' ? [16 * MIB, 4 * MIB, 64 * MIB, 256 * MIB] : [1024 * MIB, 256 * MIB, 64 * MIB];
  return sizes.map((maxBytes, i) => ({ label: `1 MiB … ${sizeText(maxBytes)}`, ...(i === 0 ? { description: 'default' } : {}), maxBytes }));
}

export interface CollectiveChoice {
  offer: CollectiveOffer;
  collectives: Collective[];
  maxBytes: number;
}

export function toCollectiveParams(choice: CollectiveChoice, context: { pythonPath: string | null; pinnedDevice: string | null; runId: string }): CollectiveBenchParams {
  return {
    pythonPath: context.pythonPath,
    pinnedDevice: context.pinnedDevice,
    collectives: [...choice.collectives],
    device: choice.offer.device,
    worldSize: choice.offer.worldSize,
    minBytes: MIB,
    maxBytes: choice.maxBytes,
    runId: context.runId,
  };
}

/** "all-reduce on 2 CPU processes over gloo, 1 MiB … 16 MiB": for titles and the log. */
export function describeCollectiveChoice(choice: CollectiveChoice): string {
  const what = choice.collectives.length === COLLECTIVES.length ? 'all four collectives' : choice.collectives.join(', ');
  return `${what} on ${choice.offer.where}, 1 MiB … ${sizeText(choice.maxBytes)}`;
}
