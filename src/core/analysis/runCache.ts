// Runs that need not be interpreted again. A round interprets every scope (the module, each
// function) against the previous round's summaries; most scopes read nothing that changed,
// between two rounds or between two analyses of a document after a keystroke. A muted run
// (no rule listens) is a pure function of its syntax tree and of what it reads, so each run
// is taped (what it read, what it wrote into the next summaries, its final environment) and
// replayed when its tree is the same object (KeptPlainTree reuses unchanged statements) and
// every read gives the same value again. In the reporting round the rules listen: a run is
// replayed when no rule asked the program itself, and its findings are reported again when
// no line has moved since they were made (findings carry line numbers, in their ranges, fixes
// and messages: after a line was added or removed, a run that reported is interpreted again).
import { Node } from '../python/pyNode';
import { Env, ReadOnlyEnv } from './env';
import { importsFramework } from './frameworkImports';
import type { Program } from './program';
import type { Value } from './values';
import type { BodyFact } from './bodyFacts';
import type { AttributeTest } from './attributeTests';
import type { UnitFinding } from './types';

/** What a run read: from the previous summaries, a module's or an enclosing function's final environment, a body it ran. */
export type Read =
  | { kind: 'params'; fn: number }
  | { kind: 'return'; fn: number }
  | { kind: 'attr'; cls: string; attr: string }
  | { kind: 'place'; cls: string }
  /** Whether some attribute of a class passes a test (Summaries.classAttrsSome). */
  | { kind: 'attrsSome'; cls: string; test: AttributeTest }
  /** The classes of the modules a class keeps (Summaries.classAttrModules). */
  | { kind: 'attrModules'; cls: string }
  /** What the program read from a class's text (program.ts classFactsOf): a construction's decisions. */
  | { kind: 'classFacts'; cls: string }
  | { kind: 'atCalls'; fn: number }
  /** Whether every call of the function runs under no_grad (Summaries.onlyUnderNoGrad). */
  | { kind: 'noGradOnly'; fn: number }
  | { kind: 'global'; module: number; name: string }
  /**
   * A global read by a call made while its module's scope runs: the module's variables at
   * that moment (only a later call at a moment when they are the same replays it).
   */
  | { kind: 'liveGlobal'; module: number; name: string }
  /** A global as a function's own run reads it: at the calls its module's code made (Interpreter.globalsAtCalls). */
  | { kind: 'callGlobal'; fn: number; name: string }
  | { kind: 'enclosing'; fn: number; name: string }
  | { kind: 'body'; fn: number }
  /** A fact of another function's text (bodyFacts.ts): a run that only asked it depends on no more. */
  | { kind: 'bodyFact'; fn: number; fact: BodyFact }
  /** How the file chooses its device (deviceChoice.ts), which rules read. */
  | { kind: 'deviceChoice' }
  /** A fact a rule derived from the program's whole text (programFacts.ts). */
  | { kind: 'programFact'; key: string }
  /** A device world's variable (world.ts): availability, or a device flag the code tests. */
  | { kind: 'world'; name: string }
  /** Which variables the world has: a name that is none of them is no flag there (WorldState.flag). */
  | { kind: 'worldNames' };

/** What a run wrote into the next round's summaries (replayed in order; every write is a join, so a repeat changes nothing). */
export type Write =
  | { kind: 'param'; fn: number; name: string; value: Value }
  | { kind: 'return'; fn: number; value: Value }
  | { kind: 'attr'; cls: string; attr: string; value: Value }
  | { kind: 'place'; cls: string; value: Value }
  | { kind: 'contextCall'; fn: number }
  | { kind: 'plainCall'; fn: number }
  | { kind: 'gradCall'; fn: number }
  | { kind: 'noGradCall'; fn: number };

export interface Recording {
  reads: Map<string, { read: Read; value: unknown }>;
  writes: Write[];
  /** Findings the rules reported during the run (a reporting round's), as the rules made them. */
  findings: UnitFinding[];
  /** A rule consulted the program itself (its other scopes, its whole text): not a function of the reads. */
  askedProgram: boolean;
  /** The module whose scope this run is: a call it makes reads its live variables, which are the scope's own doing (liveGlobal). */
  scopeModule?: number;
  /**
   * Functions called (or passed on) while their module's scope ran, in order: each noted the
   * globals of that moment (Interpreter.globalsAtCalls), as a replay of the run must again.
   */
  noted?: number[];
  /** It set a module's variables while that module's scope ran (`global x` in a called function): no replay can do that. */
  setLiveGlobals?: boolean;
  /**
   * A module scope's calls of its own functions, each taped on its own rather than merged:
   * the scope replays when each call still gives what it gave, even where the callee's body
   * or what it read changed (an edit inside `train()` that leaves its result as it was).
   */
  calls?: ScopeCall[];
}

/** A call a module scope made of one of its functions (Recording.calls). */
export interface ScopeCall {
  /** The call run's key and arguments (RunCache.callRuns). */
  key: string;
  args: ReadonlyMap<string, Value>;
  fn: number;
  recording: Recording;
  result: unknown;
  /** The module's variables when it was made: a check interprets the call again with them. */
  globals: Env;
}

function readKey(r: Read): string {
  switch (r.kind) {
    case 'params': case 'return': case 'atCalls': case 'noGradOnly': case 'body': return functionKeyOf(r.kind, r.fn);
    case 'deviceChoice': return 'deviceChoice';
    case 'programFact': return keyOf('programFact', r.key);
    case 'bodyFact': return bodyFactKeyOf(r.fn, r.fact);
    case 'attr': return keyOf('attr', r.cls, r.attr);
    case 'place': return keyOf('place', r.cls);
    case 'attrsSome': return keyOf('attrsSome', r.cls, r.test);
    case 'attrModules': return keyOf('attrModules', r.cls);
    case 'classFacts': return keyOf('classFacts', r.cls);
    case 'global': return keyOf('global', r.module, r.name);
    case 'liveGlobal': return keyOf('liveGlobal', r.module, r.name);
    case 'callGlobal': return keyOf('callGlobal', r.fn, r.name);
    case 'enclosing': return keyOf('enclosing', r.fn, r.name);
    case 'world': return keyOf('world', r.name);
    case 'worldNames': return 'worldNames';
  }
}

/**
 * `kind:a[:b]`, one string per key: a run reads the same few keys thousands of times (each
 * lookup of an availability flag is a read), and building and hashing a new string for each
 * was the tape's main cost.
 */
function keyOf(kind: string, a: string | number, b?: string): string {
  let byA = KEYS.get(kind);
  if (!byA) KEYS.set(kind, (byA = new Map()));
  let byB = byA.get(a);
  if (!byB) byA.set(a, (byB = new Map()));
  const last = b ?? '';
  let key = byB.get(last);
  if (key === undefined) {
    if (++keysMade > MAX_KEYS) {
      KEYS.clear();
      keysMade = 0;
    }
    byB.set(last, (key = b === undefined ? `${kind}:${a}` : `${kind}:${a}:${b}`));
  }
  return key;
}

const KEYS = new Map<string, Map<string | number, Map<string, string>>>();

/**
 * The keys of the reads asked most (a function's summaries, a fact of its body), by function
 * id: an array read instead of keyOf's three map reads. Function ids are positions in a
 * program's list, so these stay as long as the largest program a process analysed.
 */
const FUNCTION_KEYS = { params: [] as string[], return: [] as string[], atCalls: [] as string[], noGradOnly: [] as string[], body: [] as string[] };
const BODY_FACT_KEYS = new Map<BodyFact, string[]>();

function functionKeyOf(kind: keyof typeof FUNCTION_KEYS, fn: number): string {
  const keys = FUNCTION_KEYS[kind];
  return keys[fn] ?? (keys[fn] = `${kind}:${fn}`);
}

function bodyFactKeyOf(fn: number, fact: BodyFact): string {
  let keys = BODY_FACT_KEYS.get(fact);
  if (!keys) BODY_FACT_KEYS.set(fact, (keys = []));
  return keys[fn] ?? (keys[fn] = `bodyFact:${fn}:${fact}`);
}
/** The keys grow with every name and function a process reads (a language server runs for days): forgotten past this many. */
const MAX_KEYS = 200_000;
let keysMade = 0;

/** The recordings of the runs in progress, innermost last; a finished one is folded into the one around it. */
export class Tape {
  private readonly open: Recording[] = [];

  /** `computes`: the document's table of how facts are computed (RunCache.factComputes). */
  constructor(private readonly computes?: Map<string, unknown>) {}

  begin(scopeModule?: number): void {
    this.open.push({ reads: new Map(), writes: [], findings: [], askedProgram: false, ...(scopeModule === undefined ? {} : { scopeModule }) });
  }

  /** `merge`: counted in the run around it now (else the caller decides, Tape.merge or Tape.called). */
  end(merge = true): Recording {
    const done = this.open.pop()!;
    if (merge) this.merge(done);
    return done;
  }

  /** The module whose scope the current run is, if it is one. */
  get scopeModule(): number | undefined {
    return this.open[this.open.length - 1]?.scopeModule;
  }

  /** The current run (a module scope) made `call` (Recording.calls). */
  called(call: ScopeCall): void {
    const top = this.open[this.open.length - 1];
    if (top) (top.calls ??= []).push(call);
  }

  /** A run reused inside the current one (a call's summary computed earlier in the round) counts as if it ran here. */
  merge(inner: Recording): void {
    const top = this.open[this.open.length - 1];
    if (!top) return;
    for (const [key, entry] of inner.reads) {
      if (top.reads.has(key)) continue;
      // The module's own variables as its scope had made them: the scope's doing, not a read.
      if (entry.read.kind === 'liveGlobal' && entry.read.module === top.scopeModule) continue;
      top.reads.set(key, entry);
    }
    for (const w of inner.writes) top.writes.push(w);
    for (const f of inner.findings) top.findings.push(f);
    top.askedProgram ||= inner.askedProgram;
    if (inner.noted?.length) (top.noted ??= []).push(...inner.noted);
    top.setLiveGlobals ||= inner.setLiveGlobals;
  }

  /** A function called while its module's scope runs noted that moment's globals (Recording.noted). */
  noted(fn: number): void {
    const top = this.open[this.open.length - 1];
    if (top) (top.noted ??= []).push(fn);
  }

  /** The current run set a module's variables while its scope ran (Recording.setLiveGlobals). */
  setLiveGlobals(): void {
    const top = this.open[this.open.length - 1];
    if (top) top.setLiveGlobals = true;
  }

  /** A rule reported a finding in the current run. */
  reported(finding: UnitFinding): void {
    this.open[this.open.length - 1]?.findings.push(finding);
  }

  /** A rule read the program in the current run (RuleDispatcher's view of it). */
  programAsked(): void {
    const top = this.open[this.open.length - 1];
    if (top) top.askedProgram = true;
  }

  /** The first value counts: what a run reads does not change while it runs. */
  read(r: Read, value: unknown): void {
    const top = this.open[this.open.length - 1];
    if (!top) return;
    const key = readKey(r);
    if (!top.reads.has(key)) top.reads.set(key, { read: r, value });
  }

  /** A program fact read (programFacts.ts): how it is computed is kept, for a later replay check. */
  readFact(key: string, compute: unknown, value: unknown): void {
    this.computes?.set(key, compute);
    this.read({ kind: 'programFact', key }, value);
  }

  /** `read` of a read whose key the caller made once (WatchedEnv: one per name). */
  readKeyed(key: string, r: Read, value: unknown): void {
    const top = this.open[this.open.length - 1];
    if (top && !top.reads.has(key)) top.reads.set(key, { read: r, value });
  }

  write(w: Write): void {
    this.open[this.open.length - 1]?.writes.push(w);
  }
}

/** The reads of a name in another scope's environment: of a module's globals, of a function's (its calls' globals, its enclosing function's variables). */
export type NameReadKind = 'global' | 'liveGlobal' | 'callGlobal' | 'enclosing';

type NameReads = Map<string, { read: Read; key: string }>;

/**
 * Each name's read and key for one scope, shared by every run that reads it (a WatchedEnv is
 * made per run, and a run looks the same few globals up thousands of times): one map read
 * per lookup instead of keyOf's three, and no new Read. By scope index (a module's, a
 * function's id), so bounded by the largest program; a map past MAX_NAMES starts again.
 */
const NAME_READS: Record<NameReadKind, NameReads[]> = { global: [], liveGlobal: [], callGlobal: [], enclosing: [] };
const MAX_NAMES = 4096;

function nameReadsOf(kind: NameReadKind, scope: number): NameReads {
  const byScope = NAME_READS[kind];
  let reads = byScope[scope];
  if (!reads || reads.size > MAX_NAMES) byScope[scope] = reads = new Map();
  return reads;
}

function nameRead(kind: NameReadKind, scope: number, name: string): Read {
  return kind === 'global' || kind === 'liveGlobal' ? { kind, module: scope, name } : { kind, fn: scope, name };
}

/**
 * A final environment as another scope reads it (a function its module's globals, a nested
 * function its enclosing function's variables): each lookup is a taped read.
 */
export class WatchedEnv extends ReadOnlyEnv {
  private readonly reads: NameReads;

  /** `scope`: the module's index (global, liveGlobal) or the function's id (callGlobal, enclosing). */
  constructor(private readonly inner: Env, private readonly tape: Tape, private readonly kind: NameReadKind, private readonly scope: number) {
    super('a watched environment (every read is taped)');
    this.reads = nameReadsOf(kind, scope);
  }

  override get(name: string): Value | undefined {
    const v = this.inner.get(name);
    let read = this.reads.get(name);
    if (!read) {
      const r = nameRead(this.kind, this.scope, name);
      this.reads.set(name, (read = { read: r, key: readKey(r) }));
    }
    this.tape.readKeyed(read.key, read.read, v);
    return v;
  }
}

const NOTICED = Symbol('program whose uses are noticed');

/**
 * The program as rules see it while a reporting round is taped. Its structure (functions,
 * classes, imports, which module a unit is) is part of the program's shape; reading a
 * unit's text or tree, another module, or a project member is not, and marks the run as
 * depending on more than its reads.
 */
export function noticedUses(program: Program, tape: Tape): Program {
  const TEXT = new Set<PropertyKey>(['source', 'lines', 'root', 'tree']);
  const units = program.units.map((unit) => new Proxy(unit, {
    get(target, property) {
      if (TEXT.has(property)) tape.programAsked();
      return Reflect.get(target, property, target) as unknown;
    },
  }));
  return new Proxy(program, {
    get(target, property) {
      if (property === NOTICED) return { program: target, tape };
      if (property === 'units') return units;
      if (property === 'modules' || property === 'member') tape.programAsked();
      const v = Reflect.get(target, property, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

/** The program behind a noticed view, and the tape that notices, if `program` is one. */
export function noticedProgram(program: Program): { program: Program; tape: Tape } | undefined {
  return (program as unknown as Record<symbol, { program: Program; tape: Tape } | undefined>)[NOTICED];
}

/** One taped run of a function body or a module's scope. */
export interface RunEntry {
  round: RoundKind;
  recording: Recording;
  /** The scope's final environment (a function's is the closure of its nested functions). */
  env: Env;
  /** RunCache's count of analyses that moved lines, when the run was kept. */
  epoch?: number;
}

/** A module scope's run is the same run when its statements are (a `def`/`class` only binds its name). */
export interface ModuleRunEntry extends RunEntry {
  statements: readonly unknown[];
  /** The globals at each call of one of the module's functions made while the scope ran. */
  globalsAtCalls: ReadonlyMap<number, GlobalsAtCalls>;
}

/** A module's globals at the calls of one of its functions during the module's scope, up to a few. */
export interface GlobalsAtCalls {
  envs: Env[];
  /** More calls than kept: the function may also see the globals as they end. */
  more: boolean;
  /**
   * Their join (with `joinedWith`, the module's final globals, when `more`), made once: a
   * replayed module scope gives the same environments to every round and keystroke.
   */
  joined?: Env;
  joinedWith?: Env;
}

/**
 * A call of a function interpreted for its arguments: what it gave and what it read. A
 * later round of the same world whose summaries give the same reads gets the same result;
 * a muted run, so no findings to report again.
 */
export interface CallRunEntry<Result> {
  recording: Recording;
  result: Result;
  /** The arguments it was interpreted for, syntax nodes and all (valueKey, the key's part, leaves out where values came from). */
  args: ReadonlyMap<string, Value>;
  /** The analysis that interpreted it (RunCache.begin counts them), and the last one that used it. */
  made?: number;
  used?: number;
  /** RunCache's count of analyses that moved lines, when it was kept. */
  epoch?: number;
}

/**
 * Runs kept per scope, newest first: the rounds of one analysis read different summaries
 * (up to 3 muted rounds), in each of up to two device worlds (world.ts MAX_FLAGS).
 */
const KEPT_PER_SCOPE = 6;

const NO_RUNS: readonly RunEntry[] = [];

/**
 * The taped runs of one document, kept between its analyses (the language server keeps one
 * per open file) or for one analysis. Valid only for a program of the same shape: the same
 * functions, classes, imports and program-wide switches (programShape).
 */
export type RoundKind = 'muted' | 'reporting';

export class RunCache {
  private shapeOf = new WeakMap<Program, string>();

  private shapeOfProgram(program: Program): string {
    let shape = this.shapeOf.get(program);
    if (shape === undefined) this.shapeOf.set(program, (shape = programShape(program)));
    return shape;
  }
  private functions = new WeakMap<Node, RunEntry[]>();
  private readonly modules = new Map<string, ModuleRunEntry[]>();
  /** Calls interpreted for their arguments (callContexts.ts), by function and arguments: of this analysis (`callsOf`), and of the last one. */
  private readonly calls = new Map<string, Array<CallRunEntry<unknown>>>();
  private callsOf?: Program;
  /** Analyses begun (a new program), numbering CallRunEntry.made. */
  private analyses = 0;
  /**
   * How the program facts these runs read are computed, by key, to check them again
   * (programFacts.ts's FactCompute: a type import of it here would close an import cycle).
   */
  readonly factComputes = new Map<string, unknown>();
  /** Runs replayed and run, and calls interpreted for their arguments, for tests and the bench. */
  constructor(readonly counts = { replayed: 0, ran: 0, callsRan: 0 }) {}
  /** Analyses whose text put a kept statement on another line: findings made before the last one are on stale lines. */
  private epoch = 0;

  /** The analysis about to run reads a tree in which kept statements moved to other lines (or none was kept). */
  linesMoved(): void {
    this.epoch++;
  }

  /** Whether the findings of `entry`'s run name the lines they would name now. */
  onSameLines(entry: RunEntry): boolean {
    return entry.epoch === this.epoch;
  }

  private rulesKey?: string;
  /**
   * The world variables that runs of this cache read, over every analysis: a replayed run
   * reads none again, yet its outcome still depends on them (world.ts sameRun).
   */
  readonly consulted = new Set<string>();

  /** Runs replay the findings of the rules that ran then: another selection of rules forgets every run. */
  selectRules(enabled: ReadonlySet<string>): void {
    const key = [...enabled].sort().join(',');
    if (key === this.rulesKey) return;
    this.rulesKey = key;
    this.shapeProgram = undefined;
    this.functions = new WeakMap();
    this.modules.clear();
    this.calls.clear();
  }

  /** The program of the last analysis begun: its shape is worked out only when another one comes. */
  private shapeProgram?: Program;

  /** Starts an analysis of `program`: a different shape forgets every run. */
  begin(program: Program): void {
    if (program !== this.callsOf) {
      this.callsOf = program;
      this.analyses++;
      this.forgetStaleCalls();
    }
    if (program === this.shapeProgram) return;
    const last = this.shapeProgram;
    this.shapeProgram = program;
    // The first analysis of a cache (each file of a CLI run) has nothing kept to forget.
    if (!last || this.shapeOfProgram(program) === this.shapeOfProgram(last)) return;
    this.functions = new WeakMap();
    this.modules.clear();
    this.calls.clear();
  }

  /**
   * A call's result names lines (its values' origins, a branch's `else on line 7`): one of an
   * earlier analysis counts while no line has moved since, and only for the same arguments,
   * where they came from included (an argument of an edited statement is a new node). Calls
   * neither made nor used by the last analysis are forgotten: typing makes new ones each time.
   */
  private forgetStaleCalls(): void {
    for (const [key, entries] of this.calls) {
      const kept = entries.filter((e) => e.epoch === this.epoch && (e.used ?? e.made ?? 0) >= this.analyses - 1);
      if (kept.length === 0) this.calls.delete(key);
      else if (kept.length !== entries.length) this.calls.set(key, kept);
    }
  }

  /**
   * The kept runs of the call `key` (callContexts.ts contextKey) for `args` that may replay:
   * this analysis's whatever their arguments' origins (the key's part of them decides, as for
   * every call this analysis interprets), an earlier one's for these very arguments. Only the
   * interpreter keeps them, so `Result` is what it kept.
   */
  *callRuns<Result>(key: string, args: ReadonlyMap<string, Value>): Iterable<CallRunEntry<Result>> {
    for (const entry of (this.calls.get(key) ?? []) as Array<CallRunEntry<Result>>) {
      if (entry.made === this.analyses || sameDeep(entry.args, args)) yield entry;
    }
  }

  /** `entry` replays in this analysis. */
  usedCallRun(entry: CallRunEntry<unknown>): void {
    entry.used = this.analyses;
  }

  keepCallRun<Result>(key: string, entry: CallRunEntry<Result>): void {
    entry.made = this.analyses;
    entry.epoch = this.epoch;
    this.calls.set(key, [entry, ...(this.calls.get(key) ?? []).slice(0, KEPT_PER_SCOPE - 1)]);
  }

  /** The kept runs of the function `node`, newest first; one replays only in a round of its kind (RunEntry.round). */
  functionRuns(node: Node): readonly RunEntry[] {
    return this.functions.get(node) ?? NO_RUNS;
  }

  keepFunctionRun(node: Node, entry: RunEntry): void {
    entry.epoch = this.epoch;
    const kept = this.functions.get(node) ?? NO_RUNS;
    const same = kept.filter((e) => e.round === entry.round).slice(0, KEPT_PER_SCOPE - 1);
    this.functions.set(node, [entry, ...same, ...kept.filter((e) => e.round !== entry.round)]);
  }

  moduleRuns(key: string, round: RoundKind): readonly ModuleRunEntry[] {
    return (this.modules.get(key) ?? []).filter((e) => e.round === round);
  }

  keepModuleRun(key: string, entry: ModuleRunEntry): void {
    entry.epoch = this.epoch;
    const others = (this.modules.get(key) ?? []).filter((e) => e.round !== entry.round);
    this.modules.set(key, [entry, ...this.moduleRuns(key, entry.round).slice(0, KEPT_PER_SCOPE - 1), ...others]);
  }
}

/**
 * Everything outside a scope's own tree that interpretation consults without a taped read:
 * the program's functions (ids, names, parameters), classes and what was derived of them,
 * each module's imports and switches read from the whole source. Two programs of one shape
 * give a function the same meaning for the same tree and reads.
 */
export function programShape(program: Program): string {
  const parts: string[] = [
    `nb=${program.isNotebook} dd=${program.setsDefaultDevice} dt=${program.setsDefaultTensorType} units=${program.units.map((u) => u.module).join(',')}`,
    `frameworks=${importsFramework(program, 'accelerate')},${importsFramework(program, 'fabric')}`,
  ];
  for (const m of program.modules) {
    parts.push(`module ${m.index} ${m.path ?? ''} ${m.depth} [${[...m.imports.names()].map((n) => `${n}=${m.imports.qualifyName(n)}`).join(' ')}] -> ${[...m.linked].map(([n, i]) => `${n}:${i}`).join(' ')}`);
  }
  for (const f of program.functions) {
    const params = f.params.map((p) => `${p.variadic ? '*' : ''}${p.name}${p.defaultNode ? `=${p.defaultNode.text}` : ''}`).join(',');
    parts.push(`fn ${f.id} ${f.unit} ${f.name}(${params}) ${f.parent} ${f.className ?? ''} ${f.selfName ?? ''} ${f.noGrad} ${!!f.isProperty}`);
  }
  for (const c of program.classes.values()) {
    parts.push(`class ${c.key} ${c.unit} (${c.baseNodes.map((b) => b.text).join(',')}) ${c.isModule} ${!!c.placeless} ${!!c.lightning} ${[...c.methods.keys()].join(',')}`);
  }
  return parts.join('\n');
}

/**
 * The same value for interpretation: equal fields all the way down, syntax nodes by
 * identity (a value that came from an edited statement is a different value: its origin
 * names a line that changed).
 */
export function sameDeep(a: unknown, b: unknown, depth = 0): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (depth > 40 || a instanceof Node || b instanceof Node) return false;
  if (a instanceof Map) {
    if (!(b instanceof Map) || a.size !== b.size) return false;
    for (const [k, v] of a) if (!b.has(k) || !sameDeep(v, b.get(k), depth + 1)) return false;
    return true;
  }
  if (a instanceof Set) {
    if (!(b instanceof Set) || a.size !== b.size) return false;
    for (const v of a) if (!b.has(v)) return false;
    return true;
  }
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameDeep(a[i], b[i], depth + 1)) return false;
    return true;
  }
  if (Array.isArray(b) || b instanceof Map || b instanceof Set) return false;
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  // A key one side lacks reads as undefined there. No set of both sides' keys: this runs for
  // every taped read of every replay, and the garbage was a tenth of a keystroke's time.
  for (const k of Object.keys(ra)) if (!sameDeep(ra[k], rb[k], depth + 1)) return false;
  for (const k of Object.keys(rb)) if (rb[k] !== undefined && !Object.prototype.hasOwnProperty.call(ra, k)) return false;
  return true;
}
