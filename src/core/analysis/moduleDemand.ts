// Which of a module's imports the analysis needs to follow. An imported project module is
// read for the names its importers take from it and the names its own code uses: a
// package's `__init__.py` that re-exports fifty submodules costs one submodule for
// `from pkg import Thing`, not fifty.
import type { Node } from '../python/pyNode';
import { children } from '../python/syntax';

export const IMPORTS = new Set(['import_statement', 'import_from_statement', 'future_import_statement']);

/** Trees are shared between analyses (moduleTrees.ts) and never change: each is walked once. */
const NAMES_USED = new WeakMap<Node, ReadonlySet<string>>();

/** Every identifier the module's code names outside its import statements. */
export function namesUsed(root: Node): ReadonlySet<string> {
  let used = NAMES_USED.get(root);
  if (!used) NAMES_USED.set(root, (used = walkNamesUsed(root)));
  return used;
}

/** Whether `used` holds any of `names` (a set, or a map's keys); walks the smaller of the two. */
export function usesAnyOf(used: ReadonlySet<string>, names: { has(name: string): boolean; keys(): Iterable<string>; readonly size: number }): boolean {
  if (used.size <= names.size) {
    for (const name of used) if (names.has(name)) return true;
  } else {
    for (const name of names.keys()) if (used.has(name)) return true;
  }
  return false;
}

function walkNamesUsed(root: Node): Set<string> {
  const used = new Set<string>();
  const stack: Node[] = [root];
  while (stack.length) {
    const node = stack.pop()!;
    if (node.type === 'identifier') used.add(node.text);
    else if (!IMPORTS.has(node.type)) for (const c of children(node)) stack.push(c);
  }
  return used;
}

/** Every module an import may load, outermost first: `a.b.c` loads `a`, `a.b` and `a.b.c`; `.utils.train` may be a submodule. */
export function moduleCandidates(qualified: string): string[] {
  const dots = /^\.*/.exec(qualified)![0];
  const parts = qualified.slice(dots.length).split('.').filter((p) => p !== '');
  const out: string[] = [];
  if (dots && parts.length <= 1) out.push(dots);
  for (let i = 1; i <= parts.length; i++) out.push(dots + parts.slice(0, i).join('.'));
  return out;
}

/**
 * What an import of `qualified` binds, given the longest candidate that is a project module:
 * the whole module (`import utils`, `from pkg import submodule`), or one name of it
 * (`from model import Net` → `Net` of `model`).
 */
export function demandedOf(qualified: string, deepestModule: string): 'all' | string {
  if (deepestModule === qualified) return 'all';
  const rest = qualified.slice(deepestModule.length).replace(/^\./, '');
  return rest.split('.')[0] ?? 'all';
}
