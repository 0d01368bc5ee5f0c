// A loss given class weights on the CPU — `nn.CrossEntropyLoss(weight=w)`,
// `BCEWithLogitsLoss(pos_weight=p)`, `F.cross_entropy(..., weight=w)` — and then called
// with accelerator tensors. DD017 reports it at the weight; DD001 leaves it alone.
import type { Node } from '../../../python/pyNode';
import { callArguments, field } from '../../../python/syntax';
import type { ProgramView as Program } from '../../ruleApi';
import { Arg, isExactlyCpu, Value } from '../../values';

export interface LossWeight {
  /** The weight expression, e.g. `class_weights` in `weight=class_weights`. */
  weight: Node;
  keyword: string;
  /** The loss constructor or the functional loss call. */
  call: Node;
  unit: number;
  /** The frame id the constructor ran in (-1: module level); the functional call's own frame. */
  scope: number;
}

const WEIGHT_KEYWORDS = ['weight', 'pos_weight'];
const LOSS_CLASS = /^torch\.nn\.(modules\.\w+\.)?\w*Loss$/;
const LOSS_FUNCTION = /^torch\.nn\.functional\.\w*(loss|entropy|entropy_with_logits)$/;

/** A loss module whose place is the CPU because of the weight it was built with. */
export function heldLossWeight(program: Program, v: Value): LossWeight | undefined {
  const built = v.factory;
  if (v.kind !== 'module' || !isExactlyCpu(v.place) || !built || built.node.type !== 'call') return undefined;
  if (program.units[built.unit]?.module !== 0) return undefined;
  const callee = field(built.node, 'function');
  const q = callee ? program.importsAt(built.unit).qualify(callee) : undefined;
  if (!q || !LOSS_CLASS.test(q)) return undefined;
  const args = callArguments(built.node);
  // The keyword the analysis took the loss's place from (calls.ts reads them in this order).
  const keyword = WEIGHT_KEYWORDS.find((k) => args.keywords.has(k));
  return keyword ? { weight: args.keywords.get(keyword)!, keyword, call: built.node, unit: built.unit, scope: built.scope } : undefined;
}

/** `F.cross_entropy(logits, y, weight=w)`: `cpu` is the weight argument of a functional loss. */
export function functionalLossWeight(program: Program, unit: number, scope: number, cpu: Arg): LossWeight | undefined {
  const keywordArg = cpu.node.parent;
  const name = keywordArg?.type === 'keyword_argument' ? field(keywordArg, 'name')?.text : undefined;
  if (!name || !WEIGHT_KEYWORDS.includes(name) || field(keywordArg!, 'value')?.id !== cpu.node.id) return undefined;
  const call = keywordArg!.parent?.parent;
  const callee = call?.type === 'call' ? field(call, 'function') : null;
  const q = callee ? program.importsAt(unit).qualify(callee) : undefined;
  if (!q || !LOSS_FUNCTION.test(q)) return undefined;
  return { weight: cpu.node, keyword: name, call: call!, unit, scope };
}
