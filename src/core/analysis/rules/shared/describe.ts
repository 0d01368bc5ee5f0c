// Wording shared by the rules' messages.
import { EITHER, Value } from '../../values';

export { shortText } from '../../../python/syntax';

export function accelPhrase(v: Value): string {
  return v.place === EITHER ? 'may be on an accelerator' : 'is on an accelerator';
}

/**
 * " (moved to device on line 3)": where the value got its place, for messages; with the
 * steps before it: " (computed by `model(…)` on line 9; `model` moved to device on line 3)".
 */
export function lineOf(v: Value): string {
  const steps: string[] = [];
  for (let o = v.origin; o && steps.length < 3; o = o.from) steps.push(`${o.what.replace(/ here$/, '')} on line ${o.node.startPosition.row + 1}`);
  return steps.length ? ` (${steps.join('; ')})` : '';
}

/**
 * How a model on the CPU got there, for messages: "`model` was never moved", or, where a move
 * put it there (`model.to(device)` with `device` the CPU on this path), "`model` was moved to
 * device on line 50, which is the CPU here".
 */
export function cpuModelHistory(name: string, v: Value): string {
  const o = v.origin;
  if (!o || !/^moved\b/.test(o.what)) return `\`${name}\` was never moved`;
  const moved = `\`${name}\` was ${o.what.replace(/ here$/, '')} on line ${o.node.startPosition.row + 1}`;
  return /\bCPU\b|["']cpu/.test(o.what) ? moved : `${moved}, which is the CPU here`;
}

/** "is on the GPU", or "may be on the GPU" where only some paths put it there: for first sentences (MPS is Apple's GPU). */
export function onGpu(v: Value): string {
  return v.place === EITHER ? 'may be on the GPU' : 'is on the GPU';
}

/** The error PyTorch raises when two operands are on different devices, as an explanation's end. */
export const SAME_DEVICE = 'PyTorch raises "Expected all tensors to be on the same device".';

/** What PyTorch raises when accelerator indices index a CPU tensor (`table[labels]`). */
export const INDEXED_ON_CPU = 'PyTorch raises "indices should be either on cpu or on the same device as the indexed tensor (cpu)".';
