// A plain tensor kept on a module as `self.x = torch.…` in `__init__` (not a Parameter,
// not a registered buffer): `model.to(device)` leaves it on the CPU. When it then meets
// the module's inputs or parameters DD016 reports it at the assignment; DD001 leaves it.
import type { Node } from '../../../python/pyNode';
import { children, field, isNumberLiteral, unparen } from '../../../python/syntax';
import type { RuleFrame as Frame } from '../../ruleApi';
import type { ClassInfo, FunctionInfo, ProgramView as Program } from '../../ruleApi';
import { CPU_ONLY_FACTORIES, DEVICE_FACTORIES, LIKE_FACTORIES, NON_TENSOR_METHODS } from '../../torchApi';
import { Arg, isExactlyCpu } from '../../values';
import { bodyNodes, classLevelBinding, derivesFromModule, initializedBefore, isSelfAttribute, lastAssignmentBefore, selfAttributeWrites } from './moduleCode';

export interface TensorAttribute {
  attr: string;
  /** `self.x = <value>` in `__init__`. */
  assignment: Node;
  left: Node;
  right: Node;
  init: FunctionInfo;
  cls: ClassInfo;
  /** register_buffer would be valid there: after `super().__init__()`, a whole statement, no class-level `x`. */
  fixable: boolean;
}

/** Views and casts of the attribute at its use (`self.pe[:, :T]`, `self.mask.bool()`) are still the attribute. */
const SAME_TENSOR_METHODS = new Set([
  'view', 'reshape', 'unsqueeze', 'squeeze', 'expand', 'expand_as', 'float', 'double', 'half', 'bfloat16', 'long', 'int',
  'bool', 'contiguous', 'permute', 'transpose', 't', 'narrow', 'repeat', 'clone', 'detach',
]);

/** torch functions (besides the factories) that return one tensor. */
const TENSOR_FUNCTIONS = /^torch\.(triu|tril|cat|stack|exp|log|sin|cos|sqrt|pow|outer|einsum|matmul|where|cumsum|cumprod|flip|diag|polar|sigmoid|softmax|linspace|logspace|from_numpy|(?:[A-Z]\w*)?Tensor)$/;

/** `cpu` meets `other` in `frame`; `other` must be the module's own (see derivesFromModule): a buffer then moves with it. */
export function plainTensorAttribute(program: Program, frame: Frame, cpu: Arg, other: Arg): TensorAttribute | undefined {
  const v = cpu.value;
  if (v.kind !== 'tensor' || !isExactlyCpu(v.place) || v.scalar || v.parameter) return undefined;
  const fn = frame.fn;
  const cls = fn?.className ? program.classes.get(fn.className) : undefined;
  if (!fn?.selfName || !cls?.isModule || !derivesFromModule(fn, other.node)) return undefined;
  const attrNode = attributeAtUse(cpu.node, fn.selfName);
  const attr = (attrNode && field(attrNode, 'attribute')?.text) ?? attributeCreating(v.origin?.node, cls);
  if (!attr) return undefined;
  // The attribute is set once, in __init__, and nowhere else in the class or its bases.
  const writes = program.classLineage(cls.key).flatMap((key) => [...(program.classes.get(key)?.methods.values() ?? [])]
    .flatMap((m) => selfAttributeWrites(m, attr).map((node) => ({ m, node }))));
  if (writes.length !== 1) return undefined;
  const { m: init, node } = writes[0];
  const owner = init.className ? program.classes.get(init.className) : undefined;
  if (init.name !== '__init__' || node.type !== 'assignment' || !owner || program.units[init.unit]?.module !== 0) return undefined;
  const left = field(node, 'left');
  const right = field(node, 'right');
  if (!left || !right || field(node, 'type') || right.type === 'assignment' || !isSelfAttribute(left, init.selfName!, attr)) return undefined;
  if (!isTensorExpression(program, init, right, node, 0)) return undefined;
  const wholeStatement = node.parent?.type === 'expression_statement' && node.parent.codeChildren.length === 1;
  const fixable = wholeStatement && initializedBefore(init, node) && !classLevelBinding(owner, attr);
  return { attr, assignment: node, left, right, init, cls: owner, fixable };
}

/**
 * `noise = self.noise.normal_(0, 0.1)`: a local that is the attribute's tensor, by where that
 * tensor was made: the right side of `self.x = torch.Tensor(n)` in the class's __init__.
 */
function attributeCreating(made: Node | undefined, cls: ClassInfo): string | undefined {
  const assignment = made?.parent;
  if (!made || assignment?.type !== 'assignment' || field(assignment, 'right')?.id !== made.id) return undefined;
  const left = field(assignment, 'left');
  const init = cls.methods.get('__init__');
  if (!init?.selfName || !left || !isSelfAttribute(left, init.selfName) || !(init.node.startIndex <= made.startIndex && made.endIndex <= init.node.endIndex)) return undefined;
  return field(left, 'attribute')?.text;
}

/** `self.pe[:, :T].float()` → the `self.pe` node. */
function attributeAtUse(node: Node, selfName: string): Node | undefined {
  let n = unparen(node);
  for (;;) {
    if (n.type === 'subscript' && field(n, 'value')) {
      n = unparen(field(n, 'value')!);
      continue;
    }
    // `~self.mask`, `self.mask == 0`: an elementwise test of the attribute against a number.
    const operand = n.type === 'unary_operator' ? field(n, 'argument') : n.type === 'comparison_operator' ? numberComparedOperand(n) : null;
    if (operand) {
      n = unparen(operand);
      continue;
    }
    const callee = n.type === 'call' ? field(n, 'function') : null;
    const obj = callee?.type === 'attribute' ? field(callee, 'object') : null;
    if (callee && obj && SAME_TENSOR_METHODS.has(field(callee, 'attribute')?.text ?? '')) {
      n = unparen(obj);
      continue;
    }
    break;
  }
  return isSelfAttribute(n, selfName) ? n : undefined;
}

/** `t == 0` / `0 < t`: the tensor side of a comparison with a number literal. */
function numberComparedOperand(n: Node): Node | null {
  const sides = children(n);
  if (sides.length !== 2) return null;
  if (isNumberLiteral(sides[1])) return sides[0];
  return isNumberLiteral(sides[0]) ? sides[1] : null;
}

/**
 * Whether `expr` (in `fn`, before `before`) is a tensor by its text: a torch factory or
 * tensor function, a tensor method on one, arithmetic with one, or a local name last
 * assigned one (`pe = torch.zeros(...)`; `pe = pe.unsqueeze(0)`). A list of tensors is
 * not: register_buffer takes a tensor.
 */
function isTensorExpression(program: Program, fn: FunctionInfo, expr: Node, before: Node, depth: number): boolean {
  if (depth > 6) return false;
  const n = unparen(expr);
  switch (n.type) {
    case 'call': {
      const callee = field(n, 'function');
      if (!callee) return false;
      const q = program.importsAt(fn.unit).qualify(callee);
      if (q?.startsWith('torch.')) return DEVICE_FACTORIES.has(q) || CPU_ONLY_FACTORIES.has(q) || LIKE_FACTORIES.has(q) || TENSOR_FUNCTIONS.test(q);
      // `self.mask = subsequent_mask(n)`: a function of this file whose every return is a tensor.
      const helper = callee.type === 'identifier' ? program.topFunctions.get(callee.text) : undefined;
      if (helper && program.units[helper.unit]?.module === program.units[fn.unit]?.module) return returnsTensor(program, helper, depth + 1);
      const obj = callee.type === 'attribute' ? field(callee, 'object') : null;
      const method = field(callee, 'attribute')?.text ?? '';
      return !!obj && !NON_TENSOR_METHODS.has(method) && method !== 'numpy' && isTensorExpression(program, fn, obj, before, depth + 1);
    }
    case 'identifier': {
      const assignment = lastAssignmentBefore(fn, n.text, before);
      const right = assignment && field(assignment, 'right');
      return !!right && isTensorExpression(program, fn, right, assignment, depth + 1);
    }
    case 'binary_operator': {
      const l = field(n, 'left');
      const r = field(n, 'right');
      return (!!l && isTensorExpression(program, fn, l, before, depth + 1)) || (!!r && isTensorExpression(program, fn, r, before, depth + 1));
    }
    case 'subscript': {
      const value = field(n, 'value');
      return !!value && isTensorExpression(program, fn, value, before, depth + 1);
    }
    default:
      return false;
  }
}

/** Every `return` of `fn` (at least one) gives a tensor by its text. */
function returnsTensor(program: Program, fn: FunctionInfo, depth: number): boolean {
  const returns = [...bodyNodes(fn.body)].filter((n) => n.type === 'return_statement');
  return returns.length > 0 && returns.every((r) => {
    const value = children(r)[0];
    return !!value && isTensorExpression(program, fn, value, r, depth + 1);
  });
}
