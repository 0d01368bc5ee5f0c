// Whole-file walks split by top-level statement. After a keystroke the document's tree keeps
// every top-level statement the edit did not touch (pyNode.ts), so a walk's result for such a
// statement is still true; only the edited statement is walked again. On 10,000 lines three
// whole-file walks (the availability flags, DD011's and DD013's file facts) were a quarter of
// each keystroke's analysis.
import type { Node } from './pyNode';
import { children } from './syntax';

/**
 * By key first: a key holds the file's import signature (kilobytes in a large file), and a
 * lookup per statement compared it in full each time.
 */
const KEPT = new Map<string, WeakMap<Node, unknown>>();
/** Keys of walks no tree asks for any more are dropped, oldest first. */
const MAX_KEYS = 256;

/**
 * `walk` of each top-level statement of `root`, last statement first: the order in which a
 * depth-first walk with a stack from `root` meets them. `key` names the walk and whatever
 * else its result depends on (the file's imports, for a walk that qualifies names).
 */
export function perStatement<T>(root: Node, key: string, walk: (statement: Node) => T): T[] {
  const kept = keptFor(key) as WeakMap<Node, T>;
  const statements = children(root);
  const out: T[] = [];
  for (let i = statements.length - 1; i >= 0; i--) {
    const statement = statements[i];
    let found = kept.get(statement);
    if (found === undefined && !kept.has(statement)) kept.set(statement, (found = walk(statement)));
    out.push(found as T);
  }
  return out;
}

function keptFor(key: string): WeakMap<Node, unknown> {
  let kept = KEPT.get(key);
  if (kept) {
    // Most recently used last, so the first key is the one to drop.
    KEPT.delete(key);
  } else {
    kept = new WeakMap();
    if (KEPT.size >= MAX_KEYS) KEPT.delete(KEPT.keys().next().value!);
  }
  KEPT.set(key, kept);
  return kept;
}
