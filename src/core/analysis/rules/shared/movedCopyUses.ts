// Whether DD004's fix, assigning the discarded move's result (`x = x.cuda()`), is safe. The
// finding holds either way: the move is thrown away. But the fix puts the value where the
// move meant it to go, and the program then runs on with it there: when the value, as the
// engine goes on interpreting, meets a module or tensor that stays elsewhere (a model built
// on the CPU and never moved, or one the analysis cannot place), the fix would trade a
// discarded move for a device mismatch, so it is withdrawn. A meeting with something already
// where the move goes is what the fix is for, and keeps it.
import type { Node } from '../../../python/pyNode';
import { callArguments, dottedKey, field } from '../../../python/syntax';
import type { RuleFrame } from '../../ruleApi';
import type { Fix } from '../../types';
import { ACCEL, CPU, hasAccel, isTensorLike, Place, UNTRACKED, Value } from '../../values';

interface Discarded {
  /** The discarded move's statement call, whose findings carry the fixes. */
  node: number;
  /** Where the fix would put the value. */
  to: Place;
}

export class MovedCopyUses {
  /** Values whose move was discarded, by identity: the engine keeps one object per binding until it is rebound. */
  private readonly discarded = new Map<Value, Discarded[]>();
  /** The fix lists reported for each discarded move (a statement interpreted again reports again). */
  private readonly fixesOf = new Map<number, Fix[][]>();
  private readonly withdrawn = new Set<number>();
  private lastMove?: { recv: Value; to: Place };

  /** Every `.to()` / `.cuda()` / `.cpu()`: a discarded one is announced right after its move. */
  moved(recv: Value, to: Place): void {
    this.lastMove = { recv, to };
  }

  /**
   * The fixes for a finding on `call`, a discarded move of `recv`: none when an earlier
   * interpretation showed them unsafe; kept, to be withdrawn should a later use show it.
   */
  fixesFor(call: Node, recv: Value, fixes: Fix[]): Fix[] {
    if (this.withdrawn.has(call.id)) return [];
    const to = this.lastMove?.recv === recv ? this.lastMove.to : UNTRACKED;
    // A dtype cast moves nothing; a shared constant (UNKNOWN) is not one value to follow.
    if (to === UNTRACKED || Object.isFrozen(recv) || fixes.length === 0) return fixes;
    this.discarded.set(recv, [...(this.discarded.get(recv) ?? []), { node: call.id, to }]);
    this.fixesOf.set(call.id, [...(this.fixesOf.get(call.id) ?? []), fixes]);
    return fixes;
  }

  /** Values that take part in one operation (operands, or a called module and its inputs). */
  operation(values: readonly Value[]): void {
    if (this.discarded.size === 0) return;
    for (const v of values) {
      const moves = this.discarded.get(v);
      if (!moves) continue;
      const partners = values.filter((p) => p !== v);
      for (const move of moves) if (conflicts(move.to, partners)) this.withdraw(move.node);
    }
  }

  /** `x.numpy()`: on the host, so a fix that moved `x` to an accelerator would make it raise. */
  convertedOnHost(recv: Value): void {
    for (const move of this.discarded.get(recv) ?? []) if (hasAccel(move.to)) this.withdraw(move.node);
  }

  /**
   * `f(x)` where the engine knows nothing of `f` (a model built by a class it cannot see),
   * so no module call is announced: `f` is a module the analysis cannot place.
   */
  unknownCall(frame: RuleFrame, call: Node): void {
    if (this.discarded.size === 0) return;
    const callee = valueOf(frame, field(call, 'function'));
    if (!callee || callee.kind !== 'unknown' || callee.place !== UNTRACKED || callee.functionId !== undefined || callee.classKey) return;
    const { positional, keywords } = callArguments(call);
    const args = [...positional, ...keywords.values()].map((n) => valueOf(frame, n)).filter((v): v is Value => v !== undefined);
    this.operation([{ ...callee, kind: 'module' }, ...args]);
  }

  /** The fixes already reported for `node` are emptied: the findings hold the same lists. */
  private withdraw(node: number): void {
    this.withdrawn.add(node);
    for (const fixes of this.fixesOf.get(node) ?? []) fixes.length = 0;
  }
}

/** What a name (or `a.b`) is bound to where it is used. */
function valueOf(frame: RuleFrame, node: Node | null): Value | undefined {
  const key = node ? dottedKey(node) : undefined;
  return key === undefined ? undefined : frame.env.get(key) ?? frame.outer?.get(key);
}

/** Whether the value, once at `to`, would meet a partner that stays elsewhere. */
function conflicts(to: Place, partners: readonly Value[]): boolean {
  const placed = partners.filter((p) => !p.scalar && !p.placeless && !p.movesInputs && (isTensorLike(p) || p.kind === 'module'));
  if (placed.some((p) => (p.place & to) !== 0)) return false;
  if (!hasAccel(to)) return placed.some((p) => p.place === ACCEL);
  return placed.some((p) => p.place === CPU || (p.kind === 'module' && p.place === UNTRACKED));
}
