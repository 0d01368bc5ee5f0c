// Wording shared by the rules' messages, and the check that a fix only names
// variables that exist where it is inserted.
import type { Node } from '../../python/pyNode';
import type { Frame } from '../frame';
import { EITHER, Value } from '../values';

export function shortText(node: Node, max = 40): string {
  const text = node.text.replace(/\s+/g, ' ');
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function accelPhrase(v: Value): string {
  return v.place === EITHER ? 'may be on an accelerator' : 'is on an accelerator';
}

/** " (moved to device on line 3)": where the value got its place, for messages. */
export function lineOf(v: Value): string {
  if (!v.origin) return '';
  const what = v.origin.what.replace(/ here$/, '');
  return ` (${what} on line ${v.origin.node.startPosition.row + 1})`;
}

/** The enclosing function definition of a node, or null at module level. */
function enclosingFunction(node: Node): Node | null {
  let n = node.parent;
  while (n && n.type !== 'function_definition') n = n.parent;
  return n;
}

/**
 * Can `text` (a device expression such as `device`, `self.device`, `"cuda"`) be written
 * at a point in `frame`? Yes for literals, for names bound in or visible from the scope,
 * and for the exact expression the other side was moved with in this same scope.
 */
export function canReference(frame: Frame, text: string, movedIn?: Node): boolean {
  if (/^["']/.test(text) || /^\d+$/.test(text)) return true;
  const root = /^[A-Za-z_]\w*/.exec(text)?.[0];
  if (!root) return false;
  if (frame.names.has(root) || frame.outer?.has(root) || frame.env.has(root)) return true;
  if (movedIn) {
    const fn = enclosingFunction(movedIn);
    return frame.fn ? fn?.id === frame.fn.node.id : fn === null;
  }
  return false;
}
