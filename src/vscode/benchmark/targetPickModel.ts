// The engine/device pick of Run Matmul Benchmark, as state without the editor. The worker answers
// twice: at once with the engines that need no PyTorch (withoutTorch), and once PyTorch's probe has
// answered (tens of seconds when `import torch` is slow, up to the probe's 120 s). The pick shows
// the first answer with torch marked as still being probed, and is updated in place by the second,
// so a user who wants wasm never waits for torch.
import type { EnginesResponse } from '../../protocol/worker';
import { targetPicks, type TargetPick } from './runBenchmarkPicks';

/** A separator row between the engines that run here and those that cannot. */
export interface PickSeparator {
  separator: string;
}

export type TargetRow = TargetPick | PickSeparator;

export const UNAVAILABLE_SEPARATOR = 'not available here';

/** The torch row while the probe runs: choosing it keeps the pick open until torch's devices arrive. */
export const PROBING_TORCH_PICK: TargetPick = {
  label: '$(loading~spin) torch',
  description: 'probing PyTorch…',
  detail: 'import torch is still running in your interpreter; its devices appear here when it answers.',
  engine: 'torch',
  device: null,
  probing: true,
};

export const PLACEHOLDERS = {
  loading: 'Looking for the engines and devices of this machine…',
  probing: 'The engine and device to benchmark (PyTorch is still being probed)',
  ready: 'The engine and device to benchmark',
} as const;

export type AcceptOutcome = { kind: 'chosen'; pick: TargetPick } | { kind: 'wait' } | { kind: 'none' };

export class TargetPickModel {
  private quick: TargetPick[] | null = null;
  private full: TargetPick[] | null = null;
  private fullFailure: string | null = null;

  /** The worker's withoutTorch answer; ignored once the full answer is in (it may come second). */
  quickAnswered(engines: EnginesResponse): void {
    if (this.full === null) this.quick = targetPicks(engines).filter((p) => p.engine !== 'torch');
  }

  fullAnswered(engines: EnginesResponse): void {
    this.full = targetPicks(engines);
  }

  /**
   * The full answer failed. With the other engines shown, the pick stays open and torch says why
   * (returns true); with nothing shown there is nothing to choose from (false: close and report).
   */
  fullFailed(message: string): boolean {
    this.fullFailure = message;
    return this.quick !== null;
  }

  get busy(): boolean {
    return this.full === null && this.fullFailure === null;
  }

  get placeholder(): string {
    if (this.full !== null || this.fullFailure !== null) return PLACEHOLDERS.ready;
    return this.quick === null ? PLACEHOLDERS.loading : PLACEHOLDERS.probing;
  }

  /** Torch (or why it is missing) first, the runnable engines, then the ones that cannot run here. */
  rows(): TargetRow[] {
    if (this.full !== null) return withSeparator(this.full);
    if (this.quick === null) return [];
    const torch = this.fullFailure === null ? PROBING_TORCH_PICK : torchFailedPick(this.fullFailure);
    return torch.probing ? [torch, ...withSeparator(this.quick)] : withSeparator([torch, ...this.quick]);
  }

  /** What an accepted row means now (rows are replaced while the pick is open: matched by label). */
  accept(label: string | undefined): AcceptOutcome {
    const pick = this.rows().find((row): row is TargetPick => !('separator' in row) && row.label === label);
    if (!pick) return { kind: 'none' };
    return pick.probing ? { kind: 'wait' } : { kind: 'chosen', pick };
  }
}

function torchFailedPick(message: string): TargetPick {
  const text = `PyTorch's engines could not be listed: ${message}`;
  return { label: '$(circle-slash) torch', description: 'not listed', detail: text, engine: 'torch', device: null, unavailable: { message: text, remedy: null } };
}

function withSeparator(picks: readonly TargetPick[]): TargetRow[] {
  const runnable = picks.filter((p) => p.device !== null);
  const unavailable = picks.filter((p) => p.device === null);
  if (unavailable.length === 0) return runnable;
  return [...runnable, { separator: UNAVAILABLE_SEPARATOR }, ...unavailable];
}
