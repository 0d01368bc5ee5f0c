// DD007 sync-every-step: `loss.item()`, `t.cpu()`, `float(t)`, `print(t)` read an
// accelerator tensor on the host. The host must wait until every kernel queued so far has
// finished, so in every step of a training loop the GPU runs dry while Python catches up
// (PyTorch's performance tuning guide: avoid unnecessary CPU-GPU synchronization). No error,
// only lost speed: information, and no fix — reading every N steps, or accumulating
// `loss.detach()` on the device and reading it once, are the author's choices.
// `.numpy()` on an accelerator tensor is DD003's error; `.cpu().numpy()` is reported at `.cpu()`.
import type { Node } from '../../python/pyNode';
import { callArguments, children, descendants, dottedKey, field, nodeRange, unparen } from '../../python/syntax';
import type { RuleFrame as Frame } from '../ruleApi';
import type { FunctionInfo, Rule, UnitFinding } from '../ruleApi';
import { CPU, hasAccel, Value } from '../values';
import { shortText } from './shared/describe';
import { ruleMessage } from './shared/message';

const LOOPS = new Set(['for_statement', 'while_statement']);
const SCOPES = new Set(['function_definition', 'class_definition', 'lambda']);
const inScope = (n: Node) => !SCOPES.has(n.type);

/** Methods that keep a tensor on its device: `loss.detach().item()`, `(pred == y).sum().item()`. */
const SAME_PLACE_METHODS = new Set(['detach', 'sum', 'mean', 'float', 'double', 'half', 'squeeze', 'flatten', 'argmax', 'max', 'min', 'norm', 'abs', 'clone', 'contiguous', 'view', 'reshape', 'long', 'int']);

/** Builtins that turn a one-element tensor into a Python value on the host. */
const NUMBER_CASTS = new Set(['float', 'int', 'bool']);

/** An optimizer (or a GradScaler driving one) stepping: `optimizer.step()`, `self.opt.step()`, `scaler.step(opt)`. */
const OPTIMIZER_STEP = /(^|[\w.])(optim\w*|opt|\w*optimizer\w*|\w*_opt|scaler)\.step\s*\(/i;

/** One finding per training loop: the first read-back, which the others are named in. */
interface LoopFinding {
  finding: UnitFinding;
  first: Node;
  firstText: string;
  tensorText: string;
  loopLine: number;
  /** The later read-backs of the same step, each with its text, in source order. */
  others: Array<{ node: Node; what: string }>;
}

export const syncEveryStep: Rule = (host) => {
  const reported = new Set<number>();
  const byLoop = new Map<number, LoopFinding>();
  const report = (frame: Frame, node: Node, startNode: Node | undefined, what: string, tensor: Node, value: Value) => {
    if (reported.has(node.id)) return; // a loop's steps, or a function's call sites, evaluate it again
    const loop = trainingLoopAround(node, frame.scopeNode);
    if (!loop || synchronizedBefore(field(loop, 'body')!, node, host.program.topFunctions) || stepNeedsIt(node, loop)) return;
    reported.add(node.id);
    const known = byLoop.get(loop.id);
    // After the step's first read-back the GPU has drained; the others wait for little. One
    // finding per loop, on the first, naming the rest (issue 28 item 4: five hints in a GAN step).
    if (known) return addLater(known, node, what);
    const finding: UnitFinding = {
      unit: frame.unit,
      code: 'DD007',
      node,
      startNode,
      message: '',
      related: host.related(value.origin, `\`${shortText(tensor)}\` ${value.origin?.what ?? 'computed here'}`),
      fixes: [],
    };
    const entry = { finding, first: node, firstText: what, tensorText: shortText(tensor), loopLine: loop.startPosition.row + 1, others: [] };
    finding.message = loopMessage(entry);
    byLoop.set(loop.id, entry);
    host.report(finding);
  };
  /** Whether a name of the frame's unit is the torch module (`torch`, `th` for `import torch as th`). */
  const torchIn = (frame: Frame) => (name: string) => host.program.importsAt(frame.unit).qualifyName(name) === 'torch';
  return {
    call: (frame, call, qualified) => {
      const callee = field(call, 'function');
      if (!callee) return;
      if (callee.type === 'attribute' && field(callee, 'attribute')?.text === 'item' && callArguments(call).positional.length === 0) {
        const recv = field(callee, 'object');
        const found = recv && acceleratorTensor(frame, recv, torchIn(frame));
        if (found) report(frame, call, field(callee, 'attribute') ?? undefined, `\`${shortText(call)}\``, recv, found);
        return;
      }
      if (qualified !== undefined || callee.type !== 'identifier' || frame.names.has(callee.text)) return;
      const args = callArguments(call);
      // `float(loss)`, `int(correct)`, `bool(done)`: a Python number from a tensor reads it back.
      if (NUMBER_CASTS.has(callee.text) && args.positional.length === 1) {
        const found = acceleratorTensor(frame, args.positional[0], torchIn(frame));
        if (found) report(frame, call, undefined, `\`${shortText(call)}\``, args.positional[0], found);
      } else if (callee.text === 'print') {
        for (const arg of args.positional.flatMap(printedExpressions)) {
          const found = acceleratorTensor(frame, arg, torchIn(frame));
          if (found) return report(frame, arg, undefined, '`print`', arg, found);
        }
      }
    },
    valueMoved: (frame, call, recvNode, recv, to) => {
      if (to !== CPU || recv.kind !== 'tensor' || !hasAccel(recv.place)) return;
      const attr = field(field(call, 'function') ?? call, 'attribute') ?? undefined;
      report(frame, call, attr, `\`${shortText(call)}\``, recvNode, recv);
    },
  };
};

function addLater(entry: LoopFinding, node: Node, what: string): void {
  entry.others.push({ node, what });
  entry.others.sort((a, b) => a.node.startIndex - b.node.startIndex);
  entry.finding.message = loopMessage(entry);
  entry.finding.related.push({ range: nodeRange(node), message: `${what} also reads back to the host in every step`, cellIndex: entry.finding.unit });
}

function loopMessage(entry: LoopFinding): string {
  const others = entry.others.map((o) => `${o.what} (line ${o.node.startPosition.row + 1})`);
  const more = others.length === 0 ? ''
    : ` This step reads back ${others.length} more after it: ${others.join(', ')}; move them together with this one.`;
  return ruleMessage((q) => ({
    problem: `${q(entry.firstText.replace(/^`|`$/g, ''))} waits for the GPU in every step`,
    action: 'read it every N steps',
    why: `It reads \`${entry.tensorText}\` back from the accelerator in every step of this training loop ` +
      `(line ${entry.loopLine}): the host waits until all queued GPU work has finished, so the next step's ` +
      'kernels cannot be queued ahead and the GPU idles. Read it every N steps (`if step % 100 == 0:`), or keep a ' +
      `running value on the device (\`total += loss.detach()\`) and read it once after the loop.${more}`,
  }));
}

/** What `print` formats: its arguments, and the expressions an f-string interpolates. */
function printedExpressions(arg: Node): Node[] {
  if (arg.type !== 'string') return [arg];
  return children(arg).filter((c) => c.type === 'interpolation').flatMap((c) => children(c).filter((e) => e.type !== 'format_specifier' && e.type !== 'type_conversion').slice(0, 1));
}

/** The value of `expr` when it is (or is computed on the device from) a tensor that is, or may be, on an accelerator. */
function acceleratorTensor(frame: Frame, expr: Node, isTorch: (name: string) => boolean): Value | undefined {
  let node = unparen(expr);
  // `loss.detach()`, `pred.argmax(1)`: the receiver's device; `torch.argmax(out)`: its tensor's.
  while (node.type === 'call') {
    const callee = field(node, 'function');
    if (callee?.type !== 'attribute' || !SAME_PLACE_METHODS.has(field(callee, 'attribute')?.text ?? '')) return undefined;
    const object = unparen(field(callee, 'object') ?? node);
    const first = callArguments(node).positional[0];
    node = object.type === 'identifier' && isTorch(object.text) && first ? unparen(first) : object;
  }
  if (node.type === 'attribute' && field(node, 'attribute')?.text === 'data') node = unparen(field(node, 'object') ?? node);
  if (node.type === 'comparison_operator' || node.type === 'binary_operator') {
    for (const side of children(node)) {
      const found = acceleratorTensor(frame, side, isTorch);
      if (found) return found;
    }
    return undefined;
  }
  const key = dottedKey(node);
  const value = key !== undefined ? frame.env.get(key) ?? frame.outer?.get(key) : undefined;
  return value && value.kind === 'tensor' && hasAccel(value.place) ? value : undefined;
}

/**
 * The innermost loop around `node` when it runs `node` in every iteration and trains: its
 * body (outside nested loops and functions) calls `.backward()` or an optimizer's `step()`.
 * Code under an `if` (`if step % 100 == 0:`), an `else`, an `except` or a conditional
 * expression does not run every step.
 */
function trainingLoopAround(node: Node, scope: Node): Node | undefined {
  let child = node;
  for (let n = node.parent; n && n.id !== scope.id; child = n, n = n.parent) {
    if (SCOPES.has(n.type)) return undefined;
    if (n.type === 'if_statement' || n.type === 'elif_clause') {
      if (field(n, 'condition')?.id !== child.id) return undefined;
    } else if (n.type === 'else_clause' || n.type === 'except_clause' || n.type === 'conditional_expression' || n.type === 'boolean_operator') {
      if (n.type !== 'boolean_operator' || children(n)[0]?.id !== child.id) return undefined;
    } else if (LOOPS.has(n.type)) {
      const body = field(n, 'body');
      if (!body || body.id !== child.id) return undefined; // the loop's header, or its `else`
      return trains(body) ? n : undefined;
    }
  }
  return undefined;
}

/** Calls that only report or collect a value: a read-back for them can wait for N steps. */
const REPORTING_CALLS = /^(print|log\w*|info|debug|warning|warn|append|extend|add|add_\w+|write\w*|set_postfix\w*|set_description\w*|update|format|str|repr|round|float|int|len|mean|sum|max|min|save|savetxt|dump|put|record|push|insert)$/;

/**
 * The read-back's value drives the next step: it is assigned (`action = q.argmax(1).cpu().numpy()`),
 * passed to a call that is not reporting (`next_obs, reward, done, _ = env.step(action)`), and
 * what that call gives comes back round to the top of the loop (`obs = next_obs`, read before
 * the read-back). The host needs it to go on, so reading it every N steps is no option.
 */
function stepNeedsIt(node: Node, loop: Node): boolean {
  const body = field(loop, 'body');
  let statement: Node = node;
  while (statement.type !== 'expression_statement' && statement.parent && statement.id !== loop.id && !SCOPES.has(statement.type)) statement = statement.parent;
  const read = assignedNames(statement);
  if (!body || read.size === 0) return false;
  const after = descendants(body, inScope).filter((n) => n.type === 'expression_statement' && n.startIndex >= statement.endIndex).sort((a, b) => a.startIndex - b.startIndex);
  const results = new Set<string>();
  for (const later of after) {
    const right = assignedValue(later);
    if (!right) continue;
    const consumes = descendants(right, inScope).some((n) => n.type === 'call' && !isReporting(n) && callArgumentsNamed(n, read));
    const carries = right.type === 'identifier' && results.has(right.text);
    if (consumes || carries) for (const name of assignedNames(later)) results.add(name);
  }
  if (results.size === 0) return false;
  return descendants(body, inScope).some((n) => n.type === 'identifier' && n.endIndex <= statement.startIndex && results.has(n.text));
}

function isReporting(call: Node): boolean {
  const callee = field(call, 'function');
  const name = callee?.type === 'attribute' ? field(callee, 'attribute')?.text : callee?.text;
  return !name || REPORTING_CALLS.test(name);
}

function callArgumentsNamed(call: Node, names: ReadonlySet<string>): boolean {
  const args = callArguments(call);
  return [...args.positional, ...args.keywords.values()].some((a) => names.has(unparen(a).text));
}

function assignedValue(statement: Node): Node | undefined {
  const assignment = statement.type === 'expression_statement' ? unparen(children(statement)[0] ?? statement) : undefined;
  return assignment?.type === 'assignment' ? field(assignment, 'right') ?? undefined : undefined;
}

/** The names an assignment statement binds (`a, (b, c) = ...`); none for any other statement. */
function assignedNames(statement: Node): Set<string> {
  const assignment = statement.type === 'expression_statement' ? unparen(children(statement)[0] ?? statement) : undefined;
  const left = assignment?.type === 'assignment' ? field(assignment, 'left') : undefined;
  return new Set(left ? descendants(left, inScope).filter((n) => n.type === 'identifier').map((n) => n.text) : []);
}

/** `torch.cuda.synchronize()` (or the MPS/XPU/accelerator one), whatever the module is imported as. */
const SYNCHRONIZE = /(^|\.)(cuda|mps|xpu|accelerator)\.synchronize$/;

/**
 * The step already waits for the GPU before `node`: an explicit synchronize that every
 * iteration runs (a statement of the loop body itself, or under an `if` that only asks
 * whether the GPU is in use), so the read-back after it waits for nothing. A call of one of
 * the file's own functions whose body is such a synchronize (`def sync(device): if
 * device.type == "cuda": torch.cuda.synchronize(device)`) counts as one.
 */
function synchronizedBefore(body: Node, node: Node, functions: ReadonlyMap<string, FunctionInfo>): boolean {
  return children(body).some((statement) => statement.startIndex < node.startIndex && synchronizes(statement, functions));
}

function synchronizes(statement: Node, functions: ReadonlyMap<string, FunctionInfo>, depth = 0): boolean {
  if (statement.type === 'if_statement') {
    const guard = field(statement, 'condition');
    const consequence = field(statement, 'consequence');
    // One test of the device alone (`if device.type == "cuda":`), not `step % 50 == 0 and ...`.
    return !!guard && guard.type !== 'boolean_operator' && /cuda|device|gpu|accel/i.test(guard.text) && !!consequence &&
      children(consequence).some((s) => synchronizes(s, functions, depth));
  }
  if (statement.type !== 'expression_statement') return false;
  const call = unparen(children(statement)[0] ?? statement);
  const callee = call.type === 'call' ? field(call, 'function') : null;
  if (!callee) return false;
  if (SYNCHRONIZE.test(callee.text.replace(/\s+/g, ''))) return true;
  const helper = callee.type === 'identifier' && depth === 0 ? functions.get(callee.text) : undefined;
  return !!helper && children(helper.body).some((s) => synchronizes(s, functions, depth + 1));
}

/**
 * Whether a loop body trains, once per iteration (nested loops and functions excluded): it
 * steps an optimizer, or calls backward() (its own, or a hand-written one) and something that
 * steps or updates (a helper, a scheduler, `w -= lr * grad`). backward() alone computes gradients for their own sake (a saliency map, Grad-CAM),
 * whose per-sample read-backs are the point.
 */
function trains(body: Node): boolean {
  let backward = false;
  let updates = false;
  const stack: Node[] = [body];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.type === 'call') {
      const callee = field(n, 'function');
      const method = callee?.type === 'attribute' ? field(callee, 'attribute')?.text : callee?.text;
      if (method === 'step' && OPTIMIZER_STEP.test(`${callee!.text}(`)) return true;
      if (method === 'backward' || method === 'manual_backward') backward = true;
      else if (method && STEPS.test(method)) updates = true;
    } else if (n.type === 'augmented_assignment' && /^\s*-=/.test(n.text.slice((field(n, 'left')?.endIndex ?? n.startIndex) - n.startIndex))) {
      updates = true; // a hand-written gradient step: `w -= lr * grad_w`
    }
    for (const c of children(n)) if (!LOOPS.has(c.type) && !SCOPES.has(c.type)) stack.push(c);
  }
  return backward && updates;
}

/** A call that takes a training step: `step()`, `train_step(...)`, `update(...)`, `model.optimize()`, `w.sub_(...)`. */
const STEPS = /step|updat|optimi[sz]e|apply_gradients|^(sub|add)_$/i;
