// The state of one scope's interpretation (module or function body), and the
// summaries that flow between rounds: parameter states from call sites, return
// values, and `self.x` attributes per class.
import type { Node } from '../python/pyNode';
import { Env } from './env';
import type { ParamMeeting } from './callContexts';
import type { FunctionInfo } from './program';
import type { Tape } from './runCache';
import { ATTRIBUTE_TESTS, type AttributeTest } from './attributeTests';
import { joinValues, LoaderLoop, Place, sameValue, Value } from './values';

/**
 * Rounds read the previous round's summaries and write the next one's through the methods
 * below (never the maps directly), so that a run's reads and writes can be taped
 * (runCache.ts): a function whose reads are unchanged is not interpreted again. A pending
 * value (not known yet) is never written: the next round would read it as if something had been.
 */
export class Summaries {
  /** Set by the round that reads or writes these summaries; undefined outside one. */
  tape?: Tape;

  /** Same parameter, return and attribute states: another round would change nothing. */
  equals(other: Summaries): boolean {
    return sameMaps(this.params, other.params) && sameMap(this.returns, other.returns) && sameMaps(this.classAttrs, other.classAttrs)
      && sameMap(this.classPlaces, other.classPlaces) && sameSet(this.contextCalls, other.contextCalls) && sameSet(this.plainCalls, other.plainCalls)
      && sameSet(this.gradCalls, other.gradCalls) && sameSet(this.noGradCalls, other.noGradCalls);
  }

  /** No parameter, return or attribute state at all (a program without functions). */
  isEmpty(): boolean {
    return this.params.size === 0 && this.returns.size === 0 && this.classAttrs.size === 0 && this.classPlaces.size === 0;
  }

  readonly params = new Map<number, Map<string, Value>>();
  readonly returns = new Map<number, Value>();
  readonly classAttrs = new Map<string, Map<string, Value>>();
  /** Where instances of the program's nn.Module classes are moved to (`Net().to(device)`), by class key. */
  readonly classPlaces = new Map<string, Value>();
  /** Functions called with a parametric summary at some call site (which reports its arguments' mismatches), */
  readonly contextCalls = new Set<number>();
  /** and those called at least once without one (model(x) into forward, a constructor, a recursive call). */
  readonly plainCalls = new Set<number>();
  /** Functions some call runs with gradients on, */
  readonly gradCalls = new Set<number>();
  /** and those some call runs under `torch.no_grad()` (or after `torch.set_grad_enabled(False)`). */
  readonly noGradCalls = new Set<number>();

  /** What call sites passed to `fn`'s parameters (previous round). */
  paramsOf(fn: number): ReadonlyMap<string, Value> | undefined {
    const v = this.params.get(fn);
    this.tape?.read({ kind: 'params', fn }, v);
    return v;
  }

  returnOf(fn: number): Value | undefined {
    const v = this.returns.get(fn);
    this.tape?.read({ kind: 'return', fn }, v);
    return v;
  }

  classAttr(cls: string, attr: string): Value | undefined {
    const v = this.classAttrs.get(cls)?.get(attr);
    this.tape?.read({ kind: 'attr', cls, attr }, v);
    return v;
  }

  /** `self.attr` of a class as its lineage has it: the nearest class (itself, then its bases) whose methods left one. */
  lineageAttr(lineage: readonly string[], attr: string): Value | undefined {
    return lineage.map((cls) => this.classAttr(cls, attr)).find((found) => found !== undefined);
  }

  /**
   * Whether some attribute of the class's summary passes `test` (attributeTests.ts); undefined
   * when no method left one. Taped as that one answer, not as the attribute map: a run that
   * asked it replays while the answer stays, whatever else of the class changed (a module call
   * asks whether the class may hold weights, and comparing every attribute of the class again
   * on each replay made keystrokes a fifth slower).
   */
  classAttrsSome(cls: string, test: AttributeTest): boolean | undefined {
    const known = this.attrsSomeOf(cls, test);
    this.tape?.read({ kind: 'attrsSome', cls, test }, known);
    return known;
  }

  /** classAttrsSome without taping (a replay's check of the read). */
  attrsSomeOf(cls: string, test: AttributeTest): boolean | undefined {
    let byTest = this.answers.get(cls);
    if (!byTest) this.answers.set(cls, (byTest = new Map()));
    if (byTest.has(test)) return byTest.get(test);
    const attrs = this.classAttrs.get(cls);
    const known = attrs ? [...attrs.values()].some(ATTRIBUTE_TESTS[test]) : undefined;
    byTest.set(test, known);
    return known;
  }

  /** The classes of the modules the class's summary keeps on `self` (sorted, once each). */
  classAttrModules(cls: string): readonly string[] {
    const known = this.attrModulesOf(cls);
    this.tape?.read({ kind: 'attrModules', cls }, known);
    return known;
  }

  /** classAttrModules without taping. */
  attrModulesOf(cls: string): readonly string[] {
    let known = this.modules.get(cls);
    if (!known) {
      const names = new Set<string>();
      for (const v of this.classAttrs.get(cls)?.values() ?? []) if (v.kind === 'module' && v.className) names.add(v.className);
      this.modules.set(cls, (known = [...names].sort()));
    }
    return known;
  }

  /** Read only once the round that wrote these summaries is over (a replay or the next round). */
  private readonly answers = new Map<string, Map<AttributeTest, boolean | undefined>>();
  private readonly modules = new Map<string, readonly string[]>();

  classPlace(cls: string): Value | undefined {
    const v = this.classPlaces.get(cls);
    this.tape?.read({ kind: 'place', cls }, v);
    return v;
  }

  /** Some call site interprets `fn` for its own arguments, and none calls it without. */
  reportedAtCalls(fn: number): boolean {
    const v = this.contextCalls.has(fn) && !this.plainCalls.has(fn);
    this.tape?.read({ kind: 'atCalls', fn }, v);
    return v;
  }

  /** Every call of `fn` the program makes runs under no_grad (and there is one): its body does too. */
  onlyUnderNoGrad(fn: number): boolean {
    const v = this.noGradCalls.has(fn) && !this.gradCalls.has(fn);
    this.tape?.read({ kind: 'noGradOnly', fn }, v);
    return v;
  }

  markGradCall(fn: number, noGrad: boolean): void {
    this.tape?.write({ kind: noGrad ? 'noGradCall' : 'gradCall', fn });
    (noGrad ? this.noGradCalls : this.gradCalls).add(fn);
  }

  markContextCall(fn: number): void {
    this.tape?.write({ kind: 'contextCall', fn });
    this.contextCalls.add(fn);
  }

  markPlainCall(fn: number): void {
    this.tape?.write({ kind: 'plainCall', fn });
    this.plainCalls.add(fn);
  }

  addParam(fn: number, name: string, v: Value): void {
    if (v.pending) return;
    this.tape?.write({ kind: 'param', fn, name, value: v });
    let m = this.params.get(fn);
    if (!m) this.params.set(fn, (m = new Map()));
    const old = m.get(name);
    m.set(name, old ? joinedSummary(old, untagged(v)) : untagged(v));
  }

  addReturn(fn: number, value: Value): void {
    if (value.pending) return;
    this.tape?.write({ kind: 'return', fn, value });
    const v = untagged(value);
    const old = this.returns.get(fn);
    this.returns.set(fn, old ? joinedSummary(old, v) : v);
  }

  addClassPlace(cls: string, moved: Value): void {
    if (moved.pending) return;
    this.tape?.write({ kind: 'place', cls, value: moved });
    const old = this.classPlaces.get(cls);
    this.classPlaces.set(cls, old ? joinedSummary(old, moved) : moved);
  }

  addClassAttr(cls: string, attr: string, value: Value): void {
    if (value.pending) return;
    this.tape?.write({ kind: 'attr', cls, attr, value });
    const v = untagged(value);
    let m = this.classAttrs.get(cls);
    if (!m) this.classAttrs.set(cls, (m = new Map()));
    const old = m.get(attr);
    m.set(attr, old ? joinedSummary(old, v) : v);
  }
}

/**
 * A summary's join of two values, kept per pair of objects. A replayed run writes the very
 * values it taped, so after a keystroke each summary is the same chain of joins of the same
 * objects as before, and joining them again was a tenth of a keystroke at 10,000 lines.
 * A value never changes once made, so two objects always join to the same value; the join of
 * the same pair is the same object, as aliases (names of one object) stay one object.
 */
function joinedSummary(old: Value, v: Value): Value {
  let byOld = JOINS.get(old);
  if (!byOld) JOINS.set(old, (byOld = new WeakMap()));
  let joined = byOld.get(v);
  if (!joined) byOld.set(v, (joined = joinValues(old, v)));
  return joined;
}

const JOINS = new WeakMap<Value, WeakMap<Value, Value>>();

/**
 * A parameter tag names a parameter of the function that was running: it means nothing in a
 * summary. One untagged copy per tagged value, so that joinedSummary finds the pair again.
 */
function untagged(v: Value): Value {
  if (!v.param) return v;
  let plain = UNTAGGED.get(v);
  if (!plain) UNTAGGED.set(v, (plain = { ...v, param: undefined }));
  return plain;
}

const UNTAGGED = new WeakMap<Value, Value>();

function sameSet<K>(a: Set<K>, b: Set<K>): boolean {
  return a.size === b.size && [...a].every((k) => b.has(k));
}

function sameMap<K>(a: Map<K, Value>, b: Map<K, Value>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (!sameValue(v, b.get(k))) return false;
  return true;
}

function sameMaps<K, K2>(a: Map<K, Map<K2, Value>>, b: Map<K, Map<K2, Value>>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, m] of a) {
    const other = b.get(k);
    if (!other || !sameMap(m, other)) return false;
  }
  return true;
}

export interface Frame {
  /** Function id, or -1 for the module scope. */
  id: number;
  unit: number;
  fn?: FunctionInfo;
  env: Env;
  /** Enclosing scope's final environment (globals for top-level functions). */
  outer?: Env;
  noGrad: number;
  /** Places set by enclosing `with torch.device(...)` blocks, innermost last. */
  defaultDevices: Place[];
  /** Loader loops currently being executed, innermost last. */
  loops: LoaderLoop[];
  /** >0 while a loop body's first (state-gathering) pass runs, or for code that never reports: rules stay quiet. */
  muted: number;
  /** The muting is only that of a loop's first pass (the first iteration): single-operation checks still speak. */
  firstPass?: boolean;
  /** Names bound in this scope (params, assignments, imports, globals) for fix validity. */
  names: Set<string>;
  /** The scope mentions a device (parameter, variable or `.cuda()`): models may be on one (DD002). */
  deviceAware: boolean;
  /** Syntactic evidence of what unknown receivers are (DD004). */
  evidence: Map<string, 'tensor' | 'module' | 'both'>;
  /** Keys the scope tests with `isinstance(x, torch.Tensor)` (scopeScan.ts). */
  testedAsTensor?: ReadonlySet<string>;
  /** Node of the `if __name__ == "__main__"` style blocks are plain code. */
  scopeNode: Node;
  /**
   * The path being interpreted left the scope (`return`, `raise`): the rest of its block is
   * not run, and an `if` joins only the branches that go on.
   */
  ended?: boolean;
  /**
   * >0 while code runs that only a machine without an accelerator reaches (the `else` of an
   * availability test, world.ts): its values are the accelerator world's, so only the rules
   * that need no accelerator hear it, and what it returns or binds is forgotten.
   */
  shadow?: number;
  /**
   * >0 while code runs that only a run on several devices or processes reaches (`if
   * args.n_gpu > 1:`, world.ts oneDeviceComparison): every rule hears it, and what it returns
   * or binds is forgotten, as in the shadow.
   */
  sidePath?: number;
  /**
   * This code runs only where an accelerator is available: inside the accelerator branch of
   * an availability test, or after one whose other path left the scope (world.ts).
   */
  acceleratorOnly?: boolean;
  /**
   * The outcome of each undecided `if`/`elif` test (by its text) on the path being
   * interpreted: inside its body true, in the clauses after it false.
   */
  tests?: Map<string, boolean>;
  /** A call interpreted for one call site's arguments collects what it returns here, */
  returns?: Value[];
  /** and its CPU parameters that met an accelerator (filled by the rule dispatcher). */
  meetings?: ParamMeeting[];
}

/** The class of the instance a method runs for: a base-class method called on `self` by a subclass runs for the subclass (callContexts.ts SELF_CLASS). */
export function instanceClass(frame: Frame): string | undefined {
  return frame.fn?.selfName ? frame.env.get(frame.fn.selfName)?.className ?? frame.fn.className : undefined;
}
