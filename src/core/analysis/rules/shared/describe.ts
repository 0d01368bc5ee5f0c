// Wording shared by the rules' messages.
import type { Node } from '../../../python/pyNode';
import { EITHER, Value } from '../../values';

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
