// DD005 hard-coded-accelerator: `.cuda()`, `torch.device("cuda")`, `device="cuda"`,
// `.to("cuda")` in a file that never asks whether CUDA is there and takes no device from
// configuration: it stops on every machine without an NVIDIA GPU. Also where the
// interpreter never runs: a class body (runs at import), a parameter's default
// `device="cuda:0"`, a `--gpu` option on by default. One finding per file, at the first
// place, naming the others: they are one decision, which one fix makes at every place.
// Files that are CUDA code by design (triton, a CUDA extension, set_device in a DDP
// launcher, NCCL, CUDA streams or events) stay silent.
import type { Node } from '../../python/pyNode';
import { cudaHardcodeIn, isCudaLiteral, underDeviceCondition } from '../../python/cudaHardcode';
import { callArguments, children, descendants, field, methodCalledOnSelf, nodeRange, stringLiteralValue } from '../../python/syntax';
import type { DeviceChoice, FunctionInfo, ProgramView, RuleFrame as Frame, Rule, RuleHost, UnitFinding } from '../ruleApi';
import { DISTRIBUTED_COLLECTIVES } from '../torchApi';
import type { Fix, Range, TextEdit } from '../types';
import { calledAs, callerPosition, callsNamed, passesParameter } from './shared/callSites';
import { shortText } from './shared/describe';
import { inGpuOnlyTest } from './shared/gpuOnlyTest';
import { HardcodeFixer, type CudaPlace, type PlaceFixes } from './shared/hardcodeFixes';

/** Methods a class defines to move itself, as torch.nn.Module's do. */
const MOVE_METHODS = new Set(['cuda', 'to', 'gpu', 'to_device', 'to_cuda']);

/** How many of the other places the message lists by line (all are related locations). */
const LISTED = 5;

export const hardCodedAccelerator: Rule = (host) => {
  const places: CudaPlace[] = [];
  const seen = new Set<number>();
  let finding: UnitFinding | undefined;
  const add = (place: CudaPlace) => {
    const node = placeNode(place);
    if (seen.has(node.id)) return;
    seen.add(node.id);
    if (suppressedByNoqa(host, place.unit, node)) return;
    places.push(place);
    places.sort((a, b) => a.unit - b.unit || placeNode(a).startIndex - placeNode(b).startIndex);
    const next = perFileFinding(host, places);
    if (!finding) host.report((finding = next));
    else Object.assign(finding, next);
  };
  // Places the interpreter never runs are known before any event: reported when the round starts.
  const statics = staticPlaces(host.deviceChoice());
  // Walks the whole program: only where a CUDA default is there to judge.
  const overridden = statics.some((s) => s.kind === 'parameter default')
    ? host.programFact('DD005 device defaults every call overrides', defaultsEveryCallOverrides) : new Set<number>();
  for (const s of statics) {
    // A default its function never reads makes a device object only; a class body runs the
    // defaults of its methods' parameters at import.
    const node = s.kind === 'call' ? s.call : s.kind === 'parameter default' ? s.literal : undefined;
    if (node && inUnreadParameterDefault(node)) continue;
    if (s.kind !== 'parameter default' || !overridden.has(s.literal.id)) add(s);
  }
  return {
    call: (frame, call, qualified) => {
      const choice = host.deviceChoice();
      const found = cudaHardcodeIn(call, qualified);
      if (callsQuiet(choice) || inGpuOnlyTest(call) || underDeviceCondition(call)) return;
      // `def cuda(self): self.criterion.cuda()`: the class's own move, which its callers make
      // when they choose to; the choice is theirs, not this method's.
      if (frame.fn?.selfName && MOVE_METHODS.has(frame.fn.name)) return;
      if (inUnreadParameterDefault(call)) return;
      if (found && callsOwnMoveMethod(host, frame, call)) return;
      if (found) {
        if (!feedsCollective(host, frame, call)) add({ kind: 'call', unit: frame.unit, call, hardcode: found });
      } else {
        const literal = cudaVariable(host, frame, call, qualified);
        if (literal && !feedsCollective(host, frame, call)) add({ kind: 'variable', unit: literal.unit, literal: literal.node });
      }
    },
  };
};

/** `self.cuda(*items)` in a plain class (no nn.Module) that defines `cuda`: its own method, moving to a device it chooses. */
function callsOwnMoveMethod(host: RuleHost, frame: Frame, call: Node): boolean {
  const method = methodCalledOnSelf(call, frame.fn?.selfName);
  return !!method && host.programFact('move methods plain classes define', ownMoveMethods).has(`${frame.fn!.className}.${method}`);
}

function ownMoveMethods(program: ProgramView): Set<string> {
  const out = new Set<string>();
  for (const cls of program.classes.values()) {
    for (const method of MOVE_METHODS) if (program.ownsMoveMethod(cls.key, method)) out.add(`${cls.key}.${method}`);
  }
  return out;
}

/** The file is CUDA code by design: nothing in it is a portability slip. */
function cudaByDesign(choice: DeviceChoice): boolean {
  return !!(choice.availabilityCheck || choice.cudaOnly || choice.cudaMachinery);
}

/** Calls stay quiet also where the device comes from the user (an option) or the caller (a parameter not defaulting to CUDA). */
function callsQuiet(choice: DeviceChoice): boolean {
  return cudaByDesign(choice) || !!choice.deviceOption || !!choice.deviceParameter;
}

/** CUDA named where the interpreter never runs (cudaFacts.ts), each judged as its kind needs. */
function staticPlaces(choice: DeviceChoice): CudaPlace[] {
  if (cudaByDesign(choice)) return [];
  const out: CudaPlace[] = [];
  for (const s of choice.staticCuda ?? []) {
    if (s.where === 'class body' && !callsQuiet(choice) && !inGpuOnlyTest(s.call) && !underDeviceCondition(s.call)) {
      out.push({ kind: 'call', unit: s.unit, call: s.call, hardcode: s.hardcode });
    } else if (s.where === 'parameter default' && !choice.deviceOption && !inGpuOnlyTest(s.literal)) {
      out.push({ kind: 'parameter default', unit: s.unit, literal: s.literal });
    } else if (s.where === 'option default' && !choice.cudaAnyway) {
      out.push({ kind: 'option default', unit: s.unit, value: s.value });
    }
  }
  return out;
}

/**
 * The CUDA defaults (`def sampler(..., device='cuda')`, by the default's node id) that every
 * call of their function in the program replaces (`sampler(..., device=config.device)`): the
 * default never runs. A function the program never calls keeps its finding (its callers are
 * elsewhere), and so does one with a call that may leave it out (`*args`, `**kw`, too few).
 */
function defaultsEveryCallOverrides(program: ProgramView, choice: DeviceChoice): Set<number> {
  // The defaults cudaFacts found, each with its function's parameters as the program reads them.
  const wanted = new Map<string, Array<{ id: number; param: string; position: number }>>();
  const methods = new Set<string>();
  for (const s of choice.staticCuda ?? []) {
    const fn = s.where === 'parameter default' ? program.functionDefinedBy(s.literal.parent?.parent?.parent ?? s.literal) : undefined;
    const param = s.where === 'parameter default' ? field(s.literal.parent ?? s.literal, 'name')?.text : undefined;
    if (!fn || !param || s.where !== 'parameter default') continue;
    const name = calledAs(program, fn);
    if (fn.className !== undefined && fn.name !== '__init__') methods.add(name);
    wanted.set(name, [...(wanted.get(name) ?? []), { id: s.literal.id, param, position: callerPosition(fn, param) }]);
  }
  const out = new Set<number>();
  const calls = callsNamed(program, new Set(wanted.keys()), program.units, methods);
  for (const [name, defaults] of wanted) {
    const sites = calls.get(name) ?? [];
    for (const d of defaults) {
      // A call through `*args`/`**kwargs` may leave the default: the advice stands.
      if (sites.length > 0 && sites.every((call) => passesParameter(call, d.param, d.position, false))) out.add(d.id);
    }
  }
  return out;
}

/** `node` is (inside) the default of a parameter its function never reads: `where=torch.device("cuda:0")`. */
function inUnreadParameterDefault(node: Node): boolean {
  let parameter: Node | null = node;
  while (parameter && parameter.type !== 'default_parameter' && parameter.type !== 'typed_default_parameter') {
    if (parameter.type === 'block' || parameter.type === 'function_definition' || parameter.type === 'lambda') return false;
    parameter = parameter.parent;
  }
  const definition = parameter?.parent?.parent;
  const name = parameter ? field(parameter, 'name') : null;
  const body = definition?.type === 'function_definition' ? field(definition, 'body') : null;
  return !!name && name.type === 'identifier' && !!body && !readsName(body, name.text);
}

/** An identifier reads `name` somewhere in `root` (not an attribute's or a keyword's name). */
function readsName(root: Node, name: string): boolean {
  const stack: Node[] = [root];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.type === 'identifier' && n.text === name) {
      const p = n.parent;
      const nameOnly = (p?.type === 'attribute' && field(p, 'attribute') === n) || (p?.type === 'keyword_argument' && field(p, 'name') === n);
      if (!nameOnly) return true;
    }
    stack.push(...children(n));
  }
  return false;
}

/**
 * A function that also calls a collective (`torch.distributed.broadcast(order)` after
 * `order = torch.randperm(n).cuda()`), itself or through the project's own thin wrapper
 * (`all_reduce(buffer)` of a `def all_reduce(t): return dist.all_reduce(t)`), shares tensors
 * between GPU processes: CUDA is what the NCCL backend requires there, not a portability slip.
 */
function feedsCollective(host: RuleHost, frame: Frame, call: Node): boolean {
  const fn = frame.fn;
  if (!fn) return false;
  if (callsCollective(host.program.importsAt(frame.unit), fn.body, (callee) => callee.parent?.id !== call.id)) return true;
  // The wrappers are a fact of the program's text, so a keystroke elsewhere still replays this run.
  return host.programFact('DD005 functions reaching a collective through a wrapper', wrapperCallers).has(functionKey(fn));
}

function functionKey(fn: FunctionInfo): string {
  return `${fn.unit}:${fn.className ?? ''}.${fn.name}`;
}

/** Some call under `root` (other than those `include` rejects) is a torch.distributed collective. */
function callsCollective(imports: ReturnType<ProgramView['importsAt']>, root: Node, include: (callee: Node) => boolean = () => true): boolean {
  return descendants(root).some((n) => {
    const callee = n.type === 'call' ? field(n, 'function') : null;
    return !!callee && include(callee) && DISTRIBUTED_COLLECTIVES.has(imports.qualify(callee) ?? '');
  });
}

/** The program's functions (module level and methods) that call a project function whose own body calls a collective. */
function wrapperCallers(program: ProgramView): Set<string> {
  const functions = [...program.modules.flatMap((m) => [...m.topFunctions.values()]), ...[...program.classes.values()].flatMap((c) => [...c.methods.values()])];
  const wrappers = new Set(functions.filter((f) => callsCollective(program.importsAt(f.unit), f.body)).map(functionKey));
  const out = new Set<string>();
  if (!wrappers.size) return out;
  for (const fn of functions) {
    const reaches = descendants(fn.body).some((n) => {
      const callee = n.type === 'call' ? field(n, 'function') : null;
      const target = callee ? projectFunction(program, fn.unit, callee) : undefined;
      return !!target && wrappers.has(functionKey(target));
    });
    if (reaches) out.add(functionKey(fn));
  }
  return out;
}

/** `helper(...)` of a module-level `def helper` in the same file, or `utils.helper(...)` of an imported one. */
function projectFunction(program: ProgramView, unit: number, callee: Node): FunctionInfo | undefined {
  const own = callee.type === 'identifier' ? program.modules[program.units[unit]?.module ?? 0]?.topFunctions.get(callee.text) : undefined;
  if (own) return own;
  const qualified = program.importsAt(unit).qualify(callee);
  const member = qualified ? program.member(unit, qualified) : undefined;
  return member?.kind === 'function' ? member.fn : undefined;
}

/**
 * `# noqa` or `# noqa: DD005` on a place's line leaves that place out (the finding is
 * reported once per file, so the comment must not silence the file's other places).
 */
function suppressedByNoqa(host: RuleHost, unit: number, node: Node): boolean {
  // A fact of the whole file (host.programFact), so the runs that add places still replay after an edit.
  return host.programFact('DD005 lines with a noqa for it', noqaLines).has(`${unit}:${node.startPosition.row}`);
}

/** `unit:row` of every line whose `# noqa` covers DD005. */
function noqaLines(program: ProgramView): Set<string> {
  const out = new Set<string>();
  for (const unit of program.units) {
    unit.lines.forEach((line, row) => {
      const m = /#\s*noqa\b(?::\s*([\w\s,]+))?/i.exec(line);
      if (m && (!m[1] || m[1].split(/[\s,]+/).some((code) => code !== '' && 'DD005'.startsWith(code.toUpperCase())))) out.add(`${unit.index}:${row}`);
    });
  }
  return out;
}

function placeNode(place: CudaPlace): Node {
  if (place.kind === 'call') return place.hardcode.kind === 'literal' ? place.hardcode.literal : place.call;
  return place.kind === 'option default' ? place.value : place.literal;
}

/**
 * `.to(device)`, `device=device`, `torch.device(device)` where `device` is a module-level
 * name bound once, to a "cuda" string (`device = "cuda"` in a script's settings): the
 * assignment's literal is the place that hard-codes CUDA.
 */
function cudaVariable(host: RuleHost, frame: Frame, call: Node, qualified: string | undefined): { unit: number; node: Node } | undefined {
  const callee = field(call, 'function');
  const args = callArguments(call);
  const isTo = callee?.type === 'attribute' && field(callee, 'attribute')?.text === 'to' && !qualified?.startsWith('torch');
  const arg = args.keywords.get('device') ?? (isTo || qualified === 'torch.device' ? args.positional[0] : undefined);
  if (arg?.type !== 'identifier') return undefined;
  const v = frame.env.get(arg.text) ?? frame.outer?.get(arg.text);
  if (v?.kind !== 'device' || !v.deviceText || !/^["']cuda(:\d+)?["']$/.test(v.deviceText)) return undefined;
  const bindings: Array<{ unit: number; node: Node }> = [];
  for (const unit of host.program.units) {
    if (unit.module !== 0) continue;
    for (const stmt of children(unit.root)) {
      const assignment = stmt.type === 'expression_statement' ? children(stmt)[0] : undefined;
      if (assignment?.type !== 'assignment' || field(assignment, 'left')?.text !== arg.text) continue;
      const right = field(assignment, 'right');
      if (right) bindings.push({ unit: unit.index, node: right });
    }
  }
  if (bindings.length === 1) return isCudaLiteral(bindings[0].node) ? bindings[0] : undefined;
  return bindings.length === 0 ? host.programFact(`DD005 the one literal bound to ${arg.text}`, (program) => oneLiteralBinding(program, arg.text)) : undefined;
}

/**
 * Inside functions: the one string literal the file assigns to `name` or to an attribute
 * `name` (`device = "cuda"` in `main()`, `args.device = "cuda"` before `train(args)`), when
 * that is CUDA; other assignments may only alias it (`device = args.device`), not name
 * another string (`device = "cpu"` elsewhere: a choice, not a hard-code).
 */
function oneLiteralBinding(program: ProgramView, name: string): { unit: number; node: Node } | undefined {
  const literals: Array<{ unit: number; node: Node }> = [];
  for (const unit of program.units) {
    if (unit.module !== 0) continue;
    const stack: Node[] = [unit.root];
    while (stack.length) {
      const n = stack.pop()!;
      stack.push(...children(n));
      const left = n.type === 'assignment' ? field(n, 'left') : null;
      const target = left?.type === 'attribute' ? field(left, 'attribute')?.text : left?.text;
      const right = field(n, 'right');
      if (target === name && right && stringLiteralValue(right) !== undefined) literals.push({ unit: unit.index, node: right });
    }
  }
  return literals.length === 1 && isCudaLiteral(literals[0]!.node) ? literals[0] : undefined;
}

/** How a place reads in a message (`brief`: without where it is, for the first sentence). */
function describe(place: CudaPlace, brief = false): string {
  switch (place.kind) {
    case 'option default': return `\`${optionName(place.value)}\` on by default`;
    case 'parameter default': return `the default \`${shortText(place.literal.parent ?? place.literal, 30)}\``;
    case 'variable': return `\`${shortText(place.literal.parent ?? place.literal, 30)}\``;
    case 'call': {
      const what = `\`${shortText(place.hardcode.kind === 'literal' ? place.hardcode.literal : place.call, 28)}\``;
      return !brief && inClassBody(place.call) ? `${what} in a class body` : what;
    }
  }
}

function optionName(value: Node): string {
  const call = value.parent?.parent;
  const first = call ? children(field(call, 'arguments') ?? call)[0] : undefined;
  return first?.type === 'string' ? first.text.replace(/^['"]+|['"]+$/g, '') : 'the option';
}

function inClassBody(node: Node): boolean {
  for (let n = node.parent; n; n = n.parent) {
    if (n.type === 'function_definition' || n.type === 'lambda') return false;
    if (n.type === 'class_definition') return true;
  }
  return false;
}

function perFileFinding(host: RuleHost, places: readonly CudaPlace[]): UnitFinding {
  const [first, ...others] = places;
  const node = placeNode(first);
  const more = others.length === 0 ? '' : ` (and ${others.length} more place${others.length === 1 ? '' : 's'})`;
  const listed = others.slice(0, LISTED).map((p) => `line ${placeNode(p).startPosition.row + 1} (${describe(p)})`);
  const rest = others.length > LISTED ? `, and ${others.length - LISTED} more` : '';
  return {
    unit: first.unit,
    code: 'DD005',
    node,
    startNode: first.kind === 'call' && first.hardcode.kind === 'method' ? first.hardcode.attr : undefined,
    message: `${capitalized(describe(first, true))} hard-codes CUDA${more}; choose the device at run time. ` +
      (inClassBody(node) ? 'It is in a class body, which runs when the module is imported. ' : '') +
      'This file never checks whether CUDA is there (no `torch.cuda.is_available()`, no device option): ' +
      'without an NVIDIA GPU it stops with "Torch not compiled with CUDA enabled".' +
      (others.length ? ` The others: ${listed.join(', ')}${rest}.` : ''),
    related: others.map((p) => ({ range: nodeRange(placeNode(p)), message: `${describe(p)} also hard-codes CUDA`, cellIndex: p.unit })),
    fixes: fixesFor(host, places),
  };
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * One place: its fixes, as before. Several: the run-time choice at every place (preferred,
 * so fix-all settles in one pass: the file then checks availability, and nothing is left),
 * the helper at every place, and the run-time choice at the first place only.
 */
function fixesFor(host: RuleHost, places: readonly CudaPlace[]): Fix[] {
  const fixers = new Map<number, HardcodeFixer>();
  const fixerOf = (unit: number) => fixers.get(unit) ?? fixers.set(unit, new HardcodeFixer(host, unit)).get(unit)!;
  const each = places.map((p) => ({ place: p, fixer: fixerOf(p.unit), fixes: fixerOf(p.unit).fixesFor(p) }));
  const own = each[0].fixes;
  if (places.length === 1) {
    const fixer = each[0].fixer;
    const torch = fixer.torch?.edits ?? [];
    const out: Fix[] = [];
    if (own.runTime) out.push({ title: own.runTime.title, edits: [...torch, ...own.runTime.edits], preferred: true });
    if (own.helper) out.push({ title: own.helper.title, edits: [...torch, ...fixer.helper!, ...own.helper.edits], preferred: out.length === 0 });
    return out;
  }
  const out: Fix[] = [];
  const everywhere = (pick: (f: PlaceFixes) => TextEdit[] | undefined, withHelper: boolean) => {
    const edits: TextEdit[] = [];
    for (const e of each) {
      const own = pick(e.fixes);
      if (!own) continue;
      const needed = [...(e.fixer.torch?.edits ?? []), ...(withHelper ? e.fixer.helper ?? [] : []), ...own];
      for (const edit of needed) if (!edits.some((t) => sameEdit(t, edit))) edits.push(edit);
    }
    return withoutOverlaps(edits);
  };
  const runTimeAll = everywhere((f) => f.runTime?.edits, false);
  if (runTimeAll.length) out.push({ title: `Choose the device at run time at all ${places.length} places`, edits: runTimeAll, preferred: true });
  const helperAll = everywhere((f) => f.helper?.edits, true);
  if (helperAll.length) out.push({ title: 'Insert a get_device() helper (CUDA, then MPS, then the CPU) and use it at every place', edits: helperAll, preferred: out.length === 0 });
  if (own.runTime) out.push({ title: `${own.runTime.title} (this place only)`, edits: [...(each[0].fixer.torch?.edits ?? []), ...own.runTime.edits], preferred: false });
  return out;
}

function sameEdit(a: TextEdit, b: TextEdit): boolean {
  return a.cellIndex === b.cellIndex && a.newText === b.newText && sameRange(a.range, b.range);
}

function sameRange(a: Range, b: Range): boolean {
  return a.start.line === b.start.line && a.start.character === b.start.character && a.end.line === b.end.line && a.end.character === b.end.character;
}

/** Edits of nested places (`x.cuda().to("cuda")`) may overlap: the first in the text is kept, the other place is left for the next pass. */
function withoutOverlaps(edits: TextEdit[]): TextEdit[] {
  const kept: TextEdit[] = [];
  const before = (a: { line: number; character: number }, b: { line: number; character: number }) => a.line < b.line || (a.line === b.line && a.character < b.character);
  for (const e of edits) {
    const clash = kept.some((k) => k.cellIndex === e.cellIndex && before(k.range.start, e.range.end) && before(e.range.start, k.range.end));
    if (!clash) kept.push(e);
  }
  return kept;
}
