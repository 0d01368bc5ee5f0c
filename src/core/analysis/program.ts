// The analysed program: one or more units (a file, or a notebook's code cells in order)
// and an index of its functions and classes, for call-site propagation; with a project,
// also the project modules it imports (and they import), each with its own names.
import type { Node } from '../python/pyNode';
import { children, field } from '../python/syntax';
import { ImportTable } from './imports';
import { demandedOf, moduleCandidates, namesUsed, usesAnyOf } from './moduleDemand';
import { isLightningModuleBase, markLightningClasses } from './frameworkNames';
import { scopeFacts, ScopeFacts } from './scopeScan';
import { keptOnlyAsNumber } from './numberAttributes';
import { DATALOADER_CLASSES, INHERITED_TORCH_ATTRIBUTES, isDistributionClass, isPlacelessModuleClass, MODULE_BASE_CLASSES, normalizationWithoutState, WRAPPER_MODULES } from './torchApi';

export interface Unit {
  index: number;
  /** The module this unit belongs to: 0 for the analysed file or notebook. */
  module: number;
  root: Node;
  source: string;
  lines: string[];
  /** The unit's line ending, for inserted lines. */
  eol: string;
}

export interface ParamInfo {
  name: string;
  defaultNode?: Node;
  /** *args / **kwargs / keyword-only after a bare `*`: not matched positionally. */
  variadic: boolean;
  /** `*args`: it takes every positional argument from its position on. */
  rest?: boolean;
  /** The type annotation's expression (`torch.Tensor` in `x: torch.Tensor`), when written. */
  annotation?: Node;
}

export interface FunctionInfo {
  id: number;
  unit: number;
  module: number;
  node: Node;
  name: string;
  params: ParamInfo[];
  /** Enclosing function's id, or -1 for module level. */
  parent: number;
  /** The key of the class (ClassInfo.key) whose method this is. */
  className?: string;
  /** Name of the instance parameter (`self`) for ordinary methods. */
  selfName?: string;
  noGrad: boolean;
  /** A `@property` (or cached one): `self.name` runs it, without a call. */
  isProperty?: boolean;
  body: Node;
}

export interface ClassInfo {
  name: string;
  /** Unique in the program: the name for the analysed file's classes, `name@module` for imported ones. */
  key: string;
  unit: number;
  module: number;
  node: Node;
  baseNodes: Node[];
  methods: Map<string, FunctionInfo>;
  isModule: boolean;
  /**
   * A subclass of torch's DataLoader that leaves iteration to it (no `__iter__`/`__next__` of
   * its own): its batches are what DataLoader's are.
   */
  isLoader?: boolean;
  /**
   * The torch wrapper a subclass extends (`class MyDataParallel(nn.DataParallel)`, which only
   * adds attribute forwarding): an instance is the module it is given, as the wrapper's is.
   */
  wraps?: string;
  /**
   * A Module without parameters or buffers of its own: a subclass of a loss or an activation
   * (`class MaskedLoss(nn.CrossEntropyLoss)`) that adds none. Calling it never mismatches by itself.
   */
  placeless?: boolean;
  /**
   * The constructor's parameters that it keeps as they are (`self.k = k`): given plain values
   * (numbers, strings) at a construction, that instance holds nothing and is placeless too.
   */
  placelessGiven?: string[];
  /** Subclasses a Lightning `LightningModule`: its hooks run on the Trainer's device (frameworks.ts). */
  lightning?: boolean;
}

/**
 * What the program read from a class's text and bases when it was built (ClassInfo's facts),
 * as one string: a construction depends on it, and an edit of the class's body can change it
 * while nothing the constructing run reads from the summaries changes (runCache.ts Read
 * `classFacts`).
 */
export function classFactsOf(cls: ClassInfo | undefined): string | undefined {
  if (!cls) return undefined;
  return `${cls.isModule}|${cls.isLoader ?? ''}|${cls.wraps ?? ''}|${cls.placeless ?? ''}|${cls.placelessGiven?.join(',') ?? '-'}|${cls.lightning ?? ''}`;
}

/** One Python module of the program: its imports and top-level names. */
export interface ModuleInfo {
  index: number;
  /** Absolute path (from the project context); undefined without one. */
  path?: string;
  units: Unit[];
  imports: ImportTable;
  /** Module-level functions by name (the last definition wins, as in Python). */
  topFunctions: Map<string, FunctionInfo>;
  /** Module-level classes by their name in this module. */
  classes: Map<string, ClassInfo>;
  /** Project modules this one imports, by the name it imports them as (`model`, `.utils`). */
  linked: Map<string, number>;
  depth: number;
}

/** Reads and parses project modules for the program (analyze.ts, with the front end's resolver). */
export interface ModuleLoader {
  /**
   * The module `name` (`pkg.data`, `.utils`, `..`) imported from `from`, as a unit numbered
   * `unitIndex`; only its path when it is the analysed file (an importer importing it back).
   */
  load(from: ModuleInfo, name: string, unitIndex: number, moduleIndex: number): { path: string; unit?: Unit } | undefined;
  /**
   * Files of the project that import the analysed file, as units from `unitIndex` on: their
   * code runs (muted) with the analysed file's, so facts flow back from where its classes
   * and functions are used (`Net` moved to the GPU in train.py).
   */
  importers?(unitIndex: number, firstModuleIndex: number): Array<{ path: string; units: Unit[] }>;
}

/** What a qualified name (`model.Net`, `.utils.train`, `config.device`) is in the project. */
export type ProjectMember =
  | { kind: 'class'; cls: ClassInfo }
  | { kind: 'function'; fn: FunctionInfo }
  | { kind: 'value'; module: number; name: string }
  | { kind: 'module'; module: number };

/** Imported modules are followed this many imports deep, and at most this many in all. */
const MAX_IMPORT_DEPTH = 3;
const MAX_MODULES = 48;

/** A torch.nn class by its qualified name (`torch.nn.Linear`, `torch.nn.modules.rnn.RNNCellBase`). */
const TORCH_NN_CLASS = /^torch\.nn\.(modules\.\w+\.)?[A-Z]\w*$/;

/** Python's own classes: a base the analysis knows is no module. */
const BUILTIN_BASES = new Set(['object', 'ABC', 'abc.ABC', 'Exception', 'dict', 'list', 'tuple', 'str', 'int', 'float', 'Enum', 'enum.Enum', 'NamedTuple', 'typing.NamedTuple']);

export class Program {
  readonly functions: FunctionInfo[] = [];
  /** Every class of every module, by ClassInfo.key. */
  readonly classes = new Map<string, ClassInfo>();
  /** modules[0] is the analysed file or notebook; the rest are project modules it imports. */
  readonly modules: ModuleInfo[] = [];
  /** Every unit: the analysed ones first (their indices are cell indices), imported modules after. */
  readonly units: Unit[];
  private readonly scopeFacts = new Map<number, ScopeFacts>();
  /** isPlacelessClass's answers: a class held by two others, or by one twice, is decided once. */
  private readonly placelessAnswers = new Map<string, boolean>();
  /** Definitions by the node id of their `def` / `class` statement. */
  private readonly functionsByNode = new Map<number, FunctionInfo>();
  private readonly classesByNode = new Map<number, ClassInfo>();
  /** Modules that import the analysed file (ModuleLoader.importers): roots of what a round runs, like the analysed file. */
  readonly importerModules = new Set<number>();
  private readonly analysedFileNames = new Map<number, ReadonlySet<string>>();
  private readonly analysedFileUsers = new Map<FunctionInfo, boolean>();

  /**
   * An importer's function names what the importer takes from the analysed file; a method
   * counts when any method of its class does (`self.noise = Noise(cfg)` in `__init__`,
   * `self.noise.perturb(a)` in another method).
   */
  usesAnalysedFile(fn: FunctionInfo): boolean {
    let uses = this.analysedFileUsers.get(fn);
    if (uses !== undefined) return uses;
    const names = this.namesOfAnalysedFile(fn.module);
    const cls = fn.className ? this.classes.get(fn.className) : undefined;
    uses = names.size > 0 && (cls ? [...cls.methods.values()] : [fn]).some((f) => usesAnyOf(namesUsed(f.node), names));
    this.analysedFileUsers.set(fn, uses);
    return uses;
  }

  /**
   * The names module `module`'s imports bind to the analysed file or to something it defines
   * (`Net` of `from model import Net`, `model` of `import model`).
   */
  namesOfAnalysedFile(module: number): ReadonlySet<string> {
    let names = this.analysedFileNames.get(module);
    if (names) return names;
    const info = this.modules[module];
    const prefixes = [...info.linked].filter(([, index]) => index === 0).map(([name]) => name);
    const found = new Set<string>();
    for (const name of info.imports.names()) {
      const q = info.imports.qualifyName(name);
      if (q && prefixes.some((p) => q === p || q.startsWith(`${p}.`))) found.add(name);
    }
    this.analysedFileNames.set(module, (names = found));
    return names;
  }

  /** `torch.set_default_device(...)` anywhere: factories without `device=` are not known to be on the CPU. */
  readonly setsDefaultDevice: boolean;
  /** `torch.set_default_tensor_type(...)` anywhere: the generic `torch.Tensor(...)` follows it, so its place is not known. */
  readonly setsDefaultTensorType: boolean;
  /**
   * Only the analysed file's module code sets it (no function, no imported module, no
   * `set_default_tensor_type`): module code before the call still makes CPU tensors, and
   * after it tensors on the device it names; functions, which may run at any time, do not know.
   */
  readonly defaultDeviceFollowsModuleCode: boolean;

  /** Notebook cells display their last expression's value: it is not discarded. */
  constructor(units: Unit[], readonly isNotebook = false, loader?: ModuleLoader, path?: string) {
    this.units = [...units];
    this.setsDefaultDevice = units.some((u) => /\bset_default_(device|tensor_type)\s*\(/.test(u.source));
    this.setsDefaultTensorType = units.some((u) => /\bset_default_tensor_type\s*\(/.test(u.source));
    this.addModule(units, path, 0);
    // A file that imports no torch, not even through `from x import *`, is no tensor code
    // (analyze.ts stops there): what it imports need not be read.
    if (loader && (this.imports.importsTorch || this.imports.starImports.size > 0)) this.link(loader);
    for (const cls of this.classes.values()) cls.isModule = this.subclassesModule(cls, new Set());
    for (const cls of this.classes.values()) if (!cls.isModule && this.subclassesLoader(cls, new Set())) cls.isLoader = true;
    for (const cls of this.classes.values()) if (cls.isModule) cls.placeless = this.isPlacelessClass(cls, new Set());
    for (const cls of this.classes.values()) if (cls.isModule) cls.wraps = this.wrapperExtended(cls, new Set());
    markLightningClasses(this.classes, (n) => this.imports.qualify(n));
    const setsDefault = /\bset_default_(device|tensor_type)\s*\(/;
    this.defaultDeviceFollowsModuleCode = this.setsDefaultDevice
      && !units.some((u) => /\bset_default_tensor_type\s*\(/.test(u.source))
      && !this.units.some((u) => u.module !== 0 && setsDefault.test(u.source))
      && !this.functions.some((f) => setsDefault.test(f.node.text));
  }

  /** The analysed file's imports (for `importsTorch`). */
  get imports(): ImportTable {
    return this.modules[0].imports;
  }

  /** The analysed file's module-level functions. */
  get topFunctions(): Map<string, FunctionInfo> {
    return this.modules[0].topFunctions;
  }

  moduleOf(unit: number): ModuleInfo {
    return this.modules[this.units[unit]?.module ?? 0];
  }

  /** The unit is the analysed file's (a cell of the analysed notebook), not an imported or importing file's. */
  inAnalysedFile(unit: number): boolean {
    return (this.units[unit]?.module ?? 0) === 0;
  }

  /** The import table that names in this unit resolve through. */
  importsAt(unit: number): ImportTable {
    return this.moduleOf(unit).imports;
  }

  private addModule(units: Unit[], path: string | undefined, depth: number): ModuleInfo {
    const info: ModuleInfo = {
      index: this.modules.length, path, units, imports: new ImportTable(), topFunctions: new Map(), classes: new Map(), linked: new Map(), depth,
    };
    this.modules.push(info);
    for (const unit of units) info.imports.addFrom(unit.root);
    for (const unit of units) this.indexBlock(unit.index, unit.root, -1, undefined);
    return info;
  }

  /**
   * Follows imports of project modules breadth first, each file once, by demand: the
   * analysed file's every import; an imported module's imports only for the names its
   * own code uses or an importer takes from it (moduleDemand.ts).
   */
  private link(loader: ModuleLoader): void {
    this.linkModules(loader);
    // `from utils import *` where utils/__init__.py star-imports utils/torch.py, which
    // imports torch: a star import binds what its module binds once that module's own star
    // imports were read, which the breadth-first walk does after it. Bound again until
    // nothing is added (a binding never replaces one).
    for (let changed = true, rounds = 0; changed && rounds < this.modules.length; rounds++) {
      changed = false;
      for (const { from, star, target } of this.starredLinks) {
        const before = [...from.imports.names()].length;
        from.imports.bindStarred(this.starBindings(star, this.modules[target]));
        if ([...from.imports.names()].length !== before) changed = true;
      }
    }
  }

  /** Each star import followed: the importing module, the imported name, the module it is. */
  private readonly starredLinks: Array<{ from: ModuleInfo; star: string; target: number }> = [];

  private linkModules(loader: ModuleLoader): void {
    const byPath = new Map<string, number>();
    if (this.modules[0].path) byPath.set(this.modules[0].path, 0);
    const followed = new Map<number, Set<string>>();
    const work: Array<{ module: number; names: 'all' | Iterable<string> }> = [{ module: 0, names: 'all' }];
    for (const importer of loader.importers?.(this.units.length, this.modules.length) ?? []) {
      if (byPath.has(importer.path) || this.modules.length >= MAX_MODULES) continue;
      // A notebook importer is a unit per code cell, as the analysed notebook is.
      const units = importer.units.map((u, i) => ({ ...u, index: this.units.length + i, module: this.modules.length }));
      this.units.push(...units);
      const info = this.addModule(units, importer.path, 1);
      byPath.set(importer.path, info.index);
      this.importerModules.add(info.index);
      work.push({ module: info.index, names: new Set(units.flatMap((u) => [...namesUsed(u.root)])) });
    }
    const starred = new Set<number>();
    while (work.length > 0) {
      const { module, names } = work.shift()!;
      const from = this.modules[module];
      if (from.depth >= MAX_IMPORT_DEPTH) continue;
      if (!starred.has(module) && from.imports.starImports.size) {
        // A module taken whole follows every star import; another only those that define
        // a name it is asked for (timm's models/__init__.py star-imports a hundred files).
        if (names === 'all') starred.add(module);
        const wanted = names === 'all' ? undefined : [...names].filter((n) => !this.bindsItself(from, n));
        if ((!wanted || wanted.length) && this.linkStarImports(loader, from, byPath, work, wanted) === 'full') return;
      }
      const done = followed.get(module) ?? new Set<string>();
      followed.set(module, done);
      const wanted = [...(names === 'all' ? from.imports.names() : names)].filter((n) => !done.has(n));
      for (const local of wanted) {
        done.add(local);
        for (const qualified of from.imports.qualifiedNamesOf(local)) {
          if (/^torch(\.|$)/.test(qualified)) continue;
          let deepest: { index: number; name: string } | undefined;
          for (const name of moduleCandidates(qualified)) {
            const index = this.linkModule(loader, from, name, byPath, work);
            if (index === 'full') return;
            if (index !== undefined) deepest = { index, name };
          }
          if (deepest) work.push({ module: deepest.index, names: demandedOf(qualified, deepest.name) === 'all' ? 'all' : [demandedOf(qualified, deepest.name)] });
        }
      }
    }
  }

  /**
   * `from models import *` of a project module: the module is followed whole, and the
   * names it binds are spelled out in `from`'s import table (ImportTable.bindStarred).
   */
  private linkStarImports(
    loader: ModuleLoader, from: ModuleInfo, byPath: Map<string, number>, work: Array<{ module: number; names: 'all' | Iterable<string> }>,
    wanted?: readonly string[],
  ): 'full' | undefined {
    for (const star of from.imports.starImports) {
      if (/^torch(\.|$)/.test(star)) continue;
      const own = star.replace(/(.)\.$/, '$1');
      if (wanted && !from.linked.has(own)) {
        // Read before linking: a module that binds none of the wanted names is not followed.
        const peek = loader.load(from, own, this.units.length, this.modules.length);
        // An importer's `from model import *` of the analysed file itself (loaded as a path, not parsed again).
        const roots = peek?.unit ? [peek.unit.root] : peek && byPath.get(peek.path) === 0 ? this.modules[0].units.map((u) => u.root) : [];
        if (!roots.some((root) => mayBind(root, wanted))) continue;
      } else if (wanted) continue;
      let target: number | undefined;
      for (const name of moduleCandidates(star)) {
        const index = this.linkModule(loader, from, name, byPath, work);
        if (index === 'full') return 'full';
        target = name === star || name === star.replace(/\.$/, '') ? index : target;
      }
      if (target === undefined || target === from.index) continue;
      from.imports.bindStarred(this.starBindings(star, this.modules[target]));
      this.starredLinks.push({ from, star, target });
      work.push({ module: target, names: wanted ?? 'all' });
    }
    return undefined;
  }

  /** `name` is bound in the module itself: imported by name, or a class, function or assignment of its top level. */
  private bindsItself(mod: ModuleInfo, name: string): boolean {
    return mod.imports.qualifyName(name) !== undefined || mod.classes.has(name) || mod.topFunctions.has(name) ||
      mod.units.some((unit) => topLevelNames(unit.root).has(name));
  }

  /**
   * What `from <star> import *` binds: the public classes, functions and module-level names
   * the module defines (as `<star>.name`), and the names it imports: a project module's as
   * `<star>.name` (resolved through the module, as a re-export), another library's as that
   * module says (`nn` → `torch.nn`).
   */
  private starBindings(star: string, mod: ModuleInfo): Map<string, string> {
    const prefix = star.endsWith('.') ? star : `${star}.`;
    const out = new Map<string, string>();
    const own = (name: string) => !name.startsWith('_') && out.set(name, `${prefix}${name}`);
    for (const name of mod.imports.names()) {
      const q = mod.imports.qualifyName(name);
      if (!q || name.startsWith('_')) continue;
      const project = q.startsWith('.') || [...mod.linked.keys()].some((k) => q === k || q.startsWith(`${k}.`));
      out.set(name, project ? `${prefix}${name}` : q);
    }
    for (const unit of mod.units) {
      for (const statement of children(unit.root)) {
        const assigned = statement.type === 'expression_statement' ? children(statement)[0] : undefined;
        const left = assigned?.type === 'assignment' ? field(assigned, 'left') : undefined;
        if (left?.type === 'identifier') own(left.text);
      }
    }
    for (const name of mod.classes.keys()) own(name);
    for (const name of mod.topFunctions.keys()) own(name);
    return out;
  }

  /** The module `name` imported from `from`: loaded (and queued for what its code uses) the first time its file is seen. */
  private linkModule(loader: ModuleLoader, from: ModuleInfo, name: string, byPath: Map<string, number>, work: Array<{ module: number; names: 'all' | Iterable<string> }>): number | undefined | 'full' {
    const linked = from.linked.get(name);
    if (linked !== undefined) return linked;
    if (this.modules.length >= MAX_MODULES) return 'full';
    const loaded = loader.load(from, name, this.units.length, this.modules.length);
    if (!loaded) return undefined;
    const known = byPath.get(loaded.path);
    if (known !== undefined) {
      from.linked.set(name, known);
      return known;
    }
    if (!loaded.unit) return undefined;
    this.units.push(loaded.unit);
    const info = this.addModule([loaded.unit], loaded.path, from.depth + 1);
    byPath.set(loaded.path, info.index);
    from.linked.set(name, info.index);
    work.push({ module: info.index, names: namesUsed(loaded.unit.root) });
    return info.index;
  }

  private reachedFunctions?: readonly FunctionInfo[];

  /**
   * The functions a round interprets: all of the analysed file's, and an imported module's
   * only when the analysed code can reach it by name (a function or class named in reached
   * code, every method of a reached class, transitively). Findings are never reported in
   * imported modules; what they contribute is what reached code calls, and a repository's
   * hub modules hold hundreds of functions no importer calls.
   */
  get functionsRun(): readonly FunctionInfo[] {
    if (this.reachedFunctions) return this.reachedFunctions;
    if (this.modules.length === 1) return (this.reachedFunctions = this.functions);
    const byName = new Map<string, FunctionInfo[]>();
    const add = (name: string, f: FunctionInfo) => {
      const list = byName.get(name);
      if (list) list.push(f);
      else byName.set(name, [f]);
    };
    const isRoot = (module: number) => module === 0 || this.importerModules.has(module);
    for (const f of this.functions) {
      if (f.module === 0) continue;
      const cls = f.className ? this.classes.get(f.className) : undefined;
      add(cls && f.parent === -1 ? cls.name : f.name, f);
    }
    const reached = new Set<number>();
    const pending: Node[] = this.units.filter((u) => isRoot(u.module)).map((u) => u.root);
    const seenNames = new Set<string>();
    while (pending.length > 0) {
      for (const name of namesUsed(pending.pop()!)) {
        if (seenNames.has(name)) continue;
        seenNames.add(name);
        for (const f of byName.get(name) ?? []) {
          if (reached.has(f.id)) continue;
          reached.add(f.id);
          const cls = f.className ? this.classes.get(f.className) : undefined;
          pending.push(f.node);
          // A reached method's class brings its bases along (their methods run for it).
          if (cls) pending.push(...cls.baseNodes);
        }
      }
    }
    return (this.reachedFunctions = this.functions.filter((f) => f.module === 0 || reached.has(f.id)));
  }

  /** `model.Net` seen in `unit`: the class, function, value or module of the project it names. */
  member(unit: number, qualified: string): ProjectMember | undefined {
    return this.memberIn(unit, qualified, new Set());
  }

  /** `seen`: re-exports already followed (`pkg/__init__.py` may import from itself, or two packages from each other). */
  private memberIn(unit: number, qualified: string, seen: Set<string>): ProjectMember | undefined {
    const mod = this.moduleOf(unit);
    if (mod.linked.size === 0) return undefined;
    const whole = mod.linked.get(qualified);
    if (whole !== undefined) return { kind: 'module', module: whole };
    const dot = qualified.lastIndexOf('.');
    if (dot < 0 || dot === qualified.length - 1) return undefined;
    // `..train` (from `from .. import train`) is member `train` of module `..`.
    const target = mod.linked.get(qualified.slice(0, dot === 0 || qualified[dot - 1] === '.' ? dot + 1 : dot));
    if (target === undefined) return undefined;
    const name = qualified.slice(dot + 1);
    const other = this.modules[target];
    const cls = other.classes.get(name);
    if (cls) return { kind: 'class', cls };
    const fn = other.topFunctions.get(name);
    if (fn) return { kind: 'function', fn };
    // `from pkg import data` where data is re-exported by pkg/__init__.py from a submodule.
    return this.reexport(other, name, seen) ?? { kind: 'value', module: target, name };
  }

  private reexport(mod: ModuleInfo, name: string, seen: Set<string>): ProjectMember | undefined {
    const unit = mod.units[0];
    const q = mod.imports.qualifyName(name);
    const key = `${mod.index}:${name}`;
    if (!unit || !q || q === name || seen.has(key)) return undefined;
    seen.add(key);
    return this.memberIn(unit.index, q, seen);
  }

  /** The function a `def` statement defines (the node of the `function_definition`). */
  functionDefinedBy(node: Node): FunctionInfo | undefined {
    return this.functionsByNode.get(node.id);
  }

  classDefinedBy(node: Node): ClassInfo | undefined {
    return this.classesByNode.get(node.id);
  }

  /** A class or function named by a bare identifier in `unit`: its own module's, or an imported one. */
  localClass(unit: number, name: string): ClassInfo | undefined {
    const mod = this.moduleOf(unit);
    const own = mod.classes.get(name);
    if (own) return own;
    const q = mod.imports.qualifyName(name);
    const m = q ? this.member(unit, q) : undefined;
    return m?.kind === 'class' ? m.cls : undefined;
  }

  localFunction(unit: number, name: string): FunctionInfo | undefined {
    const mod = this.moduleOf(unit);
    const own = mod.topFunctions.get(name);
    if (own) return own;
    const q = mod.imports.qualifyName(name);
    const m = q ? this.member(unit, q) : undefined;
    return m?.kind === 'function' ? m.fn : undefined;
  }

  private indexBlock(unit: number, block: Node, parent: number, cls: ClassInfo | undefined): void {
    for (const stmt of children(block)) this.indexStatement(unit, stmt, parent, cls);
  }

  private indexStatement(unit: number, stmt: Node, parent: number, cls: ClassInfo | undefined): void {
    let node = stmt;
    let decorators: Node[] = [];
    if (node.type === 'decorated_definition') {
      decorators = children(node).filter((c) => c.type === 'decorator');
      const def = field(node, 'definition');
      if (!def) return;
      node = def;
    }
    if (node.type === 'function_definition') {
      this.indexFunction(unit, node, decorators, parent, cls);
    } else if (node.type === 'class_definition') {
      this.indexClass(unit, node, parent);
    } else {
      // Definitions nested in if/try/with/for blocks at the same scope level.
      for (const c of children(node)) {
        if (c.type === 'block' || c.type.endsWith('_clause') || c.type === 'ERROR') this.indexBlock(unit, c, parent, cls);
      }
    }
  }

  private indexFunction(unit: number, node: Node, decorators: Node[], parent: number, cls: ClassInfo | undefined): void {
    const name = field(node, 'name')?.text ?? '<lambda>';
    const body = field(node, 'body');
    if (!body) return;
    const params = this.parseParams(field(node, 'parameters'));
    const decoratorNames = decorators.map((d) => (children(d)[0] ? this.decoratorName(unit, children(d)[0]) : ''));
    const isStatic = decoratorNames.some((d) => d === 'staticmethod');
    const isClassMethod = decoratorNames.some((d) => d === 'classmethod');
    const info: FunctionInfo = {
      id: this.functions.length,
      unit,
      module: this.units[unit].module,
      node,
      name,
      params,
      parent,
      className: cls?.key,
      selfName: cls && !isStatic && !isClassMethod && params.length > 0 && !params[0].variadic ? params[0].name : undefined,
      noGrad: decoratorNames.some((d) => d === 'torch.no_grad' || d === 'torch.inference_mode'),
      ...(decoratorNames.some((d) => d === 'property' || d === 'functools.cached_property') ? { isProperty: true } : {}),
      body,
    };
    this.functions.push(info);
    this.functionsByNode.set(node.id, info);
    if (cls) cls.methods.set(name, info);
    else if (parent === -1) this.moduleOf(unit).topFunctions.set(name, info);
    this.indexBlock(unit, body, info.id, undefined);
  }

  private decoratorName(unit: number, expr: Node): string {
    const callee = expr.type === 'call' ? field(expr, 'function') : expr;
    if (!callee) return '';
    return this.importsAt(unit).qualify(callee) ?? callee.text;
  }

  private indexClass(unit: number, node: Node, parent: number): void {
    const name = field(node, 'name')?.text;
    const body = field(node, 'body');
    if (!name || !body) return;
    const superclasses = field(node, 'superclasses');
    const baseNodes = superclasses ? children(superclasses).filter((c) => c.type !== 'keyword_argument') : [];
    const module = this.units[unit].module;
    // A class defined in a function (a marimo cell, a test) is the program's too, under a key
    // of its own: its name is bound where the `class` statement runs, not in the module.
    const local = parent === -1 ? name : `${name}#${parent}`;
    const cls: ClassInfo = { name, key: module === 0 ? local : `${local}@${module}`, unit, module, node, baseNodes, methods: new Map(), isModule: false };
    this.classesByNode.set(node.id, cls);
    this.classes.set(cls.key, cls);
    if (parent === -1) this.modules[module].classes.set(name, cls);
    this.indexBlock(unit, body, parent, cls);
  }

  private parseParams(paramsNode: Node | null): ParamInfo[] {
    if (!paramsNode) return [];
    const params: ParamInfo[] = [];
    let keywordOnly = false;
    for (const p of children(paramsNode)) {
      if (p.type === 'identifier') params.push({ name: p.text, variadic: keywordOnly });
      else if (p.type === 'default_parameter' || p.type === 'typed_default_parameter') {
        const n = field(p, 'name');
        if (n) params.push({ name: n.text, defaultNode: field(p, 'value') ?? undefined, variadic: keywordOnly, annotation: annotationOf(p) });
      } else if (p.type === 'typed_parameter') {
        const n = children(p)[0];
        if (n?.type === 'identifier') params.push({ name: n.text, variadic: keywordOnly, annotation: annotationOf(p) });
        else if (n) params.push({ name: n.text.replace(/^\*+/, ''), variadic: true });
      } else if (p.type === 'list_splat_pattern' || p.type === 'dictionary_splat_pattern') {
        params.push({ name: p.text.replace(/^\*+/, ''), variadic: true, ...(p.type === 'list_splat_pattern' ? { rest: true } : {}) });
        keywordOnly = true;
      } else if (p.type === 'keyword_separator') {
        keywordOnly = true;
      }
    }
    return params;
  }

  /** Every base is a parameterless torch module (or such a class of the program), and the class adds no state. */
  private isPlacelessClass(cls: ClassInfo, seen: Set<string>): boolean {
    const known = this.placelessAnswers.get(cls.key);
    if (known !== undefined) return known;
    // A class met again while it is being decided holds itself: not known to be placeless.
    if (seen.has(cls.key) || cls.baseNodes.length === 0) return false;
    seen.add(cls.key);
    const answer = this.decidePlaceless(cls, seen);
    this.placelessAnswers.set(cls.key, answer);
    return answer;
  }

  private decidePlaceless(cls: ClassInfo, seen: Set<string>): boolean {
    const holdsNoModule = (construction: string): string[] | undefined => this.buildsNoModuleState(cls, construction, seen);
    const holders = new Set([...cls.methods.values()].flatMap((m) => [...m.node.text.matchAll(HOLDER_ASSIGNMENT)].map((h) => h[1]!)));
    const programBases = cls.baseNodes.length > 0 && cls.baseNodes.every((base) => !!this.baseClass(cls, base)?.isModule);
    const classText = [...cls.methods.values()].map((m) => m.node.text).join('\n');
    if ([...cls.methods.values()].some((m) => addsModuleState(m, holdsNoModule, holders, programBases, classText))) return false;
    // What a base of the program's keeps of what this class hands it (`super().__init__(weight)`):
    // this class's own constructor arguments, kept as if it kept them itself.
    const handedOn: string[] = [];
    const basesPlaceless = cls.baseNodes.every((base) => {
      const q = this.importsAt(cls.unit).qualify(base);
      if (q && MODULE_BASE_CLASSES.has(q)) return true;
      if (q && TORCH_NN_CLASS.test(q)) return isPlacelessModuleClass(q.slice(q.lastIndexOf('.') + 1));
      const local = this.baseClass(cls, base);
      if (!local?.isModule) return false;
      if (this.isPlacelessClass(local, seen)) return true;
      const names = local.placelessGiven ? this.handedToBase(cls, local) : undefined;
      if (names) handedOn.push(...names);
      return names !== undefined;
    });
    if (!basesPlaceless) return false;
    // What the class keeps of its constructor's arguments (`self.encoder = encoder`), also under
    // a base of the program's: a subclass hands it modules through `super().__init__(enc, dec)`.
    const own = constructorValuesKept(cls, holdsNoModule, (value) => isPlainTensorText(value) || this.callsTensorMaker(cls, value));
    const kept = own && [...new Set([...own, ...handedOn])];
    if (kept && kept.length > 0 && cls.baseNodes.length === 1) cls.placelessGiven = kept;
    return kept !== undefined && kept.length === 0;
  }

  /**
   * The names of `cls`'s own constructor arguments that its `__init__` hands to `base`'s
   * constructor in the places `base` keeps (`base.placelessGiven`); undefined when one of
   * those gets anything else (a tensor built there), or the call is not read here.
   */
  private handedToBase(cls: ClassInfo, base: ClassInfo): string[] | undefined {
    const init = this.methodOf(cls.key, '__init__');
    const baseInit = this.methodOf(base.key, '__init__');
    if (!init || init.className !== cls.key || !baseInit || baseInit.className !== base.key) return undefined;
    const text = init.node.text;
    const calls = [...text.matchAll(BASE_INIT_CALL)];
    if (calls.length !== 1) return undefined;
    const found = calls[0]!;
    const call = parseConstruction(callText(text, found.index! + found[0].lastIndexOf('__init__')));
    if (!call || call.splat) return undefined;
    // `Base.__init__(self, ...)` passes the instance first; `super().__init__(...)` does not.
    const positional = /^super\b/.test(found[0]) ? call.positional : call.positional.slice(1);
    const params = baseInit.params.slice(1).map((p) => p.name);
    const own = new Set(init.params.slice(1).filter((p) => !p.variadic).map((p) => p.name));
    const names: string[] = [];
    for (const given of base.placelessGiven!) {
      const at = params.indexOf(given);
      const arg = call.keywords.get(given) ?? (at >= 0 ? positional[at] : undefined);
      if (arg === undefined || SCALAR_LITERAL.test(arg)) continue;
      if (!own.has(arg)) return undefined;
      names.push(arg);
    }
    return names;
  }

  /**
   * `gauss_kernel(channels=channels)`, `self.mask_correlated_samples(n)`: a call of a function
   * of the program, or of a method of the class, that makes and returns a plain tensor.
   */
  private callsTensorMaker(cls: ClassInfo, value: string): boolean {
    const call = /^(self\.)?([A-Za-z_]\w*)\s*\(/.exec(value);
    if (!call || !parseConstruction(value)) return false;
    const fn = call[1] ? this.methodOf(cls.key, call[2]!) : this.localFunction(cls.unit, call[2]!);
    return !!fn && (call[1] !== undefined || fn.className === undefined) && returnsPlainTensor(fn);
  }

  /**
   * `self.x = Helper(...)` in a method of `cls`: undefined when what it builds may give the
   * module state, else the names whose values must be plain for it to give none. An instance
   * of a plain class of the program is no submodule (nn.Module registers and moves none of its
   * tensors); a program module class without state is placeless itself, and one that only
   * keeps what it is given (`SubsetOperator(k=k, tau=tau)`) holds nothing when those are plain.
   */
  private buildsNoModuleState(cls: ClassInfo, construction: string, seen: Set<string>): string[] | undefined {
    const call = parseConstruction(construction);
    if (!call) return undefined;
    const { callee } = call;
    const q = callee.includes('.') ? this.importsAt(cls.unit).qualifyName(callee.slice(0, callee.indexOf('.'))) : undefined;
    const member = q ? this.member(cls.unit, `${q}${callee.slice(callee.indexOf('.'))}`) : undefined;
    const built = callee.includes('.') ? (member?.kind === 'class' ? member.cls : undefined) : this.localClass(cls.unit, callee);
    if (!built) {
      // `nn.BCEWithLogitsLoss()`, `nn.ReLU()`: a torch.nn class without parameters or buffers,
      // given no weight tensor, holds nothing.
      const torchName = this.importsAt(cls.unit).qualifyName(callee.split('.')[0]!);
      const qualified = torchName && `${torchName}${callee.includes('.') ? callee.slice(callee.indexOf('.')) : ''}`;
      // `nn.ModuleList()`, `nn.ModuleList([Part(k) for k in sizes])`: a holder holds what it is given.
      if (qualified && MODULE_HOLDERS.test(qualified) && !call.splat && call.keywords.size === 0) {
        return this.heldBuildNoModuleState(cls, call.positional, seen);
      }
      // `nn.NLLLoss(weight=weight)` with the constructor's own `weight=None`: state only when given a tensor.
      const weights = [...call.keywords].filter(([k]) => /weight/.test(k)).map(([, v]) => v.trim());
      const weighted = weights.some((v) => !/^[A-Za-z_]\w*$/.test(v) && v !== 'None') || call.splat || call.positional.some((a) => !SCALAR_LITERAL.test(a));
      // `Uniform(-spread, spread)`: a torch.distributions object is no module and no parameter.
      if (qualified && isDistributionClass(qualified)) return [];
      const torchClass = qualified && /^torch\.nn\.(modules\.\w+\.)?[A-Z]\w*$/.test(qualified) ? qualified.slice(qualified.lastIndexOf('.') + 1) : undefined;
      if (torchClass && !call.splat && normalizationWithoutState(torchClass, (k) => call.keywords.get(k), call.positional.length)) return [];
      return torchClass && !weighted && isPlacelessModuleClass(torchClass) ? weights.filter((v) => v !== 'None') : undefined;
    }
    if (!built.isModule) return this.isPlainClass(built, new Set()) ? [] : undefined;
    // A class without state holds nothing, whatever it is given (`FocalLoss(**kwargs)`).
    if (this.isPlacelessClass(built, seen)) return [];
    const init = built.placelessGiven && !call.splat ? this.methodOf(built.key, '__init__') : undefined;
    if (!init) return undefined;
    const params = init.params.slice(1).map((p) => p.name);
    const names: string[] = [];
    for (const given of built.placelessGiven!) {
      const at = params.indexOf(given);
      const arg = call.keywords.get(given) ?? (at >= 0 ? call.positional[at] : undefined);
      if (arg === undefined || SCALAR_LITERAL.test(arg)) continue;
      if (!/^[A-Za-z_]\w*$/.test(arg)) return undefined;
      names.push(arg);
    }
    return names;
  }

  /**
   * What a module holder is given (`[A(), B(k)]`, `[Part(n) for n in sizes]`, or nothing):
   * the names that must be plain for none of it to give state, or undefined when some of it
   * may (a name holding modules, a call of unknown kind).
   */
  private heldBuildNoModuleState(cls: ClassInfo, items: readonly string[], seen: Set<string>): string[] | undefined {
    const held = heldConstructions(items);
    if (!held) return undefined;
    const names: string[] = [];
    for (const construction of held.constructions) {
      const needed = this.buildsNoModuleState(cls, construction, seen);
      if (!needed) return undefined;
      // A comprehension's own variable (`Part(n) for n in sizes`) is no name the caller gives.
      names.push(...needed.filter((n) => !held.bound.has(n)));
    }
    return names;
  }

  /** A class of the program whose bases are `object` or plain classes of the program: surely no nn.Module. */
  private isPlainClass(cls: ClassInfo, seen: Set<string>): boolean {
    if (seen.has(cls.key)) return false;
    seen.add(cls.key);
    return cls.baseNodes.every((base) => {
      if (base.text === 'object') return true;
      const local = this.baseClass(cls, base);
      return !!local && !local.isModule && this.isPlainClass(local, seen);
    });
  }

  private subclassesLoader(cls: ClassInfo, seen: Set<string>): boolean {
    if (seen.has(cls.key) || cls.methods.has('__iter__') || cls.methods.has('__next__')) return false;
    seen.add(cls.key);
    return cls.baseNodes.some((base) => {
      const q = this.importsAt(cls.unit).qualify(base);
      if (q && DATALOADER_CLASSES.has(q)) return true;
      const local = this.baseClass(cls, base);
      return !!local && this.subclassesLoader(local, seen);
    });
  }

  private wrapperExtended(cls: ClassInfo, seen: Set<string>): string | undefined {
    if (seen.has(cls.key)) return undefined;
    seen.add(cls.key);
    for (const base of cls.baseNodes) {
      const q = this.importsAt(cls.unit).qualify(base);
      if (q && WRAPPER_MODULES.has(q)) return q;
      const local = this.baseClass(cls, base);
      const extended = local && this.wrapperExtended(local, seen);
      if (extended) return extended;
    }
    return undefined;
  }

  private subclassesModule(cls: ClassInfo, seen: Set<string>): boolean {
    if (seen.has(cls.key)) return false;
    seen.add(cls.key);
    if (this.moduleByItsOwnCode(cls)) return true;
    return cls.baseNodes.some((base) => {
      const q = this.importsAt(cls.unit).qualify(base);
      if ((q && MODULE_BASE_CLASSES.has(q)) || (q && TORCH_NN_CLASS.test(q)) || isLightningModuleBase(q)) return true;
      const local = this.baseClass(cls, base);
      return !!local && this.subclassesModule(local, seen);
    });
  }

  /**
   * A class whose bases the analysis cannot see (`from models import BaseVAE` where that
   * module is not followed, a star import, another library's module class) but that is
   * written as a module: it has a `forward` and its `__init__` builds torch.nn layers on
   * `self` or registers buffers or parameters. Its layers and buffers then follow
   * the instance, as a torch.nn subclass's do, instead of staying where they were built.
   */
  private moduleByItsOwnCode(cls: ClassInfo): boolean {
    const init = cls.methods.get('__init__');
    if (!cls.methods.has('forward') || !init?.selfName || cls.baseNodes.length === 0) return false;
    const imports = this.importsAt(cls.unit);
    const unseen = (base: Node) => !this.baseClass(cls, base) && !BUILTIN_BASES.has(base.text) && !/^torch\./.test(imports.qualify(base) ?? '');
    if (!cls.baseNodes.every(unseen)) return false;
    const self = init.selfName;
    // `self.register_buffer(...)`, `self.register_parameter(...)`: nn.Module's own API.
    if (new RegExp(`\\b${self}\\.register_(buffer|parameter)\\s*\\(`).test(init.body.text)) return true;
    const stack: Node[] = [init.body];
    while (stack.length > 0) {
      const n = stack.pop()!;
      if (n.type === 'assignment') {
        const left = field(n, 'left');
        const right = field(n, 'right');
        const callee = right?.type === 'call' ? field(right, 'function') : null;
        if (left?.type === 'attribute' && field(left, 'object')?.text === self && callee && TORCH_NN_CLASS.test(imports.qualify(callee) ?? '')) return true;
      }
      if (n.type !== 'function_definition' && n.type !== 'class_definition') stack.push(...children(n));
    }
    return false;
  }

  /** A base class written in `cls`'s module: one of that module's classes, or an imported one. */
  private baseClass(cls: ClassInfo, base: Node): ClassInfo | undefined {
    if (base.type === 'identifier') return this.localClass(cls.unit, base.text);
    const q = this.importsAt(cls.unit).qualify(base);
    const m = q ? this.member(cls.unit, q) : undefined;
    return m?.kind === 'class' ? m.cls : undefined;
  }

  private firstBase(cls: ClassInfo): ClassInfo | undefined {
    for (const b of cls.baseNodes) {
      const found = this.baseClass(cls, b);
      if (found) return found;
    }
    return undefined;
  }

  /** Names and evidence of a scope's body; computed once, shared by every round. */
  factsOf(body: Node, unit: number): ScopeFacts {
    let facts = this.scopeFacts.get(body.id);
    if (!facts) this.scopeFacts.set(body.id, (facts = scopeFacts(body, this.importsAt(unit))));
    return facts;
  }

  /**
   * Whether the class and each base it has in the program derive from torch.nn.Module itself
   * and nothing else: no torch layer (`nn.Linear`) and no class the analysis cannot see, so
   * whatever weights it has are the ones its own methods put on `self`.
   */
  derivesOnlyFromModule(classKey: string): boolean {
    const seen = new Set<string>();
    const check = (cls: ClassInfo): boolean => {
      if (seen.has(cls.key)) return true;
      seen.add(cls.key);
      return cls.baseNodes.length > 0 && cls.baseNodes.every((base) => {
        const local = this.baseClass(cls, base);
        if (local) return check(local);
        return MODULE_BASE_CLASSES.has(this.importsAt(cls.unit).qualify(base) ?? '');
      });
    };
    const cls = this.classes.get(classKey);
    return !!cls && check(cls);
  }

  /** The class and its base classes defined in the program, nearest first (ClassInfo keys). */
  classLineage(classKey: string): string[] {
    const out: string[] = [];
    let cls = this.classes.get(classKey);
    while (cls && !out.includes(cls.key)) {
      out.push(cls.key);
      cls = this.firstBase(cls);
    }
    return out;
  }

  /**
   * What a torch class the module class extends (`class Model(nn.Transformer)`, through the
   * program's own bases too) put on `self` as `attr`: `parameter`, a torch module class, or
   * undefined (torchApi INHERITED_TORCH_ATTRIBUTES).
   */
  inheritedTorchAttribute(classKey: string, attr: string): string | undefined {
    for (const key of this.classLineage(classKey)) {
      const cls = this.classes.get(key)!;
      for (const base of cls.baseNodes) {
        const q = this.importsAt(cls.unit).qualify(base);
        const kind = q ? INHERITED_TORCH_ATTRIBUTES.get(q)?.get(attr) : undefined;
        if (kind) return kind;
      }
    }
    return undefined;
  }

  /**
   * `self.cuda(*items)` in a class that is surely no nn.Module (a trainer that moves its
   * batches): the class's own method of that name runs, not torch's `.cuda()`/`.to()`.
   */
  ownsMoveMethod(classKey: string | undefined, method: string): boolean {
    const cls = classKey ? this.classes.get(classKey) : undefined;
    return !!cls && !cls.isModule && !!this.methodOf(classKey, method) && this.isPlainClass(cls, new Set());
  }

  /** The function or class method a call names, with how many leading params the call skips. */
  methodOf(classKey: string | undefined, method: string): FunctionInfo | undefined {
    if (!classKey) return undefined;
    const seen = new Set<string>();
    let cls = this.classes.get(classKey);
    while (cls && !seen.has(cls.key)) {
      seen.add(cls.key);
      const m = cls.methods.get(method);
      if (m) return m;
      cls = this.firstBase(cls);
    }
    return undefined;
  }
}

/** The expression inside a parameter's `type` (`Optional[...]` is not looked into: it may be None). */
function annotationOf(param: Node): Node | undefined {
  const type = field(param, 'type');
  return type ? children(type)[0] ?? undefined : undefined;
}

/**
 * An nn.Module whose methods set only scalar attributes (`self.radix = radix` of an `int`
 * parameter, `self.scale = 0.5`) is like an activation: no parameters or buffers, so it is
 * wherever its inputs are. This gives the `__init__` parameters it keeps as they are
 * (`self.k = k`, unannotated: scalars only where the construction passes plain values), an
 * empty list when it holds only scalars, and undefined when it stores anything else
 * (`self.proj = build(...)` may hold a module or tensor).
 */
function constructorValuesKept(
  cls: ClassInfo,
  buildsNoModuleState: (construction: string) => string[] | undefined,
  plainTensor: (value: string) => boolean,
): string[] | undefined {
  const kept = new Set<string>();
  const numbers = new Set<string>();
  const plainAttributes = new Set<string>();
  const plainText = new Set<string>();
  for (const m of cls.methods.values()) {
    const text = m.node.text;
    for (const [, made] of text.matchAll(BUFFER_REGISTRATION)) {
      const name = bufferOfOptionalArgument(made!, m);
      if (name !== undefined) kept.add(name);
    }
    const header = text.slice(0, text.indexOf(':\n') + 1 || text.length);
    for (const match of text.matchAll(/\bself\.(\w+)\s*(?<![=!<>+\-*/%&|^])=(?!=)\s*([^\n#]*)/g)) {
      const [, attr, rhs] = match;
      // A value written over several lines (`nn.BCEWithLogitsLoss(\n reduction="none")`) is read whole.
      const value = callText(text, match.index! + match[0].length - rhs!.length).trim();
      if (SCALAR_LITERAL.test(value) || plainNumbers(value) || onlyTestedAsFlag(cls, attr!)) continue;
      // `self.name = self.__class__.__name__`, then `self.config = {"name": self.name}`: text.
      if (CLASS_NAME_TEXT.test(value) || plainMapping(value, plainText)) {
        plainText.add(attr!);
        continue;
      }
      // `self.kernel = (torch.ones(1, 1, 3, 3) / 9).to(device)`, `self.w = np.eye(n)`, then
      // `self.kernel_t = self.kernel.clone().T`: a plain tensor or array attribute is no
      // parameter or buffer, so moving the module leaves it where it is (DD016 reports it
      // where it meets tensors elsewhere); it gives the module no place.
      const derivedFrom = /^self\.(\w+)\b/.exec(value)?.[1];
      if (plainTensor(value) || (derivedFrom !== undefined && plainAttributes.has(derivedFrom))) {
        plainAttributes.add(attr!);
        continue;
      }
      const plainIf = CONSTRUCTION.test(value) ? buildsNoModuleState(value) : undefined;
      if (plainIf) {
        // What the built module keeps must be plain: here, the constructor's own arguments.
        if (plainIf.some((name) => m.name !== '__init__' || !m.params.some((p) => p.name === name && !p.variadic))) return undefined;
        for (const name of plainIf) kept.add(name);
        continue;
      }
      if (/^[A-Za-z_]\w*$/.test(value) && new RegExp(`\\b${value}\\s*(:\\s*(int|float|bool|str)\\b|=\\s*(-?\\d|True\\b|False\\b|["']|[[(]\\s*(-?\\d|["'])))`).test(header)) continue;
      if (m.name === '__init__' && m.params.some((p) => p.name === value && !p.variadic)) {
        // Read only as an operand of arithmetic in the class (`N = 2 * self.batch_size`): no
        // module, whatever is passed (what another statement needs of it still counts).
        if (!keptOnlyAsNumber(cls.node.text, [cls.node.text], attr!, false)) kept.add(value);
        continue;
      }
      // `5 + num_classes`, `input_shape[0] * input_shape[1] / 416 ** 2`: arithmetic on the
      // constructor's own arguments, which are then no modules (a module has no `+`): a module
      // moves only its parameters, buffers and submodules, so such an argument needs no check
      // where the class is built.
      const operands = m.name === '__init__' ? arithmeticOperands(value) : undefined;
      if (operands && operands.every((name) => m.params.some((p) => p.name === name && !p.variadic))) {
        for (const name of operands) numbers.add(name);
        continue;
      }
      return undefined;
    }
  }
  return [...kept].filter((name) => !numbers.has(name));
}

const SCALAR_LITERAL = /^(-?\d[\d_.eE+-]*|True|False|None|"[^"]*"|'[^']*')$/;

/** `type(self).__name__`, `self.__class__.__name__`: the class's name, a string. */
const CLASS_NAME_TEXT = /^(?:type\(\s*self\s*\)|self\.__class__)\.__name__$/;

/** `{"name": self.name, "alpha": 0.1}`: a dict literal of literals and attributes already found plain. */
function plainMapping(value: string, plain: ReadonlySet<string>): boolean {
  const m = /^\{(.*)\}$/s.exec(value);
  if (!m) return false;
  const items = m[1]!.split(',').map((i) => i.trim()).filter(Boolean);
  return items.every((item) => {
    const kv = /^("[^"]*"|'[^']*')\s*:\s*(.+)$/.exec(item);
    if (!kv) return false;
    const v = kv[2]!.trim();
    const attr = /^self\.(\w+)$/.exec(v)?.[1];
    return SCALAR_LITERAL.test(v) || (attr !== undefined && plain.has(attr));
  });
}

/**
 * A tensor made by a torch function or legacy constructor (not torch.nn, not a load that
 * may give a module), negated or not (`~torch.eye(n, dtype=torch.bool)`), one looked up by name (`getattr(torch, window)(n)`, read up to its
 * first call: torch's own namespace builds no nn.Module), or a NumPy array.
 */
const PLAIN_TENSOR = /^[\s(~-]*(torch\.(?!(nn|load|jit|hub|compile)\b)([a-z_]\w*|(cuda\.)?([A-Z][a-z]*)?Tensor)|(np|numpy)\.[a-z_][\w.]*)\s*\(|^getattr\(\s*torch\s*,\s*\w+\s*\)/;

function isPlainTensorText(value: string): boolean {
  return PLAIN_TENSOR.test(value);
}

/**
 * `gauss_kernel(channels=3)` where the function makes a tensor and returns it (`kernel =
 * torch.tensor(...)`, `kernel = kernel.to(device)`, `return kernel`): every return is a
 * tensor or array the function made, or a name only ever bound to one.
 */
function returnsPlainTensor(fn: FunctionInfo): boolean {
  const text = fn.node.text;
  const bound = new Map<string, boolean>();
  for (const [, name, op, rhs] of text.matchAll(/^[ \t]*([A-Za-z_]\w*)[ \t]*([+\-*/]?=)(?!=)[ \t]*([^\n#]*)/gm)) {
    const plain = op !== '=' || isPlainTensorText(rhs!) || new RegExp(`^\\(*\\s*${name}\\b`).test(rhs!);
    bound.set(name!, (bound.get(name!) ?? true) && plain);
  }
  const returns = [...text.matchAll(/^[ \t]*return\b[ \t]*([^\n#]*)/gm)].map((m) => m[1]!.trim());
  // `return kernel` or `return kernel.to(device)` of a name only ever bound to one.
  const ofBound = (r: string) => bound.get(/^\(*\s*([A-Za-z_]\w*)\b/.exec(r)?.[1] ?? '') === true;
  return returns.length > 0 && returns.every((r) => isPlainTensorText(r) || ofBound(r));
}

/** The names an arithmetic expression of names, numbers and indexes reads; undefined for anything else (a call, an attribute). */
function arithmeticOperands(value: string): string[] | undefined {
  if (!/^[\w\s+\-*/%().[\]]+$/.test(value) || /[A-Za-z_]\w*\s*\(/.test(value) || /[A-Za-z_]\w*\s*\./.test(value)) return undefined;
  if (!/[+\-*/%]/.test(value)) return undefined;
  return [...new Set(value.match(/\b[A-Za-z_]\w*\b/g) ?? [])];
}

/**
 * A list or tuple of number literals (`[0.5, 1.0]`), or a list built from `range` by
 * arithmetic alone (`[2 ** i for i in range(3)]`): Python numbers, never a tensor to move.
 */
function plainNumbers(value: string): boolean {
  if (/^[[(]\s*(?:-?\d[\d_.eE+-]*\s*(?:,\s*)?)*[\])]$/.test(value)) return true;
  const m = /^\[(.+?)\s+for\s+\w+\s+in\s+range\([\w\s,+\-*]*\)\s*\]$/.exec(value);
  return !!m && /^[\w\s*+\-/%().]*$/.test(m[1]!) && !/[A-Za-z_]\w*\s*\(/.test(m[1]!) && !/[A-Za-z_]\w*\./.test(m[1]!);
}

/**
 * `self.ignore_zero` that the class only ever tests (`if self.ignore_zero:`, `not
 * self.reduce`): a switch, whatever the caller passes, never a tensor the module keeps.
 */
function onlyTestedAsFlag(cls: ClassInfo, attr: string): boolean {
  const text = cls.node.text;
  const uses = [...text.matchAll(new RegExp(`\\bself\\.${attr}\\b(?!\\s*(?<![=!<>+\\-*/%&|^])=(?!=))`, 'g'))];
  const tests = [...text.matchAll(new RegExp(`\\b(if|elif|while|not|and|or)\\s+self\\.${attr}\\b(?!\\s*[.[(])`, 'g'))];
  return uses.length > 0 && uses.length === tests.length;
}

/**
 * A method that gives a module state: parameters, buffers, a weight handed to a torch loss
 * base (`super().__init__(weight=w)` registers a buffer; `self.weight = 0.5` on a plain
 * module is an attribute, kept or not by constructorValuesKept), a submodule built from a
 * class (`self.proj = Linear(...)`), or a move of its own (`self.to(device)`; a tensor its
 * forward moves is no state).
 */
const ADDS_MODULE_STATE = /\bParameter\s*\(|\bregister_(parameter|module)\s*\(|\b(self|super\(\))\.(to|cuda)\s*\(/;

/** `super().__init__(weight=w)` into a torch loss base, which registers the weight as a buffer. */
const WEIGHT_TO_BASE_INIT = /\.__init__\s*\([^)\n]*\bweight\b/;

/** `super().__init__(weight, sigmoid_normalization)`, `Base.__init__(self, enc)`: the base's constructor called from a subclass's. */
const BASE_INIT_CALL = /\b(?:super\(\s*(?:\w+\s*,\s*\w+\s*)?\)|[A-Za-z_][\w.]*)\.__init__\s*\(/g;

/** `register_buffer("name", value`: what a buffer is made of, to the end of its line. */
const BUFFER_REGISTRATION = /\bregister_buffer\s*\(\s*(?:name\s*=\s*)?['"]\w+['"]\s*,\s*(?:tensor\s*=\s*)?([^\n]*)/g;

/**
 * `self.register_buffer('weight', weight)` in `__init__` of its argument `weight=None`: a buffer
 * only when a construction passes one (constructorValuesKept checks what each passes).
 */
function bufferOfOptionalArgument(made: string, fn: FunctionInfo): string | undefined {
  const name = /^([A-Za-z_]\w*)\s*(?:,[^()]*)?\)/.exec(made)?.[1];
  const param = name !== undefined && fn.name === '__init__' ? fn.params.find((p) => p.name === name && !p.variadic) : undefined;
  return param?.defaultNode?.text === 'None' ? name : undefined;
}

/**
 * `torch.tensor(1.0)`, `torch.tensor(target_real_label)` with a number default: a 0-dim buffer
 * (a label, a temperature), which meets tensors on any device; it gives the module no place.
 */
function isScalarBuffer(made: string, fn: FunctionInfo): boolean {
  const m = /^torch\.tensor\(\s*(-?[\d.]+(?:e-?\d+)?|[A-Za-z_]\w*)\s*[,)]/.exec(made);
  if (!m) return false;
  const arg = m[1]!;
  if (/^-?[\d.]/.test(arg)) return true;
  const param = fn.params.find((p) => p.name === arg);
  return !!param?.defaultNode && /^-?[\d.]+(e-?\d+)?$/.test(param.defaultNode.text);
}

/**
 * A 0-dim buffer its class expands to another tensor's shape (`self.real_label.expand_as(pred)`,
 * or through a local name, `target = self.real_label` then `target.expand_as(pred)`): the
 * expanded tensor has dimensions, so it is where the module is and meets inputs as any
 * buffer does (a GAN loss's label never moved with its module makes the loss raise).
 */
function expandsBuffer(classText: string, buffer: string): boolean {
  const names = [`self\\.${buffer}`];
  for (const m of classText.matchAll(new RegExp(`\\b([A-Za-z_]\\w*)\\s*=\\s*self\\.${buffer}\\s*(?:$|\\n|#)`, 'gm'))) names.push(m[1]!);
  return new RegExp(`(?:^|[^\\w.])(?:${names.join('|')})\\.(?:expand|expand_as|repeat)\\s*\\(`).test(classText);
}

/** `self.proj = nn.Linear(...)`: a construction stored on `self` (its call read on by callText). */
const SELF_CONSTRUCTION = /\bself\.\w+\s*=\s*([\w.]*\b[A-Z]\w*\s*\()/g;

/**
 * The call that starts at `start` (at its callee) to its closing parenthesis, on one line: a
 * call written over several lines (`nn.BCEWithLogitsLoss(\n reduction="none")`) is the same
 * construction. Comments inside are dropped; without a closing parenthesis, the rest of the line.
 */
function callText(text: string, start: number): string {
  let depth = 0;
  let quote = '';
  let out = '';
  for (let i = start; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === '\\') { out += c + (text[i + 1] ?? ''); i++; continue; }
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '#') { while (i + 1 < text.length && text[i + 1] !== '\n') i++; continue; }
    else if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c) && --depth === 0) return out + c;
    else if (c === '\n') {
      if (depth === 0) return out;
      out += ' ';
      continue;
    }
    out += c;
  }
  return out;
}
const CONSTRUCTION = /^[\w.]*\b[A-Z]\w*\s*\(/;

/** torch's module holders: what they hold is what gives them state. */
const MODULE_HOLDERS = /^torch\.nn\.(modules\.container\.)?(ModuleList|Sequential|ModuleDict)$/;

/** `self.parts = nn.ModuleList(`: the name of a holder a method builds. */
const HOLDER_ASSIGNMENT = /\bself\.(\w+)\s*=\s*(?:[\w.]*\.)?(?:ModuleList|Sequential|ModuleDict)\s*\(/g;

/** `self.layers.add_module(`, `self.layers.insert(`, `self.heads.update(`, `self.heads[k] =`: other ways to fill a holder. */
const HOLDER_OTHER_FILL = /\bself\.(\w+)(?:\.(?:add_module|register_module|insert|update|__setitem__)\s*\(|\s*\[[^\]\n]*\]\s*=(?!=))/g;

/** `self.parts.append(`, `self.parts.extend(`, `self.parts += [`: an addition to an attribute, up to its opening bracket. */
const HOLDER_ADDITION = /\bself\.(\w+)(?:\.(?:append|extend)\s*\(|\s*\+=\s*\[)/g;

/**
 * The constructions a holder's argument texts list (`[A(), B(k)]`, `[Part(n) for n in
 * sizes]`, `Part(n)`), or undefined when one is not a construction of a class.
 */
function heldConstructions(items: readonly string[]): { constructions: string[]; bound: Set<string> } | undefined {
  const constructions: string[] = [];
  const bound = new Set<string>();
  for (const item of items) {
    const listed = /^\[(.*)\]$/s.exec(item.trim());
    const inner = listed ? listed[1]!.trim() : item.trim();
    const comprehension = /^(.*?)\s+for\s+([\w\s,()]+?)\s+in\s+/s.exec(inner);
    for (const name of comprehension?.[2]!.match(/\w+/g) ?? []) bound.add(name);
    for (const part of comprehension ? [comprehension[1]!.trim()] : listed ? splitTopLevel(inner) : [inner]) {
      if (!CONSTRUCTION.test(part)) return undefined;
      constructions.push(part);
    }
  }
  return { constructions, bound };
}

/** Top-level comma-separated parts of an argument text (`A(1, 2), B()` → two). */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c)) depth--;
    else if (c === ',' && depth === 0) {
      parts.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  parts.push(text.slice(start).trim());
  return parts.filter(Boolean);
}

/** Whether a method's text gives its module state; `buildsNoModuleState` clears a construction of a stateless class. */
function addsModuleState(fn: FunctionInfo, buildsNoModuleState: (construction: string) => string[] | undefined, holders: ReadonlySet<string>, programBases: boolean, classText: string): boolean {
  const text = fn.node.text;
  // A base of the program's is judged by its own code (what it keeps of what it is handed).
  if (ADDS_MODULE_STATE.test(text) || (!programBases && WEIGHT_TO_BASE_INIT.test(text))) return true;
  // `self.layers.add_module(name, m)`, `self.heads[key] = m`: filled in a way not read here.
  for (const m of text.matchAll(HOLDER_OTHER_FILL)) if (holders.has(m[1]!)) return true;
  // `self.parts.append(Part(n))`, `self.parts += [Part(n)]` to one of the class's holders: what is added must hold nothing too.
  for (const m of text.matchAll(HOLDER_ADDITION)) {
    if (!holders.has(m[1]!)) continue;
    const bracket = m.index! + m[0].length - 1;
    const added = callText(text, bracket).slice(1, -1).trim();
    const held = heldConstructions(text[bracket] === '[' ? [`[${added}]`] : [added]);
    if (!held || !held.constructions.every((c) => !!buildsNoModuleState(c))) return true;
  }
  for (const [registration, made] of text.matchAll(BUFFER_REGISTRATION)) {
    if (!isScalarBuffer(made!, fn) && !bufferOfOptionalArgument(made!, fn)) return true;
    const name = /['"](\w+)['"]/.exec(registration!)?.[1];
    if (name !== undefined && isScalarBuffer(made!, fn) && expandsBuffer(classText, name)) return true;
  }
  // `self.scale = torch.Tensor([1.0])`: a legacy tensor constructor builds a tensor, not a submodule.
  for (const m of text.matchAll(SELF_CONSTRUCTION)) {
    const construction = callText(text, m.index! + m[0].length - m[1]!.length);
    if (!isPlainTensorText(construction) && !buildsNoModuleState(construction)) return true;
  }
  return false;
}

/**
 * `Name(a, k=b)` on one line: the callee, its argument texts, and whether it unpacks some
 * (`*args`, `**kwargs`); undefined when it is more than one call.
 */
function parseConstruction(text: string): { callee: string; positional: string[]; keywords: Map<string, string>; splat: boolean } | undefined {
  const open = text.indexOf('(');
  let depth = 0;
  let close = -1;
  for (let i = open; i < text.length && close < 0; i++) {
    if ('([{'.includes(text[i]!)) depth++;
    else if (')]}'.includes(text[i]!) && --depth === 0) close = i;
  }
  if (close < 0 || text.slice(close + 1).trim() !== '') return undefined;
  const positional: string[] = [];
  const keywords = new Map<string, string>();
  let splat = false;
  for (const part of splitTopLevel(text.slice(open + 1, close))) {
    const kw = /^([A-Za-z_]\w*)\s*=(?!=)\s*(.+)$/s.exec(part);
    if (kw) keywords.set(kw[1]!, kw[2]!.trim());
    else if (part.startsWith('*')) splat = true;
    else positional.push(part);
  }
  return { callee: text.slice(0, open).trim(), positional, keywords, splat };
}


const topLevelNamesOf = new WeakMap<Node, Set<string>>();

/** The names a file binds at its top level: classes, functions, assigned names and imports (nodes never change, so kept per tree). */
function topLevelNames(root: Node): Set<string> {
  let names = topLevelNamesOf.get(root);
  if (names) return names;
  names = new Set();
  const add = (n: Node | null | undefined) => n && names!.add(n.text);
  const visit = (statement: Node) => {
    switch (statement.type) {
      case 'class_definition': case 'function_definition': add(field(statement, 'name')); break;
      case 'decorated_definition': { const d = field(statement, 'definition'); if (d) visit(d); break; }
      case 'expression_statement': {
        const assigned = children(statement)[0];
        const left = assigned?.type === 'assignment' ? field(assigned, 'left') : undefined;
        if (left?.type === 'identifier') add(left);
        else if (left) for (const c of children(left)) if (c.type === 'identifier') add(c);
        break;
      }
      case 'import_statement': case 'import_from_statement':
        for (const c of children(statement)) {
          if (c.type === 'aliased_import') add(field(c, 'alias'));
          else if (c.type === 'dotted_name' && c !== field(statement, 'module_name')) add(statement.type === 'import_statement' ? children(c)[0] : children(c).at(-1));
        }
        break;
      case 'if_statement': case 'try_statement': case 'with_statement':
        for (const block of children(statement)) for (const inner of block.type === 'block' ? children(block) : children(block).filter((b) => b.type === 'block').flatMap(children)) visit(inner);
        break;
    }
  };
  for (const statement of children(root)) visit(statement);
  topLevelNamesOf.set(root, names);
  return names;
}

/** A file may bind one of `names` at its top level, or through star imports of its own (followed when linked). */
function mayBind(root: Node, names: readonly string[]): boolean {
  const bound = topLevelNames(root);
  return names.some((n) => bound.has(n)) || children(root).some((s) => s.type === 'import_from_statement' && children(s).some((c) => c.type === 'wildcard_import'));
}
