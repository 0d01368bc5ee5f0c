// DD006 unsynchronized-timing: accelerators run kernels asynchronously, so a clock read
// right after launching them measures the launch, not the work. The rule pairs a clock
// read `start = time.perf_counter()` with a later one that measures from it, and fires when
// accelerator work happened between them and nothing between them can have waited for it.
// Anything that might synchronize (a host copy, a print, a call it does not know) keeps it
// silent: precision first.
import type { Node } from '../../python/pyNode';
import { children, descendants, dottedKey, field, unparen } from '../../python/syntax';
import type { RuleFrame as Frame } from '../ruleApi';
import { insertAt } from '../fixes';
import type { Rule, RuleHost } from '../ruleApi';
import { EITHER, hasAccel, Place, Value } from '../values';
import { shortText } from './shared/describe';
import { ruleMessage } from './shared/message';

const CLOCKS = new Set([
  'time.time', 'time.perf_counter', 'time.monotonic', 'time.time_ns', 'time.perf_counter_ns', 'time.monotonic_ns', 'timeit.default_timer',
]);

interface Work {
  unit: number;
  node: Node;
  place: Place;
  deviceText?: string;
}

export const unsynchronizedTiming: Rule = (host) => {
  /** Accelerator work, by the id of the node that launched it. */
  const work = new Map<number, Work>();
  /** Clock reads seen, per frame (a function's scope, or a module unit). */
  const clocks = new Map<string, Node[]>();
  const noteWork = (frame: Frame, node: Node, values: Value[]) => {
    const accel = values.find((v) => hasAccel(v.place) && !v.scalar && v.kind !== 'other');
    if (accel) work.set(node.id, { unit: frame.unit, node, place: accel.place, deviceText: accel.deviceText });
  };
  return {
    // A known nn.Module's forward launches kernels; an object of unknown kind (a diffusers
    // pipeline, a class with its own __call__) may copy its results to the host itself.
    moduleCall: (frame, call, _calleeNode, callee) => {
      if (callee.kind === 'module' && !host.program.methodOf(callee.className, '__call__')) noteWork(frame, call, [callee]);
    },
    tensorOperation: (frame, node, args) => noteWork(frame, node, args.map((a) => a.value)),
    call: (frame, call, qualified) => {
      if (qualified === undefined || !CLOCKS.has(qualified)) return;
      const key = `${frame.id}|${frame.unit}`;
      const seen = clocks.get(key) ?? [];
      if (!seen.some((n) => n.id === call.id)) seen.push(call);
      clocks.set(key, seen);
      checkClockRead(host, frame, call, seen, [...work.values()]);
    },
  };
};

function checkClockRead(c: RuleHost, frame: Frame, end: Node, seen: Node[], work: Work[]): void {
  const scope = frame.scopeNode;
  if (timesWithEvents(scope)) return;
  const start = seen.filter((n) => n.endIndex <= end.startIndex && measuresFrom(end, n, scope)).pop();
  if (!start || durationNeverRead(end, scope)) return;
  const launched = work.filter((w) => w.unit === frame.unit && w.node.startIndex >= start.endIndex && w.node.endIndex <= end.startIndex && within(w.node, scope));
  if (launched.length === 0 || maySynchronize(scope, start.endIndex, end.startIndex, new Set(launched.map((w) => w.node.id)), end)) return;
  const last = launched.reduce((a, b) => (b.node.startIndex > a.node.startIndex ? b : a));
  const sync = syncStatement(c, frame, last);
  const statement = simpleStatement(end);
  const unit = c.program.units[frame.unit];
  const indent = statement && unit ? (unit.lines[statement.startPosition.row] ?? '').slice(0, statement.startPosition.column) : undefined;
  const fixes = sync && statement && indent !== undefined && /^[ \t]*$/.test(indent)
    ? [{ title: `Insert ${sync} before reading the clock`, edits: [insertAt({ line: statement.startPosition.row, character: 0 }, `${indent}${sync}${unit!.eol}`, frame.unit)], preferred: true }]
    : [];
  c.report({
    unit: frame.unit,
    code: 'DD006',
    node: end,
    message: ruleMessage((q) => ({
      problem: `${q(end)} may run before the GPU finishes`,
      action: 'synchronize first',
      why: `The accelerator may still be running \`${shortText(last.node)}\` (line ${last.node.startPosition.row + 1}): kernels are launched ` +
        `asynchronously, so the time since \`${shortText(start)}\` measures the launch, not the work. Or time with torch.cuda.Event.`,
    })),
    related: [{ range: rangeOf(start), message: 'timing starts here', cellIndex: frame.unit }],
    fixes,
  });
}

/** `end` measures from `start = clock()`: its statement mentions start's name, or a later `end_name - start_name` does. */
function measuresFrom(end: Node, start: Node, scope: Node): boolean {
  const startName = assignedName(start);
  if (!startName) return false;
  const statement = statementOf(end);
  if (!statement || statement.id === statementOf(start)?.id) return false;
  if (word(startName).test(statement.text.replace(end.text, ''))) return true;
  const endName = assignedName(end);
  return !!endName && subtracts(scope, endName, startName);
}

/**
 * `end - start` in code the scope can run, by its operands' text: walked once per scope (a
 * scope can be a whole script). A subtraction under `if False:` (timing prints switched off)
 * measures nothing.
 */
const subtractions = new WeakMap<Node, Set<string>>();

function subtracts(scope: Node, endName: string, startName: string): boolean {
  let pairs = subtractions.get(scope);
  if (!pairs) subtractions.set(scope, (pairs = subtractionsIn(scope)));
  return pairs.has(`${endName}\u0000${startName}`);
}

function subtractionsIn(scope: Node): Set<string> {
  const pairs = new Set<string>();
  const stack: Node[] = [scope];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.type === 'binary_operator' && field(n, 'operator')?.text === '-') {
      const left = field(n, 'left');
      const right = field(n, 'right');
      const [l, r] = [left && dottedKey(unparen(left)), right && dottedKey(unparen(right))];
      if (l && r) pairs.add(`${l}\u0000${r}`);
    }
    for (const c of children(n)) if (!isDeadBranch(n, c)) stack.push(c);
  }
  return pairs;
}

/** The body of `if False:` / `if 0:`, which never runs. */
function isDeadBranch(parent: Node, child: Node): boolean {
  if (parent.type !== 'if_statement' || field(parent, 'consequence')?.id !== child.id) return false;
  const test = unparen(field(parent, 'condition') ?? parent);
  return test.type === 'false' || (test.type === 'integer' && Number(test.text) === 0);
}

/**
 * `elapsed = time.time() - start` and `elapsed` is read nowhere else in the scope (nor under
 * `if False:`-switched prints only): a duration nobody reads measures nothing wrongly.
 */
function durationNeverRead(end: Node, scope: Node): boolean {
  const statement = statementOf(end);
  const assignment = statement?.type === 'expression_statement' ? unparen(children(statement)[0] ?? statement) : undefined;
  const left = assignment?.type === 'assignment' ? field(assignment, 'left') : undefined;
  const name = left && dottedKey(unparen(left));
  if (!statement || !name) return false;
  const stack: Node[] = [scope];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.id === statement.id) continue;
    if ((n.type === 'identifier' || n.type === 'attribute') && dottedKey(n) === name && !isAssignedTo(n)) return false;
    for (const c of children(n)) if (!isDeadBranch(n, c)) stack.push(c);
  }
  return true;
}

/** `n` is the whole target of a plain assignment (`t = ...`), not a read (`t += ...` reads it). */
function isAssignedTo(n: Node): boolean {
  const parent = n.parent;
  return parent?.type === 'assignment' && field(parent, 'left')?.id === n.id;
}

/** `t0 = time.time()`: the name the clock value is stored in. */
function assignedName(call: Node): string | undefined {
  const parent = call.parent;
  if (parent?.type !== 'assignment' || field(parent, 'right')?.id !== call.id) return undefined;
  const left = field(parent, 'left');
  return left ? dottedKey(unparen(left)) : undefined;
}

/** Methods and functions that never wait for the accelerator. */
const ASYNC_METHODS = new Set([
  'to', 'cuda', 'backward', 'step', 'zero_grad', 'view', 'reshape', 'float', 'half', 'bfloat16', 'double', 'long', 'int',
  'unsqueeze', 'squeeze', 'permute', 'transpose', 'contiguous', 'detach', 'clone', 'mean', 'sum', 'softmax', 'log_softmax',
  'argmax', 'max', 'min', 'mul', 'add', 'sub', 'div', 'matmul', 'train', 'eval', 'size', 'dim', 'append', 'forward',
  'flatten', 'expand', 'repeat', 'chunk', 'split', 'relu', 'sigmoid', 'tanh', 'exp', 'log', 'abs', 'pow', 'sqrt', 'norm',
]);
const ASYNC_BUILTINS = new Set(['range', 'len', 'enumerate', 'zip', 'iter', 'isinstance', 'list', 'tuple', 'dict', 'min', 'max']);

/**
 * Whether anything between the two clock reads may wait for the accelerator: a host copy
 * (`.item()`, `.cpu()`, `print(t)`, a result stored into an element of a tensor that may be
 * on the host: `y_out[i] = model(x)`), an explicit synchronize, a branch on a value, a call
 * the rule cannot see into (a helper may do any of these), or, when both reads are in one
 * loop body, a blocking copy to the device (`x.to(device)` without non_blocking=True): it
 * waits for the work queued before it, so the times of a loop's steps add up to the GPU's.
 */
function maySynchronize(scope: Node, from: number, to: number, launched: Set<number>, end: Node): boolean {
  const inLoop = loopBodyAround(end, scope);
  let found = false;
  const visit = (n: Node): void => {
    if (found || n.endIndex <= from || n.startIndex >= to) return;
    if (n.startIndex >= from && n.endIndex <= to) {
      if (['if_statement', 'while_statement', 'assert_statement', 'conditional_expression', 'boolean_operator'].includes(n.type)) found = true;
      if (n.type === 'call' && !launched.has(n.id) && !asyncCall(n)) found = true;
      const right = n.type === 'assignment' && field(n, 'left')?.type === 'subscript' ? field(n, 'right') : null;
      if (right && descendants(right).some((d) => launched.has(d.id))) found = true;
      if (inLoop && n.type === 'call' && blockingDeviceCopy(n) && n.startIndex >= inLoop.startIndex && from >= inLoop.startIndex) found = true;
    }
    if (!found) for (const c of n.namedChildren) visit(c);
  };
  visit(scope);
  return found;
}

/** `x.to(device)`, `x.cuda()`: a copy that returns once the data is on the device, unless `non_blocking=True`. */
function blockingDeviceCopy(call: Node): boolean {
  const callee = field(call, 'function');
  const method = callee?.type === 'attribute' ? field(callee, 'attribute')?.text : undefined;
  if (method !== 'to' && method !== 'cuda') return false;
  const args = field(call, 'arguments')?.text ?? '';
  return !/non_blocking\s*=\s*True/.test(args) && (method === 'cuda' || /device|cuda|gpu|mps/i.test(args));
}

/** The body of the innermost `for`/`while` loop of `scope` around `node`. */
function loopBodyAround(node: Node, scope: Node): Node | undefined {
  for (let n: Node | null = node.parent; n && n.id !== scope.id; n = n.parent) {
    if (n.type === 'for_statement' || n.type === 'while_statement') return field(n, 'body') ?? undefined;
  }
  return undefined;
}

function asyncCall(call: Node): boolean {
  const callee = field(call, 'function');
  if (!callee) return false;
  const text = callee.text;
  if (/synchronize$/.test(text)) return false;
  if (/^(torch|nn|F)\./.test(text)) return true;
  if (callee.type === 'identifier') return ASYNC_BUILTINS.has(text);
  return callee.type === 'attribute' && ASYNC_METHODS.has(field(callee, 'attribute')?.text ?? '');
}

/**
 * The synchronize call for the backend the file uses (CUDA, or Apple's MPS), guarded when
 * the device may be either or is chosen at run time; none when the file names both (which one runs is not known).
 */
function syncStatement(c: RuleHost, frame: Frame, w: Work): string | undefined {
  if (c.program.importsAt(frame.unit).qualifyName('torch') !== 'torch') return undefined;
  const code = c.program.units.filter((u) => u.module === 0).map((u) => u.source.replace(/#.*$/gm, '')).join('\n');
  const mps = /["']mps\b/.test(code);
  if (mps && /cuda/.test(code)) return undefined;
  // Guarded too where the file picks its device when it runs (DD011's test): a bare
  // synchronize there stops the code on a machine without that accelerator.
  const choice = c.deviceChoice();
  const runTime = choice.runTimeChoice !== undefined && choice.cudaOnly === undefined;
  if (w.place !== EITHER && !runTime) return mps ? 'torch.mps.synchronize()' : 'torch.cuda.synchronize()';
  return mps ? 'if torch.backends.mps.is_available(): torch.mps.synchronize()' : 'if torch.cuda.is_available(): torch.cuda.synchronize()';
}

/** The statement that holds the clock read, when it is a simple statement a line can be inserted before. */
function simpleStatement(call: Node): Node | undefined {
  const s = statementOf(call);
  return s && ['expression_statement', 'return_statement'].includes(s.type) ? s : undefined;
}

function statementOf(node: Node): Node | undefined {
  let n: Node | null = node;
  while (n?.parent && n.parent.type !== 'block' && n.parent.type !== 'module') n = n.parent;
  return n ?? undefined;
}

function within(node: Node, scope: Node): boolean {
  return node.startIndex >= scope.startIndex && node.endIndex <= scope.endIndex;
}

function word(name: string): RegExp {
  return new RegExp(`(?<![\\w.])${escape(name)}(?!\\w)`);
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function rangeOf(node: Node) {
  return {
    start: { line: node.startPosition.row, character: node.startPosition.column },
    end: { line: node.endPosition.row, character: node.endPosition.column },
  };
}

/** The scope times with CUDA/MPS events or torch.utils.benchmark (which synchronize): read once per scope. */
const eventTiming = new WeakMap<Node, boolean>();

function timesWithEvents(scope: Node): boolean {
  let found = eventTiming.get(scope);
  if (found === undefined) eventTiming.set(scope, (found = /torch\.(cuda|mps|xpu)\.Event\b|torch\.utils\.benchmark|\bEvent\(\s*enable_timing/.test(scope.text)));
  return found;
}
