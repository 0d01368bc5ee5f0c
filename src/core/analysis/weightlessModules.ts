// A module class of the program that holds no weights: it derives from torch.nn.Module
// alone, and everything its methods keep on `self` is known and is no module and no
// nn.Parameter (a feature front end keeping a filter bank as a buffer and `torch.log10` as a
// function). Calling it makes no graph of its own: its output requires grad only where its
// inputs do. Taken for any module before, its output was "requires grad" and `.numpy()` on
// it a false DD010.
import type { RoundContext } from './roundContext';
import { containedValues, type Value } from './values';

export function holdsNoWeights(ctx: RoundContext, className: string | undefined): boolean {
  const cls = className ? ctx.program.classes.get(className) : undefined;
  if (!cls?.isModule || !ctx.program.derivesOnlyFromModule(cls.key)) return false;
  let anyKept = false;
  for (const key of ctx.program.classLineage(cls.key)) {
    const attrs = ctx.previous.classAttrsOf(key);
    if (!attrs) continue;
    for (const v of attrs.values()) {
      anyKept = true;
      if (mayBeWeights(v)) return false;
    }
  }
  // Nothing summarised yet (the first round, or a class that keeps nothing): not known.
  return anyKept;
}

function mayBeWeights(v: Value): boolean {
  if (v.kind === 'module' || v.kind === 'unknown') return true;
  if (v.parameter && v.grad !== 'no') return true;
  return containedValues(v).some(mayBeWeights);
}
