// DD008's second fix: the float16 recipe of PyTorch's AMP guide in the scope that trains,
//   scaler = torch.amp.GradScaler()        (before the training loop)
//   scaler.scale(loss).backward()          (was loss.backward())
//   scaler.step(optimizer); scaler.update() (was optimizer.step())
// offered only where the scope shows exactly one tensor backward() and one optimizer step(),
// each a statement of its own, so the edit cannot guess which call is meant.
import type { Node } from '../../../python/pyNode';
import { callArguments, field } from '../../../python/syntax';
import type { RuleFrame as Frame } from '../../ruleApi';
import { insertAt } from '../../fixes';
import type { ProgramView as Program } from '../../ruleApi';
import type { TextEdit } from '../../types';

const NESTED_SCOPES = new Set(['function_definition', 'class_definition', 'lambda']);
const LOOPS = new Set(['for_statement', 'while_statement']);

export function gradScalerFix(program: Program, frame: Frame, autocast: Node, torchName: string): TextEdit[] | undefined {
  if (frame.names.has('scaler')) return undefined;
  const scope = frame.scopeNode;
  const calls: Node[] = [];
  const collect = (n: Node): void => {
    if (n.id !== scope.id && NESTED_SCOPES.has(n.type)) return;
    if (n.type === 'call') calls.push(n);
    for (const ch of n.namedChildren) collect(ch);
  };
  collect(scope);
  const backwards = calls.filter((c) => methodOf(c) === 'backward' && callArguments(c).positional.length === 0);
  const steps = calls.filter((c) => methodOf(c) === 'step' && noArguments(c) && /opt/i.test(receiverOf(c)?.text ?? ''));
  if (backwards.length !== 1 || steps.length !== 1) return undefined;
  const loss = receiverOf(backwards[0]);
  const optimizer = receiverOf(steps[0]);
  const stepStatement = wholeStatement(steps[0]);
  const anchor = outermostLoop(autocast, scope) ?? statementOf(autocast);
  const unit = program.units[frame.unit];
  if (!loss || !optimizer || !stepStatement || !anchor || !unit) return undefined;
  // The scaler is created before the loop; a backward() or step() before that point is another loop's.
  if (backwards[0].startIndex < anchor.startIndex || steps[0].startIndex < anchor.startIndex) return undefined;
  const indentOf = (n: Node) => (unit.lines[n.startPosition.row] ?? '').slice(0, n.startPosition.column);
  if (!/^[ \t]*$/.test(indentOf(anchor)) || !/^[ \t]*$/.test(indentOf(stepStatement))) return undefined;
  return [
    insertAt({ line: anchor.startPosition.row, character: 0 }, `${indentOf(anchor)}scaler = ${torchName}.amp.GradScaler()${unit.eol}`, frame.unit),
    insertAt(pos(loss, false), 'scaler.scale(', frame.unit),
    insertAt(pos(loss, true), ')', frame.unit),
    { range: { start: pos(steps[0], false), end: pos(steps[0], true) }, newText: `scaler.step(${optimizer.text})`, cellIndex: frame.unit },
    insertAt(pos(stepStatement, true), `${unit.eol}${indentOf(stepStatement)}scaler.update()`, frame.unit),
  ];
}

function methodOf(call: Node): string | undefined {
  const callee = field(call, 'function');
  return callee?.type === 'attribute' ? field(callee, 'attribute')?.text : undefined;
}

function receiverOf(call: Node): Node | null {
  const callee = field(call, 'function');
  return callee?.type === 'attribute' ? field(callee, 'object') : null;
}

function noArguments(call: Node): boolean {
  const args = callArguments(call);
  return args.positional.length === 0 && args.keywords.size === 0 && !args.hasSplat;
}

/** The expression statement that is exactly this call (`optimizer.step()` on its own line). */
function wholeStatement(call: Node): Node | undefined {
  const statement = call.parent;
  return statement?.type === 'expression_statement' && statement.codeChildren.length === 1 ? statement : undefined;
}

/** The statement of the enclosing block that holds `node`. */
function statementOf(node: Node): Node | undefined {
  let n: Node | null = node;
  while (n?.parent && n.parent.type !== 'block' && n.parent.type !== 'module') n = n.parent;
  return n ?? undefined;
}

/** The outermost `for`/`while` around `node` inside its scope: the scaler is created once, before it. */
function outermostLoop(node: Node, scope: Node): Node | undefined {
  let found: Node | undefined;
  for (let n = node.parent; n && n.id !== scope.id; n = n.parent) {
    if (NESTED_SCOPES.has(n.type)) break;
    if (LOOPS.has(n.type)) found = n;
  }
  return found;
}

function pos(node: Node, end: boolean) {
  const p = end ? node.endPosition : node.startPosition;
  return { line: p.row, character: p.column };
}
