// DD020 device-from-is-cuda: `"cuda" if x.is_cuda else "cpu"` rebuilds a device from a
// yes/no question about it. A tensor on Apple's MPS (or an XPU) answers no and becomes
// "cpu"; one on cuda:1 answers yes and becomes "cuda", the current device (cuda:0): new
// tensors then land beside the wrong device. `x.device` is the answer, index and type kept.
//
// The expression holds no call, so no engine event marks it: on the first call event of a
// scope the rule reads that scope's own statements (nested definitions are their own
// scopes). Only the scope's text is read, so a replayed run's findings stay true; a scope
// with no call at all (`def dev(t): return "cuda" if t.is_cuda else "cpu"`) is not seen:
// that needs an engine event for expressions, or one when a scope starts. It fires only
// where the program can hold a tensor on a device `is_cuda` misses (isCudaPremise.ts).
import type { Node } from '../../python/pyNode';
import { callArguments, children, field, stringLiteralValue, unparen } from '../../python/syntax';
import type { ProgramView as Program, Rule, RuleHost } from '../ruleApi';
import type { Fix } from '../types';
import { shortText } from './shared/describe';
import { isCudaMisses, isCudaQuestion } from './shared/isCudaPremise';
import { code, ruleMessage } from './shared/message';

export const deviceFromIsCuda: Rule = (host) => {
  const scanned = new Set<string>();
  return {
    call: (frame) => {
      const scope = frame.fn ? frame.fn.body : frame.scopeNode;
      const key = `${frame.unit}:${scope.id}`;
      if (scanned.has(key) || host.program.units[frame.unit]?.module !== 0) return;
      scanned.add(key);
      for (const n of conditionalsIn(scope)) check(host, frame.unit, n);
    },
  };
};

const NESTED_SCOPES = new Set(['function_definition', 'class_definition', 'decorated_definition', 'lambda']);

/**
 * The conditional expressions of a scope's own statements, nested scopes excluded. An
 * explicit stack, not recursion: a generated file's 10,000-term expression is deep.
 */
function conditionalsIn(scope: Node): Node[] {
  const found: Node[] = [];
  const stack: Node[] = [...children(scope)];
  while (stack.length) {
    const n = stack.pop()!;
    if (NESTED_SCOPES.has(n.type)) continue;
    if (n.type === 'conditional_expression') found.push(n);
    stack.push(...children(n));
  }
  return found;
}

type Side = 'cuda' | 'cpu';

/** What a branch names: a "cuda"/"cuda:N" or "cpu" literal, or `torch.device(...)` of one. */
function sideOf(program: Program, unit: number, node: Node): Side | undefined {
  const n = unparen(node);
  let literal = stringLiteralValue(n);
  if (literal === undefined && n.type === 'call') {
    const callee = field(n, 'function');
    const args = callArguments(n);
    if (callee && program.importsAt(unit).qualify(callee) === 'torch.device' && args.positional.length === 1 && args.keywords.size === 0) {
      literal = stringLiteralValue(args.positional[0]);
    }
  }
  if (literal === undefined) return undefined;
  return /^cuda(:\d+)?$/.test(literal) ? 'cuda' : literal === 'cpu' ? 'cpu' : undefined;
}

function check(host: RuleHost, unit: number, expr: Node): void {
  const [whenTrue, condition, whenFalse] = children(expr);
  if (!whenTrue || !condition || !whenFalse) return;
  const question = isCudaQuestion(condition);
  if (!question) return;
  const yes = sideOf(host.program, unit, question.negated ? whenFalse : whenTrue);
  const no = sideOf(host.program, unit, question.negated ? whenTrue : whenFalse);
  if (yes !== 'cuda' || no !== 'cpu') return;
  // Exact where the program's only devices are CUDA and the CPU (isCudaPremise.ts).
  const premise = host.programFact('DD020 a device is_cuda misses', isCudaMisses);
  if (!premise) return;
  const subject = shortText(question.subject, 30);
  host.report({
    unit,
    code: 'DD020',
    node: expr,
    message: ruleMessage(() => ({
      problem: 'A device made from `is_cuda` loses MPS and the GPU index',
      action: `use ${code(`${question.subject.text}.device`, 40)}`,
      why: `It rebuilds the device of \`${subject}\` from \`is_cuda\`: on Apple's MPS (or an XPU) it gives "cpu", and ` +
        `on cuda:1 it gives "cuda", the current GPU (cuda:0), so what is made with it lands on another device than \`${subject}\` ` +
        `("Expected all tensors to be on the same device"); this program ${premise}.`,
    })),
    related: [],
    fixes: [useDevice(expr, question.subject, unit, host.program)],
  });
}

/** The conditional (or the `torch.device(...)` call that is all it feeds) → `x.device`. */
function useDevice(expr: Node, subject: Node, unit: number, program: Program): Fix {
  let target = expr;
  const args = expr.parent?.type === 'argument_list' ? expr.parent : null;
  const call = args?.parent;
  const callee = call?.type === 'call' ? field(call, 'function') : null;
  if (call && callee && program.importsAt(unit).qualify(callee) === 'torch.device' && children(args!).length === 1) target = call;
  const text = `${subject.text}.device`;
  return {
    title: `Use ${shortText(subject, 30)}.device`,
    edits: [{ range: { start: { line: target.startPosition.row, character: target.startPosition.column }, end: { line: target.endPosition.row, character: target.endPosition.column } }, newText: text, cellIndex: unit }],
    preferred: true,
  };
}
