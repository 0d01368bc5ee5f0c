// The collective benchmark between the extension and the compute worker: torch.distributed
// ranks started by the worker (src/worker/bench/collectives), rank 0's report checked by the
// core. One request per run; cancelling it kills every rank.
import { NotificationType, RequestType } from 'vscode-jsonrpc';
import type { Collective } from '../core/bench/collectives/bandwidth';
import type { CollectiveReport } from '../core/bench/collectives/report';

export interface CollectiveBenchParams {
  /** The interpreter whose torch runs the ranks; null: none may be run. */
  pythonPath: string | null;
  pinnedDevice: string | null;
  collectives: Collective[];
  /** cuda: one rank per GPU over NCCL; cpu: CPU processes over gloo. Default: cuda when PyTorch sees two GPUs or more. */
  device?: 'cpu' | 'cuda';
  /** Default: every GPU PyTorch sees (cuda), 2 (cpu). */
  worldSize?: number;
  minBytes?: number;
  maxBytes?: number;
  iters?: number;
  /** Echoed in every CollectiveProgressNotification. */
  runId?: string;
}

export interface CollectiveBenchResponse {
  /** null when the run was cancelled before rank 0 reported. */
  report: CollectiveReport | null;
  cancelled: boolean;
}

export const CollectiveBenchRequest = new RequestType<CollectiveBenchParams, CollectiveBenchResponse, void>('deviceDoctor/benchCollective');

export interface CollectiveProgressParams {
  runId: string | null;
  /** 1-based: the measurement just finished, out of `steps`. */
  step: number;
  steps: number;
  /** A collective, or "p2p" for the P2P matrix. */
  collective: string;
  bytes: number;
}

export const CollectiveProgressNotification = new NotificationType<CollectiveProgressParams>('deviceDoctor/collectiveProgress');
