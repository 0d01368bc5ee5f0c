// Which of a model call's later positional inputs meet the model's weights. A loader's batch
// may legally keep some on the CPU (pack_padded_sequence's lengths must be), so a later
// batch element counts only where the forward of the model's class hands it to a layer:
// first to one of its own layers (`self.embed(captions)`), or in any position to one of the
// program's modules whose own forward does the same (`self.enc_embedding(x_enc, x_mark_enc)`
// whose forward calls `self.temporal_embedding(x_mark)`), a few modules deep.
import { movedParamsOf } from './bodyFacts';
import type { FunctionInfo } from './program';
import type { RoundContext } from './roundContext';
import { programClassesOf, type Value } from './values';

/** How deep a later input is followed through the program's own modules. */
const MAX_DEPTH = 3;
/** A length-like parameter may go to a helper of the module's own that wants it on the CPU. */
const LENGTH_LIKE = /len|size|count/i;

interface LayerCall {
  /** The attribute of `self` called. */
  attr: string;
  /** The position of the argument among the call's positional ones. */
  position: number;
  /** The forward parameter passed there. */
  param: string;
}

/** forward's `self.<attr>(..., p, ...)` calls, from its body fact (a taped read: an edit of forward replays nothing stale). */
function layerCallsOf(ctx: RoundContext, forward: FunctionInfo): LayerCall[] {
  return [...movedParamsOf(ctx.bodyFact(forward, 'layerInputs'))].map((entry) => {
    const [attr, position, param] = entry.split(':');
    return { attr: attr!, position: Number(position), param: param! };
  });
}

/** Does forward of `className` hand its input at `index` (after `self`) to a layer? */
function feedsLayer(ctx: RoundContext, className: string, index: number, depth: number): boolean {
  const forward = ctx.program.methodOf(className, 'forward');
  const param = forward?.selfName ? forward.params.slice(1)[index] : undefined;
  if (!forward || !param || param.variadic) return false;
  return layerCallsOf(ctx, forward).some((call) => {
    if (call.param !== param.name) return false;
    if (call.position === 0) return true;
    const layer = ctx.previous.lineageAttr(ctx.program.classLineage(className), call.attr);
    if (!layer || layer.kind !== 'module' || layer.placeless) return false;
    // A torch layer's later arguments are its own API's (a loss's target, an RNN's state):
    // followed only into the program's own modules.
    const own = layer.className ? ctx.program.classes.get(layer.className) : undefined;
    return !!own?.isModule && depth < MAX_DEPTH && feedsLayer(ctx, own.key, call.position, depth + 1);
  });
}

/** The positions of a module call's positional arguments after the first that its forward hands to a layer. */
export function laterInputsForLayers(ctx: RoundContext, callee: Value): Set<number> {
  const positions = new Set<number>();
  for (const className of callee.kind === 'module' ? programClassesOf(callee) : []) {
    const forward = ctx.program.methodOf(className, 'forward');
    if (!forward?.selfName) continue;
    for (const [i, p] of forward.params.slice(1).entries()) {
      if (p.variadic) break;
      if (i > 0 && !LENGTH_LIKE.test(p.name) && feedsLayer(ctx, className, i, 1)) positions.add(i);
    }
  }
  return positions;
}
