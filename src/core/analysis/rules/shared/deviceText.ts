// The device expression a fix writes (`device`, `self.device`, `"cuda"`), and the check
// that it only names variables that exist where the fix inserts it. Shared by the rules
// whose fixes move a value (DD001, DD002).
import type { Node } from '../../../python/pyNode';
import { dottedKey } from '../../../python/syntax';
import type { RuleFrame as Frame } from '../../ruleApi';
import { Arg, EITHER, Place, UNTRACKED } from '../../values';

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

/**
 * A plain name that now holds a device the other side is not on (`device` rebound to the
 * CPU after the model moved): writing it would move nothing, and fix-all would add
 * `.to(device)` again and again.
 */
function reboundElsewhere(frame: Frame, text: string, place: Place): boolean {
  if (!/^[A-Za-z_]\w*$/.test(text)) return false;
  const now = frame.env.get(text);
  return !!now && now.kind === 'device' && now.place !== UNTRACKED && (now.place & place) === 0;
}

/** The device expression the accelerator side was moved with, or one derived from it. */
export function deviceTextFor(frame: Frame, other: Arg): string | undefined {
  const text = other.value.deviceText;
  // After `if cuda: model.cuda()` a literal "cuda" would break the CPU path: derive it instead.
  const literalOnOnePath = other.value.place === EITHER && !!text && /^["'\d]/.test(text);
  // Text from a move the parser could not read whole (`.to(dev ice)`) is not copied into other code.
  const fromBrokenCode = !!other.value.origin?.node.hasError;
  if (text && !literalOnOnePath && !fromBrokenCode && !reboundElsewhere(frame, text, other.value.place)
    && canReference(frame, text, other.value.origin?.node)) return text;
  const key = dottedKey(other.node);
  if (!key || !canReference(frame, key)) return undefined;
  if (other.value.kind === 'module') return `next(${key}.parameters()).device`;
  if (other.value.kind === 'tensor') return `${key}.device`;
  return undefined;
}
