// Wrapper modules: an nn.Module class that owns nothing itself and only keeps the modules it
// is given (`class MeanVar(nn.Module): def __init__(self, gp): self.gp = gp`). Its weights are
// the wrapped model's, so an instance is where that model is when it is built: wrapping a
// model already moved to the GPU gives a module on the GPU, not a new CPU one.
import type { Node } from '../python/pyNode';
import { children, field, isNumberLiteral, unparen } from '../python/syntax';
import type { ClassInfo, FunctionInfo, Program } from './program';
import { MODULE_BASE_CLASSES } from './torchApi';
import { containedValues, hasAccel, isContainer, joinValues, UNTRACKED, Value, value } from './values';

/** Text that gives a module state of its own: parameters, buffers, registered or built submodules, a move. */
const OWN_STATE = /\b(Uninitialized)?Parameter\s*\(|\bregister_(buffer|parameter|module)\s*\(|\badd_module\s*\(|\bsetattr\s*\(|\.(to|cuda)\s*\(/;

/**
 * The program's wrapper classes, by class key, with the `__init__` parameters each keeps.
 * A program fact (ctx.programFact): a run that built one replays only while they are the same.
 */
export function wrapperClasses(program: Program): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const cls of program.classes.values()) {
    const init = cls.isModule ? program.methodOf(cls.key, '__init__') : undefined;
    const kept = init ? keptParameters(program, cls, init) : undefined;
    if (kept?.length) out.set(cls.key, kept);
  }
  return out;
}

/**
 * The module an instance of a wrapper class is, built with `bound` (its `__init__`
 * parameters' values at this call): where the modules it keeps are, when they are all
 * placed and on an accelerator; of no known place when one of them is not known; undefined
 * otherwise (the caller makes a new module as usual).
 */
export function wrapperInstance(cls: ClassInfo, kept: readonly string[], bound: ReadonlyMap<string, Value>, at: { unit: number; node: Node }): Value | undefined {
  // A dict or list of modules kept as it is (`self.parts = parts`) counts as its modules.
  const held = (v: Value): Value[] => (v.kind === 'module' || v.kind === 'unknown' ? [v] : isContainer(v) ? containedValues(v).filter((e) => e.kind === 'module') : []);
  const given = kept.map((name) => bound.get(name)).flatMap((v) => (v ? held(v) : [])).filter((v) => !v.placeless);
  // A value of unknown kind and place may be a setting (`scale`): it says where the wrapper is
  // only when no module does, and then that it is not known (`Sampler(model.net)` of a model
  // built where the analysis does not see), never that it is a new module on the CPU.
  const modules = given.some((v) => v.kind === 'module') ? given.filter((v) => v.kind === 'module' || v.place !== UNTRACKED) : given;
  if (modules.length === 0) return undefined;
  if (modules.some((v) => v.place === UNTRACKED)) return value('module', UNTRACKED, { className: cls.key });
  const joined = modules.reduce((a, b) => joinValues(a, b));
  // Around CPU modules it is a new CPU module as any other (reported, and fixed, where it is built).
  if (!hasAccel(joined.place)) return undefined;
  const from = joined.origin ? { ...joined.origin, what: `the wrapped module ${joined.origin.what}` } : undefined;
  return value('module', joined.place, {
    className: cls.key, deviceText: joined.deviceText,
    origin: { unit: at.unit, node: at.node, what: `built around a module${joined.deviceText ? ` on ${joined.deviceText}` : ''} here`, from },
  });
}

/**
 * The `__init__` parameters a wrapper class stores on `self`, or undefined when the class is
 * not one: a direct nn.Module subclass whose methods build, register and move nothing and
 * store on `self` only those parameters and literals.
 */
function keptParameters(program: Program, cls: ClassInfo, init: FunctionInfo): string[] | undefined {
  const imports = program.importsAt(cls.unit);
  if (cls.baseNodes.length === 0 || !cls.baseNodes.every((b) => MODULE_BASE_CLASSES.has(imports.qualify(b) ?? ''))) return undefined;
  const params = new Set(init.params.map((p) => p.name));
  const kept: string[] = [];
  for (const m of cls.methods.values()) {
    if (OWN_STATE.test(m.node.text)) return undefined;
    for (const [target, stored] of selfAssignments(m)) {
      if (isNumberLiteral(stored) || ['string', 'none'].includes(stored.type)) continue;
      // `self.fn = net.forward`, `self.body = net.backbone`: a part of the module given is where it is.
      const given = stored.type === 'attribute' ? field(stored, 'object') : stored;
      if (m !== init || given?.type !== 'identifier' || !params.has(given.text) || target.type !== 'attribute') return undefined;
      kept.push(given.text);
    }
  }
  return kept;
}

/**
 * The `__init__` parameters each class of the program stores on `self` as they are
 * (`self.model = model`): given a module, nn.Module registers it as a submodule, so moving the
 * instance moves it; a plain class (a trainer) keeps that very module, which its methods may
 * move. A program fact, as wrapperClasses.
 */
export function storedParameters(program: Program): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const cls of program.classes.values()) {
    const init = program.methodOf(cls.key, '__init__');
    if (!init) continue;
    const params = new Set(init.params.map((p) => p.name));
    const stored = selfAssignments(init).filter(([target, v]) => target.type === 'attribute' && v.type === 'identifier' && params.has(v.text)).map(([, v]) => v.text);
    if (stored.length) out.set(cls.key, [...new Set(stored)]);
  }
  return out;
}

/** `self.x = value` statements of a method, as (target, value) pairs; an unreadable target gives (target, target). */
export function selfAssignments(fn: FunctionInfo): ReadonlyArray<[Node, Node]> {
  const self = fn.selfName;
  if (!self) return [];
  // Per body: every program of a lint run, and every keystroke's, asks again for the same methods.
  const known = SELF_ASSIGNMENTS.get(fn.body);
  if (known?.self === self) return known.out;
  const out: Array<[Node, Node]> = [];
  const stack: Node[] = [fn.body];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.type === 'function_definition' || n.type === 'class_definition' || n.type === 'lambda') continue;
    if (n.type === 'assignment' || n.type === 'augmented_assignment') {
      const left = unparen(field(n, 'left') ?? n);
      const right = field(n, 'right');
      if (left.text.startsWith(`${self}.`) || (left.type !== 'identifier' && left.text.includes(`${self}.`))) out.push([left, right ? unparen(right) : left]);
    }
    stack.push(...children(n));
  }
  SELF_ASSIGNMENTS.set(fn.body, { self, out });
  return out;
}

const SELF_ASSIGNMENTS = new WeakMap<Node, { self: string; out: ReadonlyArray<[Node, Node]> }>();
