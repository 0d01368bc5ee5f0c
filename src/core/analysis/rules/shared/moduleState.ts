// What an instance of the program's own nn.Module class holds: weights or buffers
// ("state"), only a train/eval mode that changes what it does ("mode"), or nothing at all
// ("none": `class Attention(nn.Module)` with an empty `__init__` and a forward of matmuls).
// Building a "none" module anew on every forward, or keeping it in a plain list, changes
// nothing; the rules about where modules are built and kept (DD018, DD019) ask this.
// Whatever the class does that this cannot read counts as state: the rules stay as before.
import type { Node } from '../../../python/pyNode';
import { callArguments, children, field, isNumberLiteral, unparen } from '../../../python/syntax';
import type { ClassInfo, FunctionInfo, ProgramView as Program, RuleHost } from '../../ruleApi';
import { keptOnlyAsNumber } from '../../ruleApi';
import { isDistributionClass, MODULE_BASE_CLASSES, normalizationWithoutState } from '../../torchApi';
import { bodyNodes, isSelfAttribute } from './moduleCode';
import { nnModuleClass, torchModuleState, type ModuleState } from './nnNames';

export type { ModuleState };

/** Text that gives a module a train/eval behaviour: `self.training`, dropout of any spelling, `.eval()`. */
const MODE_TEXT = /\btraining\b|dropout|batch_norm|instance_norm|\.(train|eval)\s*\(/i;

/** Text that registers state without an assignment `self.x = ...` the scan below could read. */
const REGISTERS_STATE = /\b(Uninitialized)?Parameter\s*\(|\bregister_(buffer|parameter|module)\s*\(|\badd_module\s*\(|\bsetattr\s*\(|__dict__|__setattr__/;

/**
 * What the module `call` builds holds, for a torch.nn class or a class of this program
 * (moduleState.ts); undefined when `call` builds no module the program knows.
 */
export function builtModuleState(host: RuleHost, call: Node, qualified: string | undefined): ModuleState | undefined {
  const name = nnModuleClass(qualified);
  if (name) {
    const args = callArguments(call);
    const withoutState = !args.hasSplat && normalizationWithoutState(name, (k) => args.keywords.get(k)?.text, args.positional.length);
    return withoutState ? 'none' : torchModuleState(name);
  }
  const callee = field(call, 'function');
  const cls = callee?.type === 'identifier' ? host.program.classes.get(callee.text) : undefined;
  if (!cls?.isModule) return undefined;
  // A taped fact, not a read of the classes' text: a run that asked is still replayed after an
  // edit that leaves every class holding the same (reading `program.modules` made each
  // keystroke on 10,000 lines interpret the whole module scope again).
  return host.programFact('DD018/DD019 what the module classes hold', moduleClassStates).get(cls.key) ?? 'state';
}

/** A module that holds parameters, buffers or a train/eval mode (a torch.nn class or one of the program's). */
export function buildsStatefulModule(host: RuleHost, call: Node, qualified: string | undefined): boolean {
  const state = builtModuleState(host, call, qualified);
  return state !== undefined && state !== 'none';
}

/** What instances of each of the program's module classes hold, by class key; "state" when unsure. */
function moduleClassStates(program: Program): Map<string, ModuleState> {
  const out = new Map<string, ModuleState>();
  for (const cls of program.classes.values()) if (cls.isModule) out.set(cls.key, classState(program, cls, new Set()));
  return out;
}

function classState(program: Program, cls: ClassInfo, seen: Set<string>): ModuleState {
  if (seen.has(cls.key)) return 'state';
  seen.add(cls.key);
  let state: ModuleState = 'none';
  for (const base of cls.baseNodes) state = stronger(state, baseState(program, cls, base, seen));
  for (const m of cls.methods.values()) {
    if (state === 'state') return state;
    if (REGISTERS_STATE.test(m.node.text)) return 'state';
    if (MODE_TEXT.test(m.node.text)) state = stronger(state, 'mode');
    state = stronger(state, attributesState(program, cls, m, seen));
  }
  return state;
}

function baseState(program: Program, cls: ClassInfo, base: Node, seen: Set<string>): ModuleState {
  const q = program.importsAt(cls.unit).qualify(base);
  if (q && MODULE_BASE_CLASSES.has(q)) return 'none';
  const torchClass = nnModuleClass(q);
  if (torchClass) return torchModuleState(torchClass);
  const local = base.type === 'identifier' ? program.modules[cls.module]?.classes.get(base.text) : undefined;
  return local?.isModule ? classState(program, local, seen) : 'state';
}

/** What the values a method stores on `self` hold: scalars nothing, torch layers their own, anything else state. */
function attributesState(program: Program, cls: ClassInfo, fn: FunctionInfo, seen: Set<string>): ModuleState {
  if (!fn.selfName) return 'none';
  let state: ModuleState = 'none';
  for (const n of bodyNodes(fn.body)) {
    if (n.type !== 'assignment' && n.type !== 'augmented_assignment') continue;
    const left = field(n, 'left');
    if (!left || !writesSelf(left, fn.selfName)) continue;
    const right = field(n, 'right');
    if (n.type === 'assignment' && neverAModule(program, cls, unparen(left))) continue;
    state = stronger(state, right && unparen(left).type === 'attribute' ? storedState(program, cls, fn, right, seen) : 'state');
    if (state === 'state') return state;
  }
  return state;
}

/** `self.k = k` where every `.k` read in the class's file is a number's (numberAttributes.ts). */
function neverAModule(program: Program, cls: ClassInfo, target: Node): boolean {
  const attr = target.type === 'attribute' ? field(target, 'attribute')?.text : undefined;
  // Every unit of the class's file: a notebook's other cells read it too.
  return !!attr && keptOnlyAsNumber(cls.node.text, program.units.filter((u) => u.module === cls.module).map((u) => u.source), attr, true);
}

function writesSelf(target: Node, selfName: string): boolean {
  const t = unparen(target);
  if (isSelfAttribute(t, selfName)) return true;
  return ['pattern_list', 'tuple_pattern', 'list_pattern', 'tuple', 'list'].includes(t.type) && children(t).some((c) => writesSelf(c, selfName));
}

function storedState(program: Program, cls: ClassInfo, fn: FunctionInfo, value: Node, seen: Set<string>): ModuleState {
  if (isScalar(value, fn)) return 'none';
  const v = unparen(value);
  if (v.type !== 'call') return 'state';
  const callee = field(v, 'function');
  if (!callee) return 'state';
  const qualified = program.importsAt(cls.unit).qualify(callee);
  // `Uniform(-spread, spread)`: a torch.distributions object holds no weights and no mode.
  if (qualified && isDistributionClass(qualified)) return 'none';
  const torchClass = nnModuleClass(qualified);
  if (torchClass) return torchModuleState(torchClass);
  const local = callee.type === 'identifier' ? program.modules[cls.module]?.classes.get(callee.text) : undefined;
  return local?.isModule ? classState(program, local, seen) : 'state';
}

/** A literal, a parameter declared or defaulted as a scalar, or arithmetic of those. */
function isScalar(value: Node, fn: FunctionInfo | undefined): boolean {
  const v = unparen(value);
  if (isNumberLiteral(v) || v.type === 'none' || v.type === 'string' || v.type === 'concatenated_string') return true;
  if (v.type === 'binary_operator' || v.type === 'unary_operator') {
    const parts = [field(v, 'left'), field(v, 'right'), field(v, 'argument')].filter((p): p is Node => !!p);
    return parts.length > 0 && parts.every((p) => isScalar(p, fn));
  }
  const p = v.type === 'identifier' ? fn?.params.find((q) => q.name === v.text) : undefined;
  if (!p) return false;
  if (p.annotation && /^(int|float|bool|str)$/.test(p.annotation.text)) return true;
  return !!p.defaultNode && isScalar(p.defaultNode, undefined);
}

const ORDER: readonly ModuleState[] = ['none', 'mode', 'state'];

function stronger(a: ModuleState, b: ModuleState): ModuleState {
  return ORDER.indexOf(a) >= ORDER.indexOf(b) ? a : b;
}
