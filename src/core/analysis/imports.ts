// Resolves local names to qualified names through the program's imports, so that
// `t.randn`, `nn.Linear` and `F.cross_entropy` are recognised as torch APIs.
import type { Node } from '../python/parser';
import { children, field, unparen } from '../python/syntax';

export class ImportTable {
  private readonly aliases = new Map<string, string>();

  /** Collects every import in the tree (module level and inside functions). */
  addFrom(root: Node): void {
    const stack: Node[] = [root];
    while (stack.length) {
      const node = stack.pop()!;
      if (node.type === 'import_statement') this.addImport(node);
      else if (node.type === 'import_from_statement') this.addImportFrom(node);
      else if (node.namedChildCount > 0 && node.type !== 'string') stack.push(...children(node));
    }
  }

  private addImport(node: Node): void {
    for (const item of children(node)) {
      if (item.type === 'dotted_name') {
        // `import torch.nn` binds `torch`.
        const root = item.text.split('.')[0];
        this.aliases.set(root, root);
      } else if (item.type === 'aliased_import') {
        const name = field(item, 'name');
        const alias = field(item, 'alias');
        if (name && alias) this.aliases.set(alias.text, name.text);
      }
    }
  }

  private addImportFrom(node: Node): void {
    const moduleNode = field(node, 'module_name');
    if (!moduleNode || moduleNode.type !== 'dotted_name') return;
    const module = moduleNode.text;
    for (const item of children(node)) {
      if (item.id === moduleNode.id) continue;
      if (item.type === 'dotted_name') this.aliases.set(item.text, `${module}.${item.text}`);
      else if (item.type === 'aliased_import') {
        const name = field(item, 'name');
        const alias = field(item, 'alias');
        if (name && alias) this.aliases.set(alias.text, `${module}.${name.text}`);
      }
    }
  }

  /** `nn.functional.relu` → `torch.nn.functional.relu`; undefined when not rooted in an import. */
  qualify(node: Node): string | undefined {
    const n = unparen(node);
    if (n.type === 'identifier') return this.aliases.get(n.text);
    if (n.type === 'attribute') {
      const obj = field(n, 'object');
      const attr = field(n, 'attribute');
      if (!obj || !attr) return undefined;
      const base = this.qualify(obj);
      return base ? `${base}.${attr.text}` : undefined;
    }
    return undefined;
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
