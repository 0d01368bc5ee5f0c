// DD024 device-choices-disagree: one place chooses `"cuda" if torch.cuda.is_available()
// else "cpu"` while another place in the same file also considers Apple's MPS. On a Mac the
// first gives "cpu" and the second "mps", so what each one places (the batch, the model)
// ends up on different devices: "Placeholder storage has not been allocated on MPS
// device", or "Expected all tensors to be on the same device". The fix lets the CUDA-only
// choice consider MPS too, in the portable spelling (`torch.backends.mps.is_available()`).
import type { Node } from '../../python/pyNode';
import { perStatement } from '../../python/statementMemo';
import { callArguments, children, field, stringLiteralValue, unparen } from '../../python/syntax';
import type { ProgramView as Program, Rule, RuleFrame as Frame, RuleHost } from '../ruleApi';
import type { Fix } from '../types';
import { shortText } from './shared/describe';
import { bodyNodes } from './shared/moduleCode';
import { ruleMessage } from './shared/message';

export const deviceChoicesDisagree: Rule = (host) => ({
  call: (frame, call, qualified) => {
    if (qualified !== 'torch.cuda.is_available' || host.program.units[frame.unit]?.module !== 0) return;
    const choice = cudaOnlyChoice(host.program, frame.unit, call);
    if (!choice || host.programFact('DD024 device choices overwritten unused', overwrittenChoices).has(choice.id)) return;
    // The file's device facts (deviceChoice.ts), read once per analysis and noticed as such by replays.
    const { asksMps, asksMpsUnit } = host.deviceChoice();
    if (asksMps) report(host, frame, choice, { unit: asksMpsUnit ?? frame.unit, node: asksMps });
  },
});

type Literal = 'cuda' | 'cpu' | 'mps' | undefined;

/** `"cuda"`, `"cuda:0"`, `torch.device("cuda")`, `"cpu"`: what a branch names. */
function literalDevice(program: Program, unit: number, node: Node): Literal {
  const n = unparen(node);
  let s = stringLiteralValue(n);
  if (s === undefined && n.type === 'call') {
    const callee = field(n, 'function');
    const args = callArguments(n);
    if (callee && program.importsAt(unit).qualify(callee) === 'torch.device' && args.positional.length === 1) s = stringLiteralValue(args.positional[0]);
  }
  if (s === undefined) return undefined;
  return /^cuda(:\d+)?$/.test(s) ? 'cuda' : s === 'cpu' ? 'cpu' : s === 'mps' ? 'mps' : undefined;
}

/** `"cuda" if torch.cuda.is_available() else "cpu"` around the check, with no MPS branch: the conditional. */
function cudaOnlyChoice(program: Program, unit: number, check: Node): Node | undefined {
  const expr = check.parent;
  if (expr?.type !== 'conditional_expression') return undefined;
  const [whenTrue, condition, whenFalse] = children(expr);
  if (condition?.id !== check.id || !whenTrue || !whenFalse) return undefined;
  if (literalDevice(program, unit, whenTrue) !== 'cuda' || literalDevice(program, unit, whenFalse) !== 'cpu') return undefined;
  // `"mps" if ... else ("cuda" if ... else "cpu")`: the outer choice already considers MPS.
  for (let n = expr.parent; n && n.type !== 'expression_statement' && n.type !== 'block'; n = n.parent) {
    if (n.type === 'conditional_expression') return undefined;
  }
  return expr;
}

/**
 * Module-level `device = <choice>` statements whose name is assigned again before anything
 * reads it (a notebook's first cell picks CUDA-or-CPU, a later one picks again with MPS):
 * the first choice places nothing, so it cannot disagree with anything. By the node id of
 * the choice's right side.
 */
function overwrittenChoices(program: Program): Set<number> {
  const files = program.units.filter((u) => u.module === 0);
  const statements = files.flatMap((u) => [...children(u.root)]);
  // Kept per statement between keystrokes; a scan per choice was quadratic in the file.
  const facts = files.flatMap((u) => perStatement(u.root, 'DD024 statement facts', statementFacts).reverse());
  const dead = new Set<number>();
  facts.forEach(({ assigned, choices }, i) => {
    if (!assigned || choices.length === 0) return;
    for (let j = i + 1; j < statements.length; j++) {
      const later = statements[j]!;
      // A notebook cell showing the value (`device` alone on its line) places nothing.
      if (!facts[j]!.variables.has(assigned.name) || displaysOnly(later, assigned.name)) continue;
      const again = facts[j]!.assigned;
      if (again && again.name === assigned.name && !mentions(again.right, assigned.name)) for (const c of choices) dead.add(c.id);
      return;
    }
  });
  return dead;
}

interface StatementFacts {
  variables: Set<string>;
  assigned?: { name: string; right: Node };
  /** `device = "cuda" if … else "cpu"`, or `torch.device(<that>)`; not one inside a lambda, which this statement does not run. */
  choices: Node[];
}

function statementFacts(statement: Node): StatementFacts {
  const assigned = assignmentOf(statement);
  const choices = assigned ? [assigned.right, ...bodyNodes(assigned.right)].filter((n) => n.type === 'conditional_expression') : [];
  return { variables: variablesIn(statement), assigned, choices };
}

/** `name = right` as a whole statement. */
function assignmentOf(statement: Node): { name: string; right: Node } | undefined {
  const expr = statement.type === 'expression_statement' ? children(statement)[0] : undefined;
  if (expr?.type !== 'assignment') return undefined;
  const left = field(expr, 'left');
  const right = field(expr, 'right');
  return left?.type === 'identifier' && right ? { name: left.text, right: unparen(right) } : undefined;
}

function displaysOnly(statement: Node, name: string): boolean {
  const expr = statement.type === 'expression_statement' ? children(statement) : [];
  return expr.length === 1 && unparen(expr[0]!).type === 'identifier' && expr[0]!.text === name;
}

function mentions(node: Node, name: string): boolean {
  return node.text.includes(name) && variablesIn(node).has(name);
}

/** The variables `node` names: not `torch.device`'s attribute nor `f(device=...)`'s keyword. */
function variablesIn(node: Node): Set<string> {
  const found = new Set<string>();
  const stack: Node[] = [node];
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (n.type === 'identifier') found.add(n.text);
    const skipped = n.type === 'attribute' ? field(n, 'attribute') : n.type === 'keyword_argument' ? field(n, 'name') : null;
    for (const c of children(n)) if (c.id !== skipped?.id) stack.push(c);
  }
  return found;
}

function report(host: RuleHost, frame: Frame, choice: Node, mps: { unit: number; node: Node }): void {
  const other = mps.node;
  host.report({
    unit: frame.unit,
    code: 'DD024',
    node: choice,
    message: ruleMessage(() => ({
      problem: `This device choice ignores MPS, unlike the one on line ${other.startPosition.row + 1}`,
      action: 'choose the device once',
      why: `\`${shortText(choice, 50)}\` never considers Apple's MPS, but \`${shortText(other, 40)}\` does: on a Mac ` +
        'this choice gives "cpu" and the other "mps", so what each places ends up on a different device ("Placeholder storage has not been ' +
        'allocated on MPS device", or "Expected all tensors to be on the same device"). Choose it once and pass it along, or consider MPS here too.',
    })),
    related: host.related(mps, 'this device choice considers MPS'),
    fixes: considerMps(host.program, frame.unit, choice),
  });
}

/** `… else "cpu"` → `… else "mps" if torch.backends.mps.is_available() else "cpu"` (the same spelling as the CPU branch). */
function considerMps(program: Program, unit: number, choice: Node): Fix[] {
  const imports = program.importsAt(unit);
  const torch = [...imports.names()].find((name) => imports.qualifyName(name) === 'torch');
  const cpu = children(choice)[2];
  if (!torch || !cpu) return [];
  const mps = unparen(cpu).type === 'call' ? `${torch}.device("mps")` : '"mps"';
  return [{
    title: 'Consider MPS here too',
    edits: [{ range: { start: { line: cpu.startPosition.row, character: cpu.startPosition.column }, end: { line: cpu.startPosition.row, character: cpu.startPosition.column } }, newText: `${mps} if ${torch}.backends.mps.is_available() else `, cellIndex: unit }],
    preferred: true,
  }];
}
