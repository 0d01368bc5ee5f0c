// DD022 optimizer-loaded-before-move: `optimizer.load_state_dict(ckpt["optimizer"])` while
// the model is still on the CPU, and `model.to(device)` after it in the same scope.
// load_state_dict casts the saved state (Adam's exp_avg, SGD's momentum) to the device
// each parameter is on *at load time*; `model.to(device)` then moves the parameters but
// not that state, and the first `optimizer.step()` meets CPU state with GPU parameters.
// Fix: move the model first (the move statement is moved above the load).
import type { Node } from '../../python/pyNode';
import { callArguments, children, field, stringLiteralValue, unparen } from '../../python/syntax';
import type { Rule, RuleFrame as Frame, RuleHost } from '../ruleApi';
import type { Fix, TextEdit } from '../types';
import { hasAccel } from '../values';
import { shortText } from './shared/describe';
import { ruleMessage } from './shared/message';
import { bodyNodes, statementOf } from './shared/moduleCode';

export const optimizerLoadedBeforeMove: Rule = (host) => ({
  call: (frame, call) => {
    if (host.program.units[frame.unit]?.module !== 0) return;
    const optimizer = loadedOptimizer(frame, call);
    if (!optimizer) return;
    const model = modelOf(frame, optimizer);
    if (!model) return;
    if (movedBefore(frame, call, model)) return;
    const move = laterMove(frame, call, model);
    if (!move || stateMovedByHand(frame, call, optimizer)) return;
    report(host, frame, call, optimizer, model, move);
  },
});

/** `<opt>.load_state_dict(...)` on an optimizer: the receiver's text. */
function loadedOptimizer(frame: Frame, call: Node): Node | undefined {
  const callee = field(call, 'function');
  if (callee?.type !== 'attribute' || field(callee, 'attribute')?.text !== 'load_state_dict') return undefined;
  const recv = unparen(field(callee, 'object')!);
  if (recv.type === 'identifier') {
    const kind = frame.env.get(recv.text)?.kind;
    if (kind === 'optimizer' || ((kind === undefined || kind === 'unknown' || kind === 'other') && /optim/i.test(recv.text))) return recv;
    return undefined;
  }
  return recv.type === 'attribute' && /optim/i.test(field(recv, 'attribute')?.text ?? '') ? recv : undefined;
}

/** The statements of the scope the event runs in (its function's body, or the unit for module code). */
function scopeBody(frame: Frame): Node {
  return frame.fn ? frame.fn.body : frame.scopeNode;
}

/**
 * The model whose parameters the optimizer was built over, from its construction in this
 * scope: `optimizer = torch.optim.Adam(model.parameters(), ...)` → `model`.
 */
function modelOf(frame: Frame, optimizer: Node): string | undefined {
  for (const n of scopeIndex(scopeBody(frame)).assignments.get(optimizer.text) ?? []) {
    const right = field(n, 'right');
    if (right?.type !== 'call') continue;
    const first = callArguments(right).positional[0];
    const params = first ? unparen(first) : undefined;
    const callee = params?.type === 'call' ? field(params, 'function') : null;
    if (callee?.type === 'attribute' && /^(named_)?parameters$/.test(field(callee, 'attribute')?.text ?? '')) return field(callee, 'object')!.text;
  }
  return undefined;
}

/** The usual repair after the load: `for state in optimizer.state.values(): ... v.to(device)`. */
function stateMovedByHand(frame: Frame, load: Node, optimizer: Node): boolean {
  return (scopeIndex(scopeBody(frame)).stateReads.get(optimizer.text) ?? []).some((n) => n.startIndex > load.endIndex);
}

/**
 * The model is already off the CPU when the state is loaded: the analysis places it on an
 * accelerator there, or the scope moved it before the load (`net.cuda()` … load … `net.cuda()`
 * again after it, which is harmless).
 */
function movedBefore(frame: Frame, load: Node, model: string): boolean {
  const place = frame.env.get(model)?.place;
  if (place !== undefined && hasAccel(place)) return true;
  return !!moveOf(frame, model, (n) => n.endIndex <= load.startIndex);
}

/** `model.to(...)` / `model.cuda()` after the load in the same scope, towards something other than the CPU. */
function laterMove(frame: Frame, load: Node, model: string): Node | undefined {
  return moveOf(frame, model, (n) => n.startIndex > load.endIndex);
}

/** The first `model.to(<not the CPU or a dtype>)` / `model.cuda()` of the scope where `where` holds. */
function moveOf(frame: Frame, model: string, where: (n: Node) => boolean): Node | undefined {
  for (const n of scopeIndex(scopeBody(frame)).methodCalls.get(model) ?? []) {
    if (!where(n)) continue;
    const method = field(field(n, 'function')!, 'attribute')?.text;
    if (method === 'cuda') return n;
    if (method !== 'to') continue;
    const target = callArguments(n).positional[0] ?? callArguments(n).keywords.get('device');
    if (!target || /^(torch\.)?(float|half|bfloat|double|int|long)/.test(target.text) || /^cpu(:\d+)?$/.test(stringLiteralValue(target) ?? '')) continue;
    return n;
  }
  return undefined;
}

function report(host: RuleHost, frame: Frame, load: Node, optimizer: Node, model: string, move: Node): void {
  const opt = shortText(optimizer, 30);
  host.report({
    unit: frame.unit,
    code: 'DD022',
    node: load,
    message: ruleMessage((q) => ({
      problem: `Optimizer state loaded while ${q(model)} is on the CPU`,
      action: 'move the model first',
      why: `\`${opt}.load_state_dict(...)\` puts the restored state (momentum, Adam's averages) where the parameters are at load time, ` +
        `and \`${shortText(move, 30)}\` on line ${move.startPosition.row + 1} moves the parameters but not that state, ` +
        `so the first \`${opt}.step()\` fails with "Expected all tensors to be on the same device".`,
    })),
    related: host.related({ unit: frame.unit, node: move }, `\`${model}\` is moved here, after the optimizer state was loaded`),
    fixes: moveFirst(host, frame, load, move),
  });
}

/** Names an expression reads, attribute names excluded. */
function namesRead(node: Node, out: Set<string>): Set<string> {
  if (node.type === 'identifier') out.add(node.text);
  for (const c of children(node)) if (!(node.type === 'attribute' && c === field(node, 'attribute')) && !(node.type === 'keyword_argument' && c === field(node, 'name'))) namesRead(c, out);
  return out;
}

/**
 * The statement holding the move (the move itself, or an `if` around it) cut from its
 * lines and put above the load's statement, when both are statements of the same block,
 * the moved lines hold nothing else, and nothing the move reads is assigned between them.
 */
function moveFirst(host: RuleHost, frame: Frame, load: Node, move: Node): Fix[] {
  const loadStatement = statementOf(load);
  if (!loadStatement?.parent) return [];
  let moveStatement: Node | null = move;
  while (moveStatement && moveStatement.parent?.id !== loadStatement.parent.id) moveStatement = moveStatement.parent;
  if (!moveStatement || loadStatement.startPosition.column !== moveStatement.startPosition.column) return [];
  // Load and move in one statement (`a.load_state_dict(s), m.to(d)`): moving it above itself changes nothing.
  if (moveStatement.id === loadStatement.id || moveStatement.startIndex < loadStatement.endIndex) return [];
  const read = namesRead(moveStatement, new Set());
  for (const n of bodyNodes(scopeBody(frame))) {
    if (n.startIndex < loadStatement.startIndex || n.startIndex >= moveStatement.startIndex) continue;
    if ((n.type === 'assignment' || n.type === 'augmented_assignment') && [...namesRead(field(n, 'left') ?? n, new Set())].some((name) => read.has(name))) return [];
  }
  const unit = host.program.units[frame.unit];
  const first = moveStatement.startPosition.row;
  const last = moveStatement.endPosition.row;
  const lastText = unit.lines[last] ?? '';
  if ((unit.lines[first] ?? '').slice(0, moveStatement.startPosition.column).trim() !== '' || lastText.slice(moveStatement.endPosition.column).trim().replace(/^#.*$/, '') !== '') return [];
  const moved = unit.lines.slice(first, last + 1).map((l) => `${l}${unit.eol}`).join('');
  const edits: TextEdit[] = [
    { range: { start: { line: loadStatement.startPosition.row, character: 0 }, end: { line: loadStatement.startPosition.row, character: 0 } }, newText: moved, cellIndex: frame.unit },
  ];
  // One deletion per line: an edit that spans one line break at most is what editors merge cleanly.
  for (let line = first; line <= last; line++) edits.push({ range: { start: { line, character: 0 }, end: { line: line + 1, character: 0 } }, newText: '', cellIndex: frame.unit });
  return [{ title: `Move \`${shortText(moveStatement, 30)}\` above the optimizer's load_state_dict`, edits, preferred: true }];
}

/** What the three scans need of a scope, by the text they match, in the order bodyNodes meets them. */
interface ScopeIndex {
  /** `<text> = ...` */
  assignments: Map<string, Node[]>;
  /** `<text>.state` */
  stateReads: Map<string, Node[]>;
  /** `<text>.method(...)` */
  methodCalls: Map<string, Node[]>;
}

/**
 * Made once per scope: each optimizer load scanned the whole scope three times, which for
 * module code is the whole file (quadratic in a long notebook or script).
 */
const INDEXES = new WeakMap<Node, ScopeIndex>();

function scopeIndex(body: Node): ScopeIndex {
  let index = INDEXES.get(body);
  if (index) return index;
  index = { assignments: new Map(), stateReads: new Map(), methodCalls: new Map() };
  const add = (map: Map<string, Node[]>, key: string, n: Node) => {
    const list = map.get(key);
    if (list) list.push(n);
    else map.set(key, [n]);
  };
  for (const n of bodyNodes(body)) {
    if (n.type === 'assignment') {
      add(index.assignments, unparen(field(n, 'left') ?? n).text, n);
    } else if (n.type === 'attribute' && field(n, 'attribute')?.text === 'state') {
      add(index.stateReads, unparen(field(n, 'object')!).text, n);
    } else if (n.type === 'call') {
      const callee = field(n, 'function');
      if (callee?.type === 'attribute') add(index.methodCalls, unparen(field(callee, 'object')!).text, n);
    }
  }
  INDEXES.set(body, index);
  return index;
}
