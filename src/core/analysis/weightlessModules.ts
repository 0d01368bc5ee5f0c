// A module class of the program that holds no weights: it derives from torch.nn.Module
// alone, and everything its methods keep on `self` is known and is no module and no
// nn.Parameter (a feature front end keeping a filter bank as a buffer and `torch.log10` as a
// function). Calling it makes no graph of its own: its output requires grad only where its
// inputs do. Taken for any module before, its output was "requires grad" and `.numpy()` on
// it a false DD010.
import type { RoundContext } from './roundContext';

export function holdsNoWeights(ctx: RoundContext, className: string | undefined): boolean {
  const cls = className ? ctx.program.classes.get(className) : undefined;
  if (!cls?.isModule || !derivesOnlyFromModule(ctx, cls.key)) return false;
  let anyKept = false;
  for (const key of ctx.program.classLineage(cls.key)) {
    const keeps = ctx.previous.classAttrsSome(key, 'mayHoldWeights');
    if (keeps) return false;
    if (keeps === false) anyKept = true;
  }
  // Nothing summarised yet (the first round, or a class that keeps nothing): not known.
  return anyKept;
}

/**
 * A weightless module that keeps no buffer: nothing of it moves with `.to()`, so it has no
 * place of its own, and its output is where its forward puts it. A module with a buffer (a
 * sinusoid's frequencies) is where it was moved. A plain tensor attribute (a blur kernel made
 * with `.to(DEVICE)`) does not follow `.to()` either: it is where it was made, and forward's
 * operations meet it there.
 */
export function keepsNoTensors(ctx: RoundContext, className: string | undefined): boolean {
  const cls = className ? ctx.program.classes.get(className) : undefined;
  if (!cls || !holdsNoWeights(ctx, className)) return false;
  return ctx.program.classLineage(cls.key).every((key) => ctx.previous.classAttrsSome(key, 'holdsTensor') !== true);
}

/** Per program (its classes and their bases do not change while it is analysed). */
const DERIVES = new WeakMap<object, Map<string, boolean>>();

function derivesOnlyFromModule(ctx: RoundContext, classKey: string): boolean {
  let byClass = DERIVES.get(ctx.program);
  if (!byClass) DERIVES.set(ctx.program, (byClass = new Map()));
  let derives = byClass.get(classKey);
  if (derives === undefined) byClass.set(classKey, (derives = ctx.program.derivesOnlyFromModule(classKey)));
  return derives;
}
