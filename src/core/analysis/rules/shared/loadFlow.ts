// Whether a `torch.load` inside a function has any device in its own flow (DD013). The
// file's device choice (an availability check, a --device option, another class's device
// parameter) says where the program's models run; a load that a function or class without
// any device in it reads as data (a Dataset's tensors, indexed and kept), and that it hands
// to no model and returns to no caller, is not a checkpoint that choice is about.
import type { Node } from '../../../python/pyNode';
import { children, field, unparen } from '../../../python/syntax';

/** Words by which a function or class shows it deals with a device itself (`.to(device)`, `.cuda()`, `use_gpu`). */
const DEVICE_WORDS = /device|cuda|gpu|is_available|accelerator|\bmps\b/i;

/** Uses that make what a scope loads the state of a model or optimizer. */
const RESTORES = /\b(load_state_dict|load_checkpoint|set_state_dict)\b|\.(eval|train)\s*\(/;

/** Calls that look at a value without taking it anywhere. */
const INSPECTS = new Set(['len', 'print', 'isinstance', 'type', 'sorted', 'list', 'enumerate']);

/**
 * The load sits in a function, neither it nor an enclosing function or class names a device
 * or restores a model, and what it loads stays there (no return, no call takes it whole).
 * At module level (a script, a notebook cell) the file's choice is the load's own flow.
 */
export function loadedOutsideDeviceFlow(load: Node): boolean {
  const scopes: Node[] = [];
  for (let n = load.parent; n; n = n.parent) if (n.type === 'function_definition' || n.type === 'class_definition') scopes.push(n);
  const fn = scopes.find((s) => s.type === 'function_definition');
  if (!fn || scopes.some((s) => DEVICE_WORDS.test(s.text) || RESTORES.test(s.text))) return false;
  const body = field(fn, 'body');
  if (!body) return false;
  if (takenAway(load)) return false;
  const name = boundName(load);
  return !name || !usesOf(body, name).some(takenAway);
}

/** The plain name the load's result is assigned to (`data = torch.load(path)`). */
function boundName(load: Node): string | undefined {
  const parent = load.parent;
  if (parent?.type !== 'assignment' || field(parent, 'right')?.id !== load.id) return undefined;
  const target = unparen(field(parent, 'left') ?? parent);
  return target.type === 'identifier' ? target.text : undefined;
}

/** Identifiers named `name` in a body, nested functions and lambdas included (they may capture it). */
function usesOf(body: Node, name: string): Node[] {
  const out: Node[] = [];
  const stack: Node[] = [body];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.type === 'identifier' && n.text === name) out.push(n);
    stack.push(...children(n));
  }
  return out;
}

/**
 * The value itself leaves: returned or yielded, passed whole to a call, or (a use of its
 * name) given another name or attribute, whose uses are not followed here.
 */
function takenAway(value: Node): boolean {
  let n = value;
  while (n.parent && ['parenthesized_expression', 'expression_list', 'tuple', 'list', 'pattern_list'].includes(n.parent.type)) n = n.parent;
  const parent = n.parent;
  if (!parent) return false;
  if (parent.type === 'return_statement' || parent.type === 'yield') return true;
  if (parent.type === 'argument_list' || parent.type === 'keyword_argument') {
    const call = parent.type === 'argument_list' ? parent.parent : parent.parent?.parent;
    const callee = call ? field(call, 'function') : null;
    return !(callee?.type === 'identifier' && INSPECTS.has(callee.text));
  }
  return value.type === 'identifier' && (parent.type === 'assignment' || parent.type === 'augmented_assignment') && field(parent, 'right')?.id === n.id;
}
