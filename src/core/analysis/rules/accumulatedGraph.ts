// DD009 accumulated-graph: `total += loss` or `losses.append(loss)` across the steps of a
// training (or data) loop, where `loss` requires grad, keeps every step's autograd graph
// alive until the accumulator goes away: memory grows with every iteration. The fix keeps
// the number (`loss.item()`) or a tensor without history (`loss.detach()`).
import type { Node } from '../../python/pyNode';
import { dottedKey, unparen } from '../../python/syntax';
import type { RuleFrame as Frame } from '../ruleApi';
import { appendAfter, appendedText } from '../fixes';
import type { Rule, RuleHost } from '../ruleApi';
import type { Fix } from '../types';
import { hasAccel } from '../values';
import type { Arg } from '../values';
import { shortText } from './shared/describe';
import { code, ruleMessage } from './shared/message';

export const accumulatedGraph: Rule = (host) => ({
  valueAccumulated: (frame, statement, target, added, style) => checkAccumulation(host, frame, statement, target, added, style),
});

const LOOPS = new Set(['for_statement', 'while_statement']);
const SCOPES = new Set(['function_definition', 'class_definition', 'lambda']);

function checkAccumulation(c: RuleHost, frame: Frame, statement: Node, target: Node, added: Arg, style: 'add' | 'append'): void {
  if (frame.noGrad > 0 || added.value.grad !== 'yes' || added.value.kind !== 'tensor') return;
  const key = containerKey(unparen(target));
  // Across the steps of a loop over batches, or of one that trains (through an inner loop
  // over a dict's keys: `epoch_losses[k] += losses[k]`); a loop over a sequence's time steps
  // or a model's heads sums one graph on purpose (seq2seq losses): its sum is reset each step.
  const loop = key ? stepLoopAround(statement, frame) : undefined;
  if (!key || !loop) return;
  if (assignedIn(bodyOf(loop), key) || !isLoss(unparen(added.node), bodyOf(loop))) return;
  const scopeText = frame.scopeNode.text;
  // The sum is differentiated later on purpose (one backward over all batches, `torch.stack(losses).mean().backward()`).
  if (differentiatedLater(frame.scopeNode, key)) return;
  const addedText = shortText(unparen(added.node));
  // On an accelerator `.item()` makes the host wait for the GPU every step (DD007); the
  // detached sum stays on the device and is read once, as PyTorch's performance guide advises.
  const onAccelerator = hasAccel(added.value.place);
  const keepsTensor = style === 'append' || onAccelerator || new RegExp(`(?<![\\w.])${escape(key)}\\.[A-Za-z_]`).test(scopeText);
  // `cur_loss / n` is shown as `(cur_loss / n).detach()`, as the fix writes it.
  const withItem = appendedText(unparen(added.node), addedText, '.item()');
  const withDetach = appendedText(unparen(added.node), addedText, '.detach()');
  const item: Fix = { title: `Accumulate the number: ${withItem}`, edits: appendAfter(added.node, '.item()', frame.unit), preferred: !keepsTensor };
  const detach: Fix = { title: `Accumulate without history: ${withDetach}`, edits: appendAfter(added.node, '.detach()', frame.unit), preferred: keepsTensor };
  c.report({
    unit: frame.unit,
    code: 'DD009',
    node: added.node,
    message: ruleMessage((q) => ({
      problem: `${q(key)} keeps every step's autograd graph alive`,
      action: `accumulate ${code(keepsTensor ? withDetach : withItem, 40)}`,
      why: `It keeps the autograd graph of \`${addedText}\` (it requires grad) from every iteration alive in ` +
        `\`${key}\`: memory grows each step. Accumulate ${keepsTensor ? `\`${withDetach}\` (or \`.item()\`)` : `\`${withItem}\` (or \`.detach()\`)`}` +
        `${onAccelerator ? ' and read the total with .item() once after the loop (.item() every step waits for the accelerator)' : ''}.`,
    })),
    related: c.related(added.value.origin, `\`${addedText}\` ${added.value.origin?.what ?? 'computed here'}`),
    // No `.item()` fix on an accelerator: it would trade the graph for a wait every step (DD007).
    fixes: onAccelerator ? [detach] : keepsTensor ? [detach, item] : [item, detach],
  });
}

/** `total`, `self.total`, and the dict or list of `totals[key]`. */
function containerKey(target: Node): string | undefined {
  const value = target.type === 'subscript' ? target.childForFieldName('value') : null;
  return dottedKey(target) ?? (value ? dottedKey(unparen(value)) : undefined);
}

/** The innermost loop around `node` that runs training steps (over a loader, or calling backward/step). */
function stepLoopAround(node: Node, frame: Frame): Node | undefined {
  for (let loop = enclosingLoop(node, frame.scopeNode); loop; loop = enclosingLoop(loop, frame.scopeNode)) {
    if (frame.loops.some((l) => l.node.id === loop!.id) || /\.(backward|step)\s*\(/.test(bodyOf(loop).text)) return loop;
  }
  return undefined;
}

/** The innermost `for`/`while` around `node` inside its scope, if any. */
function enclosingLoop(node: Node, scope: Node): Node | undefined {
  for (let n = node.parent; n && n.id !== scope.id; n = n.parent) {
    if (SCOPES.has(n.type)) return undefined;
    if (LOOPS.has(n.type) && bodyOf(n).startIndex <= node.startIndex && node.endIndex <= bodyOf(n).endIndex) return n;
  }
  return undefined;
}

function bodyOf(loop: Node): Node {
  return loop.childForFieldName('body') ?? loop;
}

/** Whether `key` is bound by a plain assignment inside `block` (then it holds one step's value, not a running one). */
function assignedIn(block: Node, key: string): boolean {
  const visit = (n: Node): boolean => {
    if (SCOPES.has(n.type)) return false;
    if (n.type === 'assignment' && targetsOf(n.childForFieldName('left')).includes(key)) return true;
    return n.namedChildren.some(visit);
  };
  return visit(block);
}

function targetsOf(left: Node | null): string[] {
  if (!left) return [];
  const key = dottedKey(unparen(left));
  if (key) return [key];
  return left.namedChildren.flatMap((c) => targetsOf(c));
}

/** Names in `text` as whole words (a dotted key too: `self.losses`). */
function mentionsAny(text: string, keys: Iterable<string>): boolean {
  return namesPattern(keys).test(text);
}

/** One pattern for all the names (a scope can be a whole 20,000-line script: no regex per name and line). */
function namesPattern(keys: Iterable<string>): RegExp {
  return new RegExp(`(?<![\\w.])(?:${[...keys].map(escape).join('|')})(?!\\w)`);
}

/**
 * Whether the scope differentiates `key` or something built from it later. Computed once
 * per scope and name: it reads the whole scope, and a loop reports each step again.
 */
const differentiated = new WeakMap<Node, Map<string, boolean>>();

function differentiatedLater(scope: Node, key: string): boolean {
  let byKey = differentiated.get(scope);
  if (!byKey) differentiated.set(scope, (byKey = new Map()));
  let found = byKey.get(key);
  if (found === undefined) byKey.set(key, (found = backwardLinesOf(scope).length > 0 && backwardUses(scope, derivedNames(scope, key))));
  return found;
}

/** The lines of a scope that call backward(), once per scope. */
const backwardLines = new WeakMap<Node, string[]>();

/** A line of the scope that differentiates something built from one of `keys`. */
function backwardUses(scope: Node, keys: Set<string>): boolean {
  const names = namesPattern(keys);
  return backwardLinesOf(scope).some((line) => names.test(line));
}

function backwardLinesOf(scope: Node): string[] {
  let lines = backwardLines.get(scope);
  if (!lines) backwardLines.set(scope, (lines = scope.text.split('\n').filter((line) => BACKWARD.test(line))));
  return lines;
}

/** Each assignment of a scope as the names its right side mentions and its targets, once per scope. */
const assignmentsOf = new WeakMap<Node, Array<{ mentions: Set<string>; targets: string[] }>>();

function scopeAssignments(scope: Node): Array<{ mentions: Set<string>; targets: string[] }> {
  let found = assignmentsOf.get(scope);
  if (found) return found;
  found = [];
  const stack = [scope];
  for (let n = stack.pop(); n !== undefined; n = stack.pop()) {
    if (n.type === 'assignment') {
      const right = n.childForFieldName('right');
      if (right) found.push({ mentions: mentionedNames(right.text), targets: targetsOf(n.childForFieldName('left')) });
    }
    for (const c of n.namedChildren) stack.push(c);
  }
  found.reverse();
  assignmentsOf.set(scope, found);
  return found;
}

/** The names and dotted keys a text mentions as whole words: `self.losses.append(x)` mentions self, self.losses, self.losses.append, x. */
function mentionedNames(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(/(?<![\w.])[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*/g)) {
    const parts = m[0].split('.');
    for (let i = 1; i <= parts.length; i++) out.add(parts.slice(0, i).join('.'));
  }
  return out;
}

const BACKWARD = /\.backward\s*\(|autograd\.(grad|backward)\s*\(/;

/** `key` and what the scope computes from it (`total = torch.stack(parts).mean()`), a few steps deep. */
function derivedNames(scope: Node, key: string): Set<string> {
  const names = new Set([key]);
  const assignments = scopeAssignments(scope);
  for (let round = 0; round < 3; round++) {
    for (const a of assignments) {
      if (a.targets.every((t) => names.has(t))) continue;
      for (const n of a.mentions) {
        if (!names.has(n)) continue;
        for (const t of a.targets) names.add(t);
        break;
      }
    }
  }
  return names;
}

/**
 * Evidence that what is added is a loss (what `backward()` is called on), not merely some
 * output a metric object returned: a loss function's result, a name the loop
 * differentiates or calls a loss, or arithmetic on one of these.
 */
function isLoss(expr: Node, loopBody: Node): boolean {
  if (expr.type === 'call') return LOSS_CALLEE.test(expr.childForFieldName('function')?.text ?? '');
  if (expr.type === 'binary_operator') return expr.codeChildren.some((c) => isLoss(unparen(c), loopBody));
  const key = containerKey(expr);
  if (!key) return false;
  if (/loss/i.test(key.slice(key.lastIndexOf('.') + 1))) return true;
  return loopBody.text.split('\n').some((line) => BACKWARD.test(line) && mentionsAny(line, [key]));
}

const LOSS_CALLEE = /(loss|criterion|cross_entropy|nll|mse|l1|bce|kl_div)(_fn|_func|_function|_with_logits)?$/i;

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
