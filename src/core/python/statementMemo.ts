// Whole-file walks split by top-level statement. After a keystroke the document's tree keeps
// every top-level statement the edit did not touch (pyNode.ts), so a walk's result for such a
// statement is still true; only the edited statement is walked again. On 10,000 lines three
// whole-file walks (the availability flags, DD011's and DD013's file facts) were a quarter of
// each keystroke's analysis.
import type { Node } from './pyNode';
import { children } from './syntax';

const KEPT = new WeakMap<Node, Map<string, unknown>>();

/**
 * `walk` of each top-level statement of `root`, last statement first: the order in which a
 * depth-first walk with a stack from `root` meets them. `key` names the walk and whatever
 * else its result depends on (the file's imports, for a walk that qualifies names).
 */
export function perStatement<T>(root: Node, key: string, walk: (statement: Node) => T): T[] {
  const statements = children(root);
  const out: T[] = [];
  for (let i = statements.length - 1; i >= 0; i--) {
    const statement = statements[i];
    let kept = KEPT.get(statement);
    if (!kept) KEPT.set(statement, (kept = new Map()));
    if (!kept.has(key)) kept.set(key, walk(statement));
    out.push(kept.get(key) as T);
  }
  return out;
}
