// A flow-sensitive environment: variable keys ("x", "self.model", "args.device") to values.
//
// Branches clone the environment and joins merge it at every `if`, loop and `try`; in a
// long script the module environment holds thousands of keys, and copying and joining
// all of them at each block made analysis quadratic (a 20,000-line script spent a quarter
// of its time there). So an environment is a small map of its own bindings over a frozen
// parent: a clone shares the parent, and a join visits only the keys either side bound
// since their common ancestor.
import { joinValues, UNKNOWN, Value } from './values';

interface Binding {
  value: Value;
  /** When it was bound (one counter for all environments): orders a key against its prefixes. */
  seq: number;
}

let nextSeq = 1;

/** Chains longer than this are flattened into one map, so a lookup stays a few map reads. */
const MAX_DEPTH = 12;

/**
 * What an attribute key bound on one path only holds on the other, as a read in `env` (that
 * path's environment) gives it; undefined where that is not known.
 */
export type UnboundOnPath = (key: string, env: Env) => Value | undefined;

export class Env {
  private own: Map<string, Binding>;
  /** A frozen environment: nothing ever binds into it again. */
  private parent: Env | undefined;
  private depth: number;

  constructor(parent?: Env, own: Map<string, Binding> = new Map()) {
    this.parent = parent;
    this.own = own;
    this.depth = parent ? parent.depth + 1 : 0;
  }

  private binding(key: string): Binding | undefined {
    for (let e: Env | undefined = this; e; e = e.parent) {
      const b = e.own.get(key);
      if (b) return b;
    }
    return undefined;
  }

  /**
   * Rebinding `x` forgets what was known about `x.attr`: a dotted key counts only when
   * none of its prefixes was bound after it (checked here, so rebinding never scans keys).
   */
  get(key: string): Value | undefined {
    const b = this.binding(key);
    if (!b) return undefined;
    for (let i = key.indexOf('.'); i > 0; i = key.indexOf('.', i + 1)) {
      const prefix = this.binding(key.slice(0, i));
      if (prefix && prefix.seq > b.seq) return undefined;
    }
    return b.value;
  }

  set(key: string, v: Value): void {
    this.own.set(key, { value: v, seq: nextSeq++ });
  }

  /** Gives `key` a new value as of when it was bound: what is known of `key.attr` stays valid. */
  update(key: string, v: Value): void {
    const b = this.binding(key);
    this.own.set(key, { value: v, seq: b?.seq ?? nextSeq++ });
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  /** The keys bound here, forgotten ones excluded. */
  keys(): string[] {
    const out: string[] = [];
    const seen = new Set<string>();
    for (let e: Env | undefined = this; e; e = e.parent) {
      for (const k of e.own.keys()) {
        if (seen.has(k)) continue;
        seen.add(k);
        if (this.get(k) !== undefined) out.push(k);
      }
    }
    return out;
  }

  /** The keys bound in this environment itself (a join binds each key that differs on its paths). */
  ownKeys(): string[] {
    return [...this.own.keys()];
  }

  /** Replaces the value of a key bound here, keeping when it was bound (its dotted keys stay valid). */
  replaceOwn(key: string, v: Value): void {
    const b = this.own.get(key);
    if (b) this.own.set(key, { value: v, seq: b.seq });
  }

  clone(): Env {
    return new Env(this.freeze());
  }

  /** This environment's bindings as a frozen parent; this environment continues over it. */
  private freeze(): Env {
    if (this.own.size === 0 && this.parent) return this.parent;
    let frozen = new Env(this.parent, this.own);
    if (frozen.depth > MAX_DEPTH) frozen = frozen.flattened();
    this.parent = frozen;
    this.own = new Map();
    this.depth = frozen.depth + 1;
    return frozen;
  }

  /**
   * The bindings `keys()` and `binding()` give, in that order, in one walk of the chain: a
   * module scope that calls a function on every few lines flattens thousands of keys often.
   */
  private flattened(): Env {
    const innermost = new Map<string, Binding>();
    for (let e: Env | undefined = this; e; e = e.parent) {
      for (const [k, b] of e.own) if (!innermost.has(k)) innermost.set(k, b);
    }
    const own = new Map<string, Binding>();
    for (const [k, b] of innermost) if (!forgottenBy(k, b, innermost)) own.set(k, b);
    return new Env(undefined, own);
  }

  private ancestors(): Set<Env> {
    const out = new Set<Env>();
    for (let e: Env | undefined = this; e; e = e.parent) out.add(e);
    return out;
  }

  /** Keys bound between this environment and `base` (exclusive), or every key without a base. */
  private keysSince(base: Env | undefined, into: Set<string>): void {
    for (let e: Env | undefined = this; e && e !== base; e = e.parent) for (const k of e.own.keys()) into.add(k);
  }

  /**
   * Both paths merge. A name bound on only one path is that path's value afterwards: on the
   * other, reading it raises NameError (or UnboundLocalError), so no read sees it unbound.
   * An attribute key (`self.model`) bound on one path is unknown: the other path's object
   * may have it from elsewhere; unless `unbound` says what a read on that path gives.
   */
  static join(a: Env, b: Env, unbound?: UnboundOnPath): Env {
    if (a === b) return a;
    const ofA = a.ancestors();
    let base: Env | undefined = b;
    while (base && !ofA.has(base)) base = base.parent;
    const changed = new Set<string>();
    a.keysSince(base, changed);
    b.keysSince(base, changed);
    const out = new Env(base);
    // Prefixes first, so a joined `x.attr` is bound after the joined `x` and stays valid.
    const ordered = [...changed].sort((x, y) => dots(x) - dots(y));
    for (const k of ordered) {
      const va = a.get(k);
      const vb = b.get(k);
      if (va === undefined && vb === undefined) continue;
      if (va && vb) out.set(k, joinValues(va, vb));
      else if (!k.includes('.')) out.set(k, (va ?? vb)!);
      else {
        const before = unbound?.(k, va ? b : a);
        out.set(k, before ? joinValues((va ?? vb)!, before) : UNKNOWN);
      }
    }
    return out;
  }

  static joinAll(envs: Env[], unbound?: UnboundOnPath): Env {
    return envs.reduce((acc, e) => Env.join(acc, e, unbound));
  }
}

/** A dotted key one of whose prefixes was bound after it (Env.get's rule). */
function forgottenBy(key: string, b: Binding, bindings: ReadonlyMap<string, Binding>): boolean {
  for (let i = key.indexOf('.'); i > 0; i = key.indexOf('.', i + 1)) {
    const prefix = bindings.get(key.slice(0, i));
    if (prefix && prefix.seq > b.seq) return true;
  }
  return false;
}

function dots(key: string): number {
  let n = 0;
  for (let i = key.indexOf('.'); i >= 0; i = key.indexOf('.', i + 1)) n++;
  return n;
}

/** An environment other scopes read through and none binds into: `what` names it in the errors. */
export abstract class ReadOnlyEnv extends Env {
  constructor(private readonly what: string) {
    super();
  }

  abstract override get(key: string): Value | undefined;

  override has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  override set(): void {
    throw new Error(`${this.what} is read-only`);
  }

  override keys(): string[] {
    throw new Error(`${this.what} lists no keys`);
  }
}

/**
 * The names a nested function reads from outside its own body, as Python resolves them: the
 * enclosing functions' variables, innermost first, then the module's globals. A dotted key
 * (`args.cuda`) is read in the first scope that binds it (an enclosing function may set an
 * attribute of a global object), and not beyond one that binds its first name.
 */
export class ScopeChain extends ReadOnlyEnv {
  /** `ownParams`: false where the scopes are other functions' (a closure's own run), whose parameters are not this run's to report at its calls. */
  constructor(private readonly scopes: readonly Env[], private readonly ownParams = true) {
    super('a scope chain');
  }

  override get(key: string): Value | undefined {
    const dot = key.indexOf('.');
    for (const scope of this.scopes) {
      const v = scope.get(key);
      if (v !== undefined) return this.asRead(v);
      // `net` bound here, `net.fc` not: an outer scope's `net.fc` is another object's.
      if (dot > 0 && scope.get(key.slice(0, dot)) !== undefined) return undefined;
    }
    return undefined;
  }

  private asRead(v: Value): Value {
    return v.param !== undefined && !this.ownParams ? { ...v, param: undefined } : v;
  }
}
