// The analysed program: one or more units (a file, or a notebook's code cells in order)
// and an index of its functions and classes, for call-site propagation.
import type { Tree } from '../python/parser';
import type { Node } from '../python/pyNode';
import { children, field } from '../python/syntax';
import { ImportTable } from './imports';
import { isLightningModuleBase, markLightningClasses } from './frameworkNames';
import { scanScope, ScopeFacts } from './scopeScan';

export interface Unit {
  index: number;
  tree: Tree;
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
}

export interface FunctionInfo {
  id: number;
  unit: number;
  node: Node;
  name: string;
  params: ParamInfo[];
  /** Enclosing function's id, or -1 for module level. */
  parent: number;
  className?: string;
  /** Name of the instance parameter (`self`) for ordinary methods. */
  selfName?: string;
  noGrad: boolean;
  body: Node;
}

export interface ClassInfo {
  name: string;
  unit: number;
  node: Node;
  baseNodes: Node[];
  methods: Map<string, FunctionInfo>;
  isModule: boolean;
  /** Subclasses a Lightning `LightningModule`: its hooks run on the Trainer's device (frameworks.ts). */
  lightning?: boolean;
}

export class Program {
  readonly imports = new ImportTable();
  readonly functions: FunctionInfo[] = [];
  /** Module-level functions by name (the last definition wins, as in Python). */
  readonly topFunctions = new Map<string, FunctionInfo>();
  readonly classes = new Map<string, ClassInfo>();
  private readonly scopeFacts = new Map<number, ScopeFacts>();

  /** `torch.set_default_device(...)` anywhere: factories without `device=` are not known to be on the CPU. */
  readonly setsDefaultDevice: boolean;

  /** Notebook cells display their last expression's value: it is not discarded. */
  constructor(readonly units: Unit[], readonly isNotebook = false) {
    this.setsDefaultDevice = units.some((u) => /\bset_default_(device|tensor_type)\s*\(/.test(u.source));
    for (const unit of units) this.imports.addFrom(unit.root);
    for (const unit of units) this.indexBlock(unit.index, unit.root, -1, undefined);
    for (const cls of this.classes.values()) cls.isModule = this.subclassesModule(cls, new Set());
    markLightningClasses(this.classes, (n) => this.imports.qualify(n));
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
    const decoratorNames = decorators.map((d) => (children(d)[0] ? this.decoratorName(children(d)[0]) : ''));
    const isStatic = decoratorNames.some((d) => d === 'staticmethod');
    const isClassMethod = decoratorNames.some((d) => d === 'classmethod');
    const info: FunctionInfo = {
      id: this.functions.length,
      unit,
      node,
      name,
      params,
      parent,
      className: cls?.name,
      selfName: cls && !isStatic && !isClassMethod && params.length > 0 && !params[0].variadic ? params[0].name : undefined,
      noGrad: decoratorNames.some((d) => d === 'torch.no_grad' || d === 'torch.inference_mode'),
      body,
    };
    this.functions.push(info);
    if (cls) cls.methods.set(name, info);
    else if (parent === -1) this.topFunctions.set(name, info);
    this.indexBlock(unit, body, info.id, undefined);
  }

  private decoratorName(expr: Node): string {
    const callee = expr.type === 'call' ? field(expr, 'function') : expr;
    if (!callee) return '';
    return this.imports.qualify(callee) ?? callee.text;
  }

  private indexClass(unit: number, node: Node, parent: number): void {
    const name = field(node, 'name')?.text;
    const body = field(node, 'body');
    if (!name || !body) return;
    const superclasses = field(node, 'superclasses');
    const baseNodes = superclasses ? children(superclasses).filter((c) => c.type !== 'keyword_argument') : [];
    const cls: ClassInfo = { name, unit, node, baseNodes, methods: new Map(), isModule: false };
    if (parent === -1) this.classes.set(name, cls);
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
        if (n) params.push({ name: n.text, defaultNode: field(p, 'value') ?? undefined, variadic: keywordOnly });
      } else if (p.type === 'typed_parameter') {
        const n = children(p)[0];
        if (n?.type === 'identifier') params.push({ name: n.text, variadic: keywordOnly });
        else if (n) params.push({ name: n.text.replace(/^\*+/, ''), variadic: true });
      } else if (p.type === 'list_splat_pattern' || p.type === 'dictionary_splat_pattern') {
        params.push({ name: p.text.replace(/^\*+/, ''), variadic: true });
        keywordOnly = true;
      } else if (p.type === 'keyword_separator') {
        keywordOnly = true;
      }
    }
    return params;
  }

  private subclassesModule(cls: ClassInfo, seen: Set<string>): boolean {
    if (seen.has(cls.name)) return false;
    seen.add(cls.name);
    return cls.baseNodes.some((base) => {
      const q = this.imports.qualify(base);
      if (q === 'torch.nn.Module' || q === 'torch.nn.modules.module.Module' || (q && /^torch\.nn\.[A-Z]\w*$/.test(q)) || isLightningModuleBase(q)) return true;
      const local = this.classes.get(base.text);
      return !!local && this.subclassesModule(local, seen);
    });
  }

  /** Names and evidence of a scope's body; computed once, shared by every round. */
  factsOf(body: Node): ScopeFacts {
    let facts = this.scopeFacts.get(body.id);
    if (!facts) this.scopeFacts.set(body.id, (facts = scanScope(body, this.imports)));
    return facts;
  }

  /** The class and its base classes defined in the program, nearest first. */
  classLineage(className: string): string[] {
    const out: string[] = [];
    let cls = this.classes.get(className);
    while (cls && !out.includes(cls.name)) {
      out.push(cls.name);
      cls = cls.baseNodes.map((b) => this.classes.get(b.text)).find((c) => !!c);
    }
    return out;
  }

  /** The function or class method a call names, with how many leading params the call skips. */
  methodOf(className: string | undefined, method: string): FunctionInfo | undefined {
    if (!className) return undefined;
    const seen = new Set<string>();
    let cls = this.classes.get(className);
    while (cls && !seen.has(cls.name)) {
      seen.add(cls.name);
      const m = cls.methods.get(method);
      if (m) return m;
      cls = cls.baseNodes.map((b) => this.classes.get(b.text)).find((c) => !!c);
    }
    return undefined;
  }
}
