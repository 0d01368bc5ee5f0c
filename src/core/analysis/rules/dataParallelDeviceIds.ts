// DD023 data-parallel-device-ids: `nn.DataParallel(model)` replicates from
// `device_ids[0]` and requires the module to be there. Without `device_ids` it takes every
// visible GPU, starting at cuda:0, so a model on cuda:1 fails at the first forward with
// "module must have its parameters and buffers on device cuda:0 (device_ids[0]) but found
// one of them on device: cuda:1"; the same happens when the list starts elsewhere. The
// model's GPU index is read from the code (`.to("cuda:1")`, `.cuda(1)`, a device variable
// assigned such a literal); an index the code does not spell out stays silent.
import type { Node } from '../../python/pyNode';
import { callArguments, children, field, isNumberLiteral, stringLiteralValue, unparen } from '../../python/syntax';
import type { ProgramView as Program, Rule, RuleFrame as Frame, RuleHost } from '../ruleApi';
import type { Fix } from '../types';
import { shortText } from './shared/describe';
import { ruleMessage } from './shared/message';
import { bodyNodes } from './shared/moduleCode';

const DATA_PARALLEL = new Set(['torch.nn.DataParallel', 'torch.nn.parallel.DataParallel', 'torch.nn.parallel.data_parallel.DataParallel']);

export const dataParallelDeviceIds: Rule = (host) => ({
  call: (frame, call, qualified) => {
    if (!qualified || !DATA_PARALLEL.has(qualified) || host.program.units[frame.unit]?.module !== 0) return;
    const args = callArguments(call);
    if (args.hasSplat) return;
    const module = args.keywords.get('module') ?? args.positional[0];
    if (!module) return;
    const placed = modelIndex(host.program, frame, call, module);
    if (placed === undefined) return;
    const ids = args.keywords.get('device_ids') ?? args.positional[1];
    if (!ids) {
      if (placed.index !== 0) report(host, frame, call, placed, undefined);
      return;
    }
    const list = unparen(ids);
    if (list.type !== 'list' && list.type !== 'tuple') return;
    const items = children(list).filter((c) => c.type !== ',' && c.type !== '[' && c.type !== ']' && c.type !== '(' && c.type !== ')');
    const indices = items.map((item) => literalIndex(host.program, frame.unit, item));
    if (indices.length === 0 || indices[0] === undefined || indices[0] === placed.index) return;
    report(host, frame, call, placed, { list, items, indices });
  },
});

interface Placed {
  index: number;
  /** Where the model was put there. */
  at: Node;
}

/** A GPU index the expression spells out: `1`, `"cuda:1"`, `torch.device("cuda:1")`, `torch.device("cuda", 1)`; "cuda" alone is 0. */
function literalIndex(program: Program, unit: number, node: Node): number | undefined {
  const n = unparen(node);
  if (isNumberLiteral(n) && /^\d+$/.test(n.text)) return Number(n.text);
  const s = stringLiteralValue(n);
  if (s !== undefined) {
    const m = /^cuda(?::(\d+))?$/.exec(s);
    return m ? Number(m[1] ?? 0) : undefined;
  }
  if (n.type !== 'call') return undefined;
  const callee = field(n, 'function');
  if (!callee || program.importsAt(unit).qualify(callee) !== 'torch.device') return undefined;
  const args = callArguments(n);
  const first = args.positional[0] ? stringLiteralValue(args.positional[0]) : undefined;
  if (first === 'cuda' && args.positional[1] && isNumberLiteral(args.positional[1])) return Number(args.positional[1].text);
  return args.positional.length === 1 ? literalIndex(program, unit, args.positional[0]) : undefined;
}

/** The index a device expression names, following a variable to its last literal assignment in the scope. */
function deviceIndex(program: Program, frame: Frame, node: Node, before: Node): number | undefined {
  const n = unparen(node);
  if (n.type !== 'identifier') return literalIndex(program, frame.unit, n);
  let value: Node | undefined;
  for (const s of indexOf(scopeOf(frame)).assignments) {
    if (s.startIndex >= before.startIndex) break;
    if (unparen(field(s, 'left') ?? s).text === n.text) value = field(s, 'right') ?? undefined;
  }
  return value ? literalIndex(program, frame.unit, value) : undefined;
}

function scopeOf(frame: Frame): Node {
  return frame.fn ? frame.fn.body : frame.scopeNode;
}

/** A scope's assignments and `.to(...)` / `.cuda(...)` calls, in source order. */
interface ScopeIndex {
  assignments: Node[];
  moves: Node[];
}

// Per scope, once: each DataParallel call and each move it follows would scan the scope again
// (a 13,000-line module of them took seconds).
const scopeIndexes = new WeakMap<Node, ScopeIndex>();

function indexOf(scope: Node): ScopeIndex {
  let index = scopeIndexes.get(scope);
  if (index) return index;
  index = { assignments: [], moves: [] };
  for (const n of bodyNodes(scope)) {
    if (n.type === 'assignment') index.assignments.push(n);
    else if (n.type === 'call') {
      const callee = field(n, 'function');
      const method = callee?.type === 'attribute' ? field(callee, 'attribute')?.text : undefined;
      if (method === 'to' || method === 'cuda') index.moves.push(n);
    }
  }
  scopeIndexes.set(scope, index);
  return index;
}

/** `.to(d)` / `.cuda(n)` on `target` (or as the expression itself): the index it moves to. */
function moveIndex(program: Program, frame: Frame, call: Node, before: Node): number | undefined {
  const callee = field(call, 'function');
  if (callee?.type !== 'attribute') return undefined;
  const method = field(callee, 'attribute')?.text;
  const args = callArguments(call);
  if (method === 'cuda') return args.positional[0] ? deviceIndex(program, frame, args.positional[0], before) : undefined;
  if (method !== 'to') return undefined;
  const target = args.keywords.get('device') ?? args.positional[0];
  return target ? deviceIndex(program, frame, target, before) : undefined;
}

/** Where the wrapped model is: moved inside the argument, or by the scope's last move of that name before the wrap. */
function modelIndex(program: Program, frame: Frame, wrap: Node, module: Node): Placed | undefined {
  const m = unparen(module);
  if (m.type === 'call') {
    const index = moveIndex(program, frame, m, wrap);
    return index === undefined ? undefined : { index, at: m };
  }
  if (m.type !== 'identifier') return undefined;
  let found: Placed | undefined;
  for (const n of indexOf(scopeOf(frame)).moves) {
    if (n.startIndex >= wrap.startIndex) break;
    const callee = field(n, 'function');
    if (callee?.type !== 'attribute' || unparen(field(callee, 'object')!).text !== m.text) continue;
    const method = field(callee, 'attribute')?.text;
    if (method !== 'to' && method !== 'cuda') continue;
    const index = moveIndex(program, frame, n, wrap);
    found = index === undefined ? undefined : { index, at: n };
  }
  return found;
}

interface IdList {
  list: Node;
  items: Node[];
  indices: Array<number | undefined>;
}

function report(host: RuleHost, frame: Frame, call: Node, placed: Placed, ids: IdList | undefined): void {
  const wrap = shortText(field(call, 'function') ?? call, 30);
  const what = ids ? `its device_ids start at cuda:${ids.indices[0]}` : 'no device_ids are given, so it takes every GPU starting at cuda:0';
  host.report({
    unit: frame.unit,
    code: 'DD023',
    node: ids ? ids.list : call,
    message: ruleMessage(() => ({
      problem: `The model is on cuda:${placed.index}, not on device_ids[0]`,
      action: `pass device_ids=[${placed.index}, …]`,
      why: `\`${wrap}\` needs the model on device_ids[0], and ${what}, but the model is on cuda:${placed.index} ` +
        `(line ${placed.at.startPosition.row + 1}): the first forward raises "module must have its parameters and buffers on device ` +
        `cuda:${ids ? ids.indices[0] : 0} (device_ids[0]) but found one of them on device: cuda:${placed.index}".`,
    })),
    related: host.related({ unit: frame.unit, node: placed.at }, `the model is put on cuda:${placed.index} here`),
    fixes: ids ? reorder(frame.unit, ids, placed.index) : fromModelGpu(host.program, frame.unit, call, placed.index),
  });
}

/**
 * No device_ids: `device_ids=list(range(1, torch.cuda.device_count()))`, the model's GPU
 * and every later one, which is what the default meant from cuda:1 on. Needs `torch`
 * bound in the unit; a call that spreads arguments is left alone.
 */
function fromModelGpu(program: Program, unit: number, call: Node, index: number): Fix[] {
  const imports = program.importsAt(unit);
  const torch = [...imports.names()].find((name) => imports.qualifyName(name) === 'torch');
  const args = field(call, 'arguments');
  const last = args ? children(args).filter((c) => c.type !== '(' && c.type !== ')' && c.type !== ',').pop() : undefined;
  if (!torch || !last) return [];
  const text = `device_ids=list(range(${index}, ${torch}.cuda.device_count()))`;
  return [{
    title: `Pass ${text}`,
    edits: [{ range: { start: { line: last.endPosition.row, character: last.endPosition.column }, end: { line: last.endPosition.row, character: last.endPosition.column } }, newText: `, ${text}`, cellIndex: unit }],
    preferred: true,
  }];
}

/** `[0, 1]` with the model on cuda:1 → `[1, 0]`: the model's GPU first, the others in their order. */
function reorder(unit: number, ids: IdList, index: number): Fix[] {
  const at = ids.indices.indexOf(index);
  if (at < 0 || ids.indices.some((i) => i === undefined)) return [];
  const ordered = [ids.items[at], ...ids.items.filter((_, i) => i !== at)].map((n) => n.text);
  const open = ids.list.type === 'list' ? '[' : '(';
  const close = ids.list.type === 'list' ? ']' : (ordered.length === 1 ? ',)' : ')');
  const l = ids.list;
  return [{
    title: `Start device_ids with ${ids.items[at].text}, the model's GPU`,
    edits: [{ range: { start: { line: l.startPosition.row, character: l.startPosition.column }, end: { line: l.endPosition.row, character: l.endPosition.column } }, newText: `${open}${ordered.join(', ')}${close}`, cellIndex: unit }],
    preferred: true,
  }];
}
