// Resolves local names to qualified names through the program's imports, so that
// `t.randn`, `nn.Linear` and `F.cross_entropy` are recognised as torch APIs.
import type { Node } from '../python/pyNode';
import { perStatement } from '../python/statementMemo';
import { children, dottedKey, field } from '../python/syntax';

/** Statements that cannot contain an import: no need to look inside them. */
const LEAF_STATEMENTS = new Set([
  'expression_statement', 'return_statement', 'assert_statement', 'raise_statement', 'delete_statement',
  'pass_statement', 'break_statement', 'continue_statement', 'global_statement', 'nonlocal_statement',
  'comment', 'string', 'type_alias_statement', 'print_statement', 'exec_statement', 'future_import_statement',
  'identifier', 'argument_list', 'parameters', 'decorator', 'keyword_argument', 'call', 'attribute',
]);

export class ImportTable {
  private readonly aliases = new Map<string, string>();
  /** `import a.b.c` binds only `a` but loads `a.b.c`: kept for resolving project modules. */
  private readonly plainImports = new Set<string>();
  /** `from models import *`: the modules whose names a star import binds (Program.link spells them out). */
  readonly starImports = new Set<string>();

  private signatureText?: string;

  /** Every name this table binds and what it means: equal tables qualify every name alike. */
  signature(): string {
    return (this.signatureText ??= interned(`${[...this.aliases].map(([k, v]) => `${k}=${v}`).join(';')}|${[...this.plainImports].join(';')}`));
  }

  /** Collects every import statement (module level and inside functions and blocks). */
  addFrom(root: Node): void {
    this.signatureText = undefined;
    // In statement order, so that a later import of a name rebinds it as Python does
    // (`from callback.lr_scheduler import f`, then `from transformers import f`).
    const byStatement = perStatement(root, 'imports', importStatementsIn).reverse();
    for (const found of byStatement) {
      for (const node of found) {
        if (node.type === 'import_statement') this.addImport(node);
        else this.addImportFrom(node);
      }
    }
  }

  private addImport(node: Node): void {
    for (const item of children(node)) {
      if (item.type === 'dotted_name') {
        // `import torch.nn` binds `torch`.
        const root = item.text.split('.')[0];
        this.aliases.set(root, root);
        this.plainImports.add(item.text);
      } else if (item.type === 'aliased_import') {
        const name = field(item, 'name');
        const alias = field(item, 'alias');
        if (name && alias) this.aliases.set(alias.text, name.text);
      }
    }
  }

  private addImportFrom(node: Node): void {
    const moduleNode = field(node, 'module_name');
    if (!moduleNode || (moduleNode.type !== 'dotted_name' && moduleNode.type !== 'relative_import')) return;
    // `from ..pkg import x` qualifies `x` as `..pkg.x`: never a torch name, resolvable as a project module.
    const module = moduleNode.text.replace(/\s+/g, '');
    for (const item of children(node)) {
      if (item.id === moduleNode.id) continue;
      if (item.type === 'wildcard_import') this.starImports.add(module);
      else if (item.type === 'dotted_name') this.aliases.set(item.text, module.endsWith('.') ? `${module}${item.text}` : `${module}.${item.text}`);
      else if (item.type === 'aliased_import') {
        const name = field(item, 'name');
        const alias = field(item, 'alias');
        if (name && alias) this.aliases.set(alias.text, module.endsWith('.') ? `${module}${name.text}` : `${module}.${name.text}`);
      }
    }
  }

  /**
   * The qualified names that loading local `name` needs (`Net` → `model.Net`; `a` of
   * `import a.b.c` → `a.b.c` too), for following project modules by demand.
   */
  qualifiedNamesOf(name: string): string[] {
    const base = this.aliases.get(name);
    if (base === undefined) return [];
    const out = [base];
    for (const p of this.plainImports) if (p.startsWith(`${name}.`) && base === name) out.push(p);
    return out;
  }

  /** Every qualified name an import binds (`torch.nn`, `model.Net`, `.utils.train`), for resolving project modules. */
  qualifiedNames(): string[] {
    return [...new Set([...this.aliases.values(), ...this.plainImports])];
  }

  /** `nn.functional.relu` → `torch.nn.functional.relu`; undefined when not rooted in an import. */
  qualify(node: Node): string | undefined {
    const key = dottedKey(node);
    if (!key) return undefined;
    const dot = key.indexOf('.');
    const base = this.aliases.get(dot < 0 ? key : key.slice(0, dot));
    return base && (dot < 0 ? base : `${base}${key.slice(dot)}`);
  }

  /**
   * `from models import *` spelled out once the program has read `models`: each public name it
   * defines or imports (`names`, with what it stands for there), unless an import of this
   * module binds it already.
   */
  bindStarred(bindings: ReadonlyMap<string, string>): void {
    for (const [name, qualified] of bindings) {
      if (this.aliases.has(name)) continue;
      this.aliases.set(name, qualified);
      this.signatureText = undefined;
    }
  }

  /** What a bare imported name stands for (`Net` → `model.Net`). */
  qualifyName(name: string): string | undefined {
    return this.aliases.get(name);
  }

  /** True when any `torch` module is imported at all (otherwise nothing is tensor code). */
  get importsTorch(): boolean {
    for (const q of this.aliases.values()) if (q === 'torch' || q.startsWith('torch.')) return true;
    return false;
  }

  /** Local names bound by imports (always defined, for fix validity checks). */
  names(): IterableIterator<string> {
    return this.aliases.keys();
  }
}

/** The import statements in `statement`, in the order a depth-first walk with a stack meets them. */
function importStatementsIn(statement: Node): Node[] {
  const found: Node[] = [];
  const stack: Node[] = [statement];
  while (stack.length) {
    const node = stack.pop()!;
    const type = node.type;
    if (type === 'import_statement' || type === 'import_from_statement') found.push(node);
    else if (!LEAF_STATEMENTS.has(type)) stack.push(...children(node));
  }
  return found;
}

/**
 * One string object per signature text: memos compare a statement's kept signature with `===`,
 * and two equal strings of kilobytes (each keystroke's table makes a new one) compare in full.
 */
function interned(text: string): string {
  const known = SIGNATURES.get(text);
  if (known !== undefined) return known;
  if (SIGNATURES.size >= KEPT_SIGNATURES) SIGNATURES.delete(SIGNATURES.keys().next().value!);
  SIGNATURES.set(text, text);
  return text;
}

const SIGNATURES = new Map<string, string>();
const KEPT_SIGNATURES = 256;
