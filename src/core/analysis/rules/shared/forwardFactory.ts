// A CPU tensor made by a torch factory without `device=` inside a method of an nn.Module
// (forward, a helper it calls, a Lightning step): DD015 reports it where it is created,
// and DD001 leaves it alone, so one mistake gets one finding.
import type { Node } from '../../../python/pyNode';
import { callArguments, field } from '../../../python/syntax';
import type { Program } from '../../program';
import { DEVICE_FACTORIES } from '../../torchApi';
import { isExactlyCpu, Value } from '../../values';
import { ModuleMethod, moduleMethodAt } from './moduleCode';

export interface ForwardFactory extends ModuleMethod {
  /** The factory call, e.g. `torch.zeros(1, x.size(0), hidden)`. */
  call: Node;
  unit: number;
}

export function forwardFactory(program: Program, v: Value): ForwardFactory | undefined {
  const origin = v.origin;
  if (!origin || v.kind !== 'tensor' || !isExactlyCpu(v.place) || v.scalar || v.parameter) return undefined;
  // Only the analysed file is reported (and edited).
  if (program.units[origin.unit]?.module !== 0 || origin.node.type !== 'call') return undefined;
  const callee = field(origin.node, 'function');
  const q = callee ? program.importsAt(origin.unit).qualify(callee) : undefined;
  if (!q || !DEVICE_FACTORIES.has(q)) return undefined;
  const args = callArguments(origin.node);
  if (args.keywords.has('device') || args.hasSplat) return undefined;
  const at = moduleMethodAt(program, origin.node);
  // A tensor made in __init__ and kept on `self` is DD016's (a buffer); a local one there never meets forward's inputs.
  if (!at || at.fn.name === '__init__') return undefined;
  return { ...at, call: origin.node, unit: origin.unit };
}
