// A module moved in place while the code walks a container of modules moves every module the
// container holds: `for m in nets.values(): m.to(device)`, `[d[k].to(device) for k in d]`.
// Module.to() changes the module itself, so the container's entries are moved too, though the
// move's result is thrown away.
import type { Node } from '../python/pyNode';
import { children, field, unparen } from '../python/syntax';
import type { Frame } from './frame';
import { isContainer, type Value } from './values';

const COMPREHENSIONS = new Set(['list_comprehension', 'set_comprehension', 'generator_expression', 'dictionary_comprehension']);

/**
 * The name of the container whose modules a move of `receiver` reaches: `c[k]` with a key not
 * written as a literal (which module is not known, so each may be it), or a loop variable of
 * `for m in c`, `c.values()`, `for k, m in c.items()` (a `for` around the move, or the
 * comprehension the move is written in).
 */
export function walkedContainer(receiver: Node): string | undefined {
  const obj = unparen(receiver);
  if (obj.type === 'subscript') {
    const container = field(obj, 'value');
    const key = field(obj, 'subscript');
    return container?.type === 'identifier' && key && !isLiteral(key) ? container.text : undefined;
  }
  if (obj.type !== 'identifier') return undefined;
  for (let n = obj.parent; n; n = n.parent) {
    if (n.type === 'function_definition' || n.type === 'class_definition') return undefined;
    const clauses = n.type === 'for_statement' ? [n] : COMPREHENSIONS.has(n.type) ? children(n).filter((c) => c.type === 'for_in_clause') : [];
    for (const clause of clauses) {
      const container = iteratedBy(field(clause, 'left'), field(clause, 'right'), obj.text);
      if (container) return container;
    }
  }
  return undefined;
}

function isLiteral(node: Node): boolean {
  return ['string', 'integer', 'float', 'true', 'false', 'none', 'concatenated_string'].includes(unparen(node).type);
}

/** `c` when the loop binds `name` to one of c's values. */
function iteratedBy(left: Node | null, right: Node | null, name: string): string | undefined {
  if (!left || !right) return undefined;
  const iterated = unparen(right);
  if (iterated.type === 'identifier') return left.type === 'identifier' && left.text === name ? iterated.text : undefined;
  if (iterated.type !== 'call' || (field(iterated, 'arguments') && children(field(iterated, 'arguments')!).some((c) => !['(', ')'].includes(c.type)))) return undefined;
  const method = field(iterated, 'function');
  const owner = method?.type === 'attribute' ? field(method, 'object') : null;
  const attr = method?.type === 'attribute' ? field(method, 'attribute')?.text : undefined;
  if (owner?.type !== 'identifier') return undefined;
  if (attr === 'values') return left.type === 'identifier' && left.text === name ? owner.text : undefined;
  if (attr === 'items') {
    const parts = children(left).filter((c) => c.type === 'identifier');
    return (left.type === 'pattern_list' || left.type === 'tuple_pattern') && parts.length === 2 && parts[1].text === name ? owner.text : undefined;
  }
  return undefined;
}

/** The container with each module it holds where `moved` is (a module without parameters stays as it is). */
export function withModulesMoved(container: Value, moved: Value): Value {
  const move = (v: Value): Value => (v.kind === 'module' && !v.placeless ? { ...v, place: moved.place, deviceText: moved.deviceText, origin: moved.origin } : v);
  return {
    ...container,
    ...(container.elements ? { elements: container.elements.map(move) } : {}),
    ...(container.entries ? { entries: new Map([...container.entries].map(([k, v]) => [k, move(v)])) } : {}),
    ...(container.anyElement ? { anyElement: move(container.anyElement) } : {}),
  };
}

/** Moves the modules of the container a move of `receiver` walks, in the frame's own names. */
export function moveWalkedContainer(frame: Frame, receiver: Node, moved: Value): void {
  const name = walkedContainer(receiver);
  const container = name === undefined ? undefined : frame.env.get(name);
  if (name !== undefined && container && isContainer(container)) frame.env.set(name, withModulesMoved(container, moved));
}
