// The benchmark's progress notification as pure functions: the worker's BenchProgressParams in,
// the line shown under the title and how far the bar has come out. No vscode import.
import type { BenchProgress } from '../../core/bench/model';
import type { BenchProgressParams } from '../../protocol/worker';

/** "wasm · cpu · n = 256 · repeat 3/10 · run 1 of 2". */
export function progressMessage(params: BenchProgressParams): string {
  const p = params.progress;
  const dtype = p.dtype === 'float32' ? '' : ` · ${p.dtype}`;
  const run = params.steps > 1 ? ` · run ${params.step} of ${params.steps}` : '';
  return `${p.engine} · ${p.device}${dtype} · n = ${p.size} · ${phaseWords(p)}${run}`;
}

function phaseWords(p: BenchProgress): string {
  switch (p.phase) {
    case 'preparing': return 'preparing';
    case 'warmup': return 'warm-up';
    case 'checking': return 'checking the product';
    case 'timing': return `repeat ${Math.min(p.done + 1, p.repeats)}/${p.repeats}`;
  }
}

/** Share of one engine run done at this phase (warm-up and check are short next to the repeats). */
function phaseShare(p: BenchProgress): number {
  switch (p.phase) {
    case 'preparing': return 0;
    case 'warmup': return 0.05;
    case 'checking': return 0.95;
    case 'timing': return 0.05 + 0.9 * (p.repeats > 0 ? Math.min(p.done, p.repeats) / p.repeats : 0);
  }
}

/** Percent of the whole benchmark done, 0…100. */
export function progressPercent(params: BenchProgressParams): number {
  const steps = Math.max(1, params.steps);
  const step = Math.min(Math.max(1, params.step), steps);
  return (100 * (step - 1 + phaseShare(params.progress))) / steps;
}

/**
 * window.withProgress takes increments, not positions: this turns positions into increments
 * and never moves the bar backwards (a sweep may revise its plan).
 */
export class ProgressTracker {
  private reported = 0;

  /** The increment to report for this notification (0 when the bar would go back). */
  increment(params: BenchProgressParams): number {
    const percent = progressPercent(params);
    if (percent <= this.reported) return 0;
    const increment = percent - this.reported;
    this.reported = percent;
    return increment;
  }
}
