// A CPU tensor made by a torch factory without `device=` inside a method of an nn.Module
// (forward, a helper it calls, a Lightning step): DD015 reports it where it is created,
// and DD001 leaves it alone, so one mistake gets one finding.
import type { Node } from '../../../python/pyNode';
import { callArguments, field } from '../../../python/syntax';
import type { RuleFrame as Frame } from '../../ruleApi';
import type { ProgramView as Program } from '../../ruleApi';
import { DEVICE_FACTORIES, LIKE_FACTORIES } from '../../torchApi';
import type { Origin } from '../../values';
import { Arg, isExactlyCpu } from '../../values';
import { derivesFromModule, ModuleMethod, moduleMethodAt } from './moduleCode';

export interface ForwardFactory extends ModuleMethod {
  /** The factory call, e.g. `torch.zeros(1, x.size(0), hidden)`. */
  call: Node;
  unit: number;
}

/**
 * `cpu` meets `other` in `frame`: DD015's when `cpu` was made by such a factory and `other`
 * is the module's own (its inputs, submodules, parameters, or values computed from them,
 * in the method where they meet). A global model met in forward is DD001's: the module
 * does not decide where that is.
 */
export function forwardFactory(program: Program, frame: Frame, cpu: Arg, other: Arg): ForwardFactory | undefined {
  const v = cpu.value;
  const origin = factoryOrigin(program, v.origin);
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
  const method = frame.fn;
  const methodClass = method?.className ? program.classes.get(method.className) : undefined;
  if (!method?.selfName || !methodClass?.isModule || !derivesFromModule(method, other.node)) return undefined;
  return { ...at, call: origin.node, unit: origin.unit };
}

/**
 * `c0 = torch.zeros_like(h0)` without device= is made wherever h0 is: the factory to fix is
 * h0's, so c0 belongs to h0's finding (one mistake, one finding, one fix).
 */
function factoryOrigin(program: Program, origin: Origin | undefined): Origin | undefined {
  let at = origin;
  for (let depth = 0; at?.from && at.node.type === 'call' && depth < 8; depth++) {
    const callee = field(at.node, 'function');
    const q = callee ? program.importsAt(at.unit).qualify(callee) : undefined;
    if (!q || !LIKE_FACTORIES.has(q) || callArguments(at.node).keywords.has('device')) break;
    at = at.from;
  }
  return at;
}
