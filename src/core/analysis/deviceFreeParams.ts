// Which parameters of a function may arrive on any device, read from what its body does with
// them: a model's `forward(self, ids, lengths)` that only hands `lengths` to
// `pack_padded_sequence` (which demands CPU lengths) or reads it back into Python is called
// correctly with CPU lengths beside inputs on the GPU. The caller's argument is then no
// operand that must meet the model; calling `.to(device)` on it would break the code.
import type { Node } from '../python/pyNode';
import { callArguments, children, field, unparen } from '../python/syntax';
import type { CallArguments } from '../python/syntax';
import type { FunctionInfo, Program } from './program';
import { argumentsOnAnyDevice, INPUT_SCATTERING_WRAPPERS } from './torchApi';
import { collectTargets, UNPACKING_TARGETS } from './scopeScan';
import { programClassesOf, type Value } from './values';

/** Methods whose result is on the CPU (or no tensor) wherever the receiver is. */
const LEAVES_DEVICE = new Set(['cpu', 'tolist', 'item', 'size', 'dim', 'numel']);
/** Methods whose result keeps (or chooses) its place without meeting anything: followed to where it goes. */
const PASSES_THROUGH = new Set(['long', 'int', 'to', 'type', 'squeeze', 'view', 'reshape', 'flatten', 'contiguous', 'clone', 'detach']);
/** Builtins that read a tensor's shape or values into Python. */
const READS_INTO_PYTHON = new Set(['len', 'int']);

type Qualify = (callee: Node) => string | undefined;

/** Functions that make a tensor from the data they are given, where `device=` says (else the CPU). */
const TENSOR_FROM_DATA = new Set(['torch.as_tensor', 'torch.tensor', 'torch.Tensor', 'torch.FloatTensor', 'torch.LongTensor', 'torch.from_numpy']);

/** A torch dtype (`torch.float32`, `torch.long`): `.to(torch.float32)` changes no place. */
const DTYPE = /^torch\.(?:float|double|half|bfloat16|int|long|short|bool|uint8|int8|int16|int32|int64|float16|float32|float64|complex64|complex128|cfloat|cdouble)$/;

/**
 * `x.to(device)`, `x.to(other)`, `x.cuda()`: the call puts the tensor on a device of the code's
 * choosing, so where the caller's tensor was decides nothing from there on. `x.to(torch.float32)`
 * or `x.to(dtype)` chooses none.
 */
function choosesDevice(method: string, call: Node, qualify: Qualify): boolean {
  if (method === 'cuda') return true;
  if (method !== 'to') return false;
  const args = callArguments(call);
  if (args.keywords.has('device')) return true;
  const first = args.positional[0];
  if (!first || args.hasSplat) return false;
  if (first.type === 'string') return true;
  if (first.type === 'identifier' && /dtype/i.test(first.text)) return false;
  return !DTYPE.test(qualify(first) ?? '');
}

/**
 * The arguments of a call of one of the program's modules that its class's forward only hands
 * to an API taking them on any device (pack_padded_sequence's CPU lengths) or reads into
 * Python: their device is no mismatch with the model's.
 */
export function forwardFreeArguments(program: Program, callee: Value, args: CallArguments, freeOf: FreeForwardParams = freeForwardParams): ReadonlySet<Node> {
  const classes = callee.kind === 'module' ? programClassesOf(callee) : [];
  if (!classes.length || args.hasSplat) return NONE;
  // A model chosen between classes: an argument is free when every forward leaves it so.
  return classes.map((c) => freeArgumentsOf(program, c, args, freeOf)).reduce((a, b) => new Set([...a].filter((n) => b.has(n))));
}

/** The device-free parameters of a class's forward; the interpreter passes a taped read of it. */
export type FreeForwardParams = (program: Program, className: string) => ReadonlySet<string>;

/** The parameters of `className`'s forward that may arrive on any device (none when it has no forward). */
export function freeForwardParams(program: Program, className: string): ReadonlySet<string> {
  const forward = program.methodOf(className, 'forward');
  if (!forward?.selfName) return NONE_NAMES;
  const imports = program.importsAt(forward.unit);
  return deviceFreeParams(forward, imports, (n) => imports.qualify(n), partForward(program));
}

const NONE_NAMES: ReadonlySet<string> = new Set();

function freeArgumentsOf(program: Program, className: string, args: CallArguments, freeOf: FreeForwardParams): ReadonlySet<Node> {
  const forward = program.methodOf(className, 'forward');
  if (!forward?.selfName) return NONE;
  const free = freeOf(program, className);
  if (free.size === 0) return NONE;
  const params = forward.params.slice(1);
  const out = new Set<Node>();
  args.positional.forEach((n, i) => {
    if (params[i] && !params[i].variadic && free.has(params[i].name)) out.add(n);
  });
  for (const [k, n] of args.keywords) if (free.has(k)) out.add(n);
  return out;
}

const NONE: ReadonlySet<Node> = new Set();

const KNOWN = new WeakMap<Node, WeakMap<object, Set<string>>>();

/**
 * The parameters of `fn` (not its `self`, not `*args`/`**kwargs`) whose every use in the body
 * leaves the device of what the caller passed without effect. `imports` keys the cache: the
 * same definition under other imports may call other functions.
 */
export function deviceFreeParams(fn: FunctionInfo, imports: object, qualify: Qualify, part?: PartMethod): ReadonlySet<string> {
  let byImports = KNOWN.get(fn.node);
  if (!byImports) KNOWN.set(fn.node, (byImports = new WeakMap()));
  let found = byImports.get(imports);
  if (!found) {
    // Set before reading: a method reached again through its parts (a cycle) frees nothing.
    byImports.set(imports, (found = new Set()));
    for (const name of readDeviceFreeParams(fn, qualify, part)) found.add(name);
  }
  return found;
}

/**
 * The method of the program's module class kept as `self.<attr>` in `fn`'s class that
 * `self.<attr>(...)` (its forward) or `self.<attr>.<method>(...)` runs.
 */
export type PartMethod = (fn: FunctionInfo, attr: string, method: string) => { fn: FunctionInfo; imports: object; qualify: Qualify } | 'scatters' | undefined;

/** A submodule's method, by the class its owner's methods build it from (`self.wordrep = WordRep(...)`). */
function partForward(program: Program): PartMethod {
  return (fn, attr, method) => {
    const owner = fn.className ? program.classes.get(fn.className) : undefined;
    if (!owner) return undefined;
    for (const m of owner.methods.values()) {
      // `self.encoder = nn.DataParallel(self.encoder)`: the wrapper scatters what it is given onto its GPUs.
      const assigned = [...m.node.text.matchAll(new RegExp(`\\bself\\.${attr}\\s*=\\s*([A-Za-z_][\\w.]*)\\s*\\(`, 'g'))].map((a) => a[1]!);
      if (method === 'forward' && assigned.some((callee) => INPUT_SCATTERING_WRAPPERS.has(qualifiedDotted(program, m.unit, callee) ?? ''))) return 'scatters';
      const built = new RegExp(`\\bself\\.${attr}\\s*=\\s*([A-Za-z_]\\w*)\\s*\\(`).exec(m.node.text)?.[1];
      const cls = built ? program.localClass(m.unit, built) ?? memberClass(program, m.unit, built) : undefined;
      const target = cls?.isModule ? program.methodOf(cls.key, method) : undefined;
      if (!target) continue;
      const imports = program.importsAt(target.unit);
      return { fn: target, imports, qualify: (n: Node) => imports.qualify(n) };
    }
    return undefined;
  };
}

/** `nn.DataParallel` as its module names it: `torch.nn.DataParallel`. */
function qualifiedDotted(program: Program, unit: number, dotted: string): string | undefined {
  const [head, ...rest] = dotted.split('.');
  const q = program.importsAt(unit).qualifyName(head!);
  return q === undefined ? undefined : [q, ...rest].join('.');
}

function memberClass(program: Program, unit: number, name: string) {
  const q = program.importsAt(unit).qualifyName(name);
  const member = q ? program.member(unit, q) : undefined;
  return member?.kind === 'class' ? member.cls : undefined;
}

function readDeviceFreeParams(fn: FunctionInfo, qualify: Qualify, part?: PartMethod): Set<string> {
  const names = new Set(fn.params.filter((p) => !p.variadic && p.name !== fn.selfName).map((p) => p.name));
  const uses = new Map<string, Node[]>();
  collectUses(fn.body, names, uses);
  const free = new Set<string>();
  for (const [name, nodes] of uses) {
    // After `x = x.to(device)` as a statement of the body itself, `x` names another value.
    const rebound = reboundAt(fn.body, name);
    const own = rebound === undefined ? nodes : nodes.filter((n) => n.startIndex < rebound);
    if (own.every((n) => isDeviceFreeUse(n, qualify) || passedToFreePart(fn, n, part))) free.add(name);
  }
  return free;
}

/** Where the first statement of `body` itself (not a branch or loop) that assigns `name` (alone or unpacked: `out, lens = ...`) ends. */
function reboundAt(body: Node, name: string): number | undefined {
  for (const statement of children(body)) {
    const assignment = statement.type === 'expression_statement' ? children(statement)[0] : undefined;
    const left = assignment?.type === 'assignment' ? field(assignment, 'left') : null;
    if (left && bindsName(left, name)) return statement.endIndex;
  }
  return undefined;
}

function bindsName(target: Node, name: string): boolean {
  const names = new Set<string>();
  collectTargets(target, names);
  return names.has(name);
}

/**
 * `self.wordrep(words, lengths)` where WordRep's forward takes `lengths` on any device (it
 * reads them into NumPy): handed on to a submodule at a parameter that is free there.
 */
function passedToFreePart(fn: FunctionInfo, use: Node, part?: PartMethod): boolean {
  if (!part || !fn.selfName) return false;
  const list = use.parent;
  const call = list?.type === 'argument_list' ? list.parent : undefined;
  const callee = call?.type === 'call' ? field(call, 'function') : undefined;
  if (!call || callee?.type !== 'attribute') return false;
  const object = field(callee, 'object');
  const name = field(callee, 'attribute')?.text;
  let attr: string | undefined;
  let method = 'forward';
  if (object?.type === 'identifier' && object.text === fn.selfName) attr = name;
  else if (object?.type === 'attribute' && field(object, 'object')?.text === fn.selfName) [attr, method] = [field(object, 'attribute')?.text, name ?? 'forward'];
  const target = attr ? part(fn, attr, method) : undefined;
  if (target === 'scatters') return true;
  if (!target?.fn.selfName) return false;
  const args = callArguments(call);
  const i = args.positional.findIndex((n) => n === use);
  if (i < 0 || args.hasSplat) return false;
  const param = target.fn.params.slice(1)[i];
  return !!param && !param.variadic && deviceFreeParams(target.fn, target.imports, target.qualify, part).has(param.name);
}

/** Each identifier in `node` that reads one of `names` (not an attribute's name, not a keyword's). */
function collectUses(root: Node, names: Set<string>, out: Map<string, Node[]>): void {
  // Without recursion: deeply nested code must not overflow the stack. Reverse pushes keep source order.
  const stack: Node[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type === 'identifier') {
      if (!names.has(node.text) || isNameOnly(node)) continue;
      const list = out.get(node.text) ?? [];
      list.push(node);
      out.set(node.text, list);
      continue;
    }
    const kids = children(node);
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]!);
  }
}

/** Not a read of the parameter's value: an attribute's or keyword's name, or a rebinding (`lengths = ...`, `out, lengths = ...`). */
function isNameOnly(id: Node): boolean {
  const p = id.parent;
  if (!p) return false;
  return (p.type === 'attribute' && field(p, 'attribute') === id) || (p.type === 'keyword_argument' && field(p, 'name') === id)
    || (p.type === 'assignment' && field(p, 'left') === id) || isUnpackedInto(id);
}

/**
 * `lengths` in `pack_padded_sequence(x, lengths)`, `lengths.cpu()`, `lengths.long().to("cpu")`,
 * `len(lengths)`: the parameter's device decides nothing there. Any other use (an operand, an
 * assignment target, an argument to another function) may meet other tensors.
 */
function isDeviceFreeUse(use: Node, qualify: Qualify): boolean {
  let expr: Node = use;
  for (;;) {
    const p = expr.parent;
    if (!p) return false;
    if (p.type === 'parenthesized_expression') {
      expr = p;
      continue;
    }
    const method = p.type === 'attribute' && field(p, 'object') === expr ? field(p, 'attribute')?.text : undefined;
    const methodCall = method !== undefined && p.parent?.type === 'call' && field(p.parent, 'function') === p ? p.parent : undefined;
    if (methodCall && method !== undefined) {
      if (LEAVES_DEVICE.has(method) || choosesDevice(method, methodCall, qualify)) return true;
      if (!PASSES_THROUGH.has(method)) return false;
      expr = methodCall;
      continue;
    }
    if (p.type === 'attribute' && (method === 'shape' || method === 'device' || method === 'dtype')) return true;
    // `torch.as_tensor(x, dtype=torch.float32).to(device)`: the wrapper's result is followed.
    const wrapper = p.type === 'argument_list' && p.parent?.type === 'call' && callArguments(p.parent).positional[0] === expr ? p.parent : undefined;
    if (wrapper && TENSOR_FROM_DATA.has(qualify(field(wrapper, 'function')!) ?? '')) {
      if (callArguments(wrapper).keywords.has('device')) return true;
      expr = wrapper;
      continue;
    }
    // `if lengths is None:` reads no tensor.
    if (p.type === 'comparison_operator' && children(p).length === 2 && children(p).some((c) => c.type === 'none')) return true;
    return isFreeArgument(expr, qualify);
  }
}

/** `expr` is an argument of a call: of a builtin that reads it into Python, or at a position the callee takes on any device. */
function isFreeArgument(expr: Node, qualify: Qualify): boolean {
  const list = expr.parent;
  const argument = list?.type === 'keyword_argument' ? list : expr;
  const argList = argument.parent;
  const call = argList?.type === 'argument_list' ? argList.parent : undefined;
  if (!call || call.type !== 'call') return false;
  const callee = field(call, 'function');
  if (!callee) return false;
  if (callee.type === 'identifier' && READS_INTO_PYTHON.has(callee.text) && argument === expr) return true;
  const q = qualify(callee);
  const free = q ? argumentsOnAnyDevice(q) : undefined;
  if (!free) return false;
  const args = callArguments(call);
  if (argument !== expr) {
    const name = field(argument, 'name')?.text;
    return name !== undefined && free.keywords.includes(name);
  }
  const i = args.positional.findIndex((n) => unparen(n) === unparen(expr));
  return i >= 0 && !args.hasSplat && free.positions.includes(i);
}

/** `out, lengths = pad_packed_sequence(...)`: the name is one of the targets an assignment unpacks into. */
function isUnpackedInto(id: Node): boolean {
  let n: Node = id;
  while (n.parent && UNPACKING_TARGETS.has(n.parent.type)) n = n.parent;
  return n !== id && n.parent?.type === 'assignment' && field(n.parent, 'left') === n;
}

