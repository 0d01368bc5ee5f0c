// The device expression a fix writes (`device`, `self.device`, `"cuda"`), and the check
// that it only names variables that exist where the fix inserts it. Shared by the rules
// whose fixes move a value (DD001, DD002).
import type { Node } from '../../../python/pyNode';
import { children, dottedKey, field } from '../../../python/syntax';
import type { ProgramView, RuleFrame as Frame } from '../../ruleApi';
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
  // The text is the move's (`nn.Linear(4, 3).to(dev)` in `build()`), at the end of the chain of
  // steps (`output` computed by `model(…)`, which was moved): whether its names exist here is asked there.
  let moved = other.value.origin;
  while (moved?.from) moved = moved.from;
  if (text && !literalOnOnePath && !fromBrokenCode && !reboundElsewhere(frame, text, other.value.place)
    && canReference(frame, text, moved?.node)) return text;
  const key = dottedKey(other.node);
  if (!key || !canReference(frame, key)) return undefined;
  if (other.value.kind === 'module') return `next(${key}.parameters()).device`;
  if (other.value.kind === 'tensor') return `${key}.device`;
  return undefined;
}

/** Where module code first binds each name (a top-level statement, or one in a top-level `if`/`for`/`with`/`try`). */
export type FirstBindings = ReadonlyMap<string, { unit: number; start: number }>;

const SCOPES = new Set(['function_definition', 'class_definition', 'decorated_definition', 'lambda']);

/** A program fact (RuleHost.programFact): the analysed file's first module-level binding of each name. */
export function firstBindings(program: ProgramView): FirstBindings {
  const out = new Map<string, { unit: number; start: number }>();
  for (const unit of program.units) {
    if (unit.module !== 0) continue;
    const stack: Node[] = [...children(unit.root)].reverse();
    while (stack.length) {
      const node = stack.pop()!;
      if (SCOPES.has(node.type)) continue;
      if (node.type === 'assignment' || node.type === 'augmented_assignment' || node.type === 'for_statement') {
        const target = field(node, node.type === 'for_statement' ? 'left' : 'left');
        for (const name of namesIn(target)) if (!out.has(name)) out.set(name, { unit: unit.index, start: node.startIndex });
      }
      stack.push(...[...children(node)].reverse());
    }
  }
  return out;
}

function namesIn(target: Node | null): string[] {
  if (!target) return [];
  if (target.type === 'identifier') return [target.text];
  if (['pattern_list', 'tuple_pattern', 'list_pattern', 'parenthesized_expression'].includes(target.type)) return children(target).flatMap(namesIn);
  return [];
}

/**
 * Can `text` be written at `at`, in the scope `frame` runs (where a model it meets was built):
 * a literal, or its first name a parameter of the function or bound above `at` (module
 * code: `bindings`; a function: its own body). `real_B.device` of a batch the loop below
 * makes is no device for the line that builds the model.
 */
export function boundAbove(frame: Frame, text: string, at: { unit: number; node: Node }, bindings: FirstBindings): boolean {
  if (/^["']/.test(text) || /^\d+$/.test(text)) return true;
  const root = /^[A-Za-z_]\w*/.exec(text)?.[0];
  if (!root) return false;
  if (!frame.fn) {
    const bound = bindings.get(root);
    return !bound || bound.unit < at.unit || (bound.unit === at.unit && bound.start < at.node.startIndex);
  }
  if (frame.fn.params.some((p) => p.name === root)) return true;
  // A name the function never binds is a global (or a builtin): there before the call.
  let boundHere = false;
  const stack: Node[] = [frame.scopeNode];
  while (stack.length) {
    const node = stack.pop()!;
    if (node !== frame.scopeNode && SCOPES.has(node.type)) continue;
    if (node.type === 'assignment' || node.type === 'augmented_assignment' || node.type === 'for_statement') {
      if (namesIn(field(node, 'left')).includes(root)) {
        if (node.startIndex < at.node.startIndex) return true;
        boundHere = true;
      }
    }
    stack.push(...children(node));
  }
  return !boundHere;
}

/**
 * Can `text` be written where module code created something (`created`, at module level)
 * that a function now meets: its first name is a global of the module, not a local of the
 * function, and module code binds it above `created`.
 */
export function globalAbove(frame: Frame, text: string, created: { unit: number; node: Node }, bindings: FirstBindings): boolean {
  if (/^["']/.test(text) || /^\d+$/.test(text)) return true;
  const root = /^[A-Za-z_]\w*/.exec(text)?.[0];
  if (!root || !frame.fn || frame.env.has(root) || frame.names.has(root)) return false;
  const bound = bindings.get(root);
  return !!bound && (bound.unit < created.unit || (bound.unit === created.unit && bound.start < created.node.startIndex));
}

/**
 * Can `text` (`self.device`) be written where a method of the class meeting the model created
 * it (`self.model = Net()` in `__init__`, met in `update()`): the creating method is the
 * frame's class's own, and its body sets that attribute of `self` above the creation.
 */
export function instanceAttributeAbove(frame: Frame, text: string, created: { node: Node }): boolean {
  const attr = /^self\.(\w+)$/.exec(text)?.[1];
  const creator = enclosingFunction(created.node);
  const meeting = frame.fn?.node;
  if (!attr || !creator || !meeting || creator === meeting) return false;
  const classOf = (fn: Node) => (fn.parent?.type === 'decorated_definition' ? fn.parent.parent : fn.parent)?.parent;
  const cls = classOf(creator);
  if (cls?.type !== 'class_definition' || classOf(meeting) !== cls) return false;
  const self = children(field(creator, 'parameters') ?? creator)[0];
  if (self?.type !== 'identifier' || self.text !== 'self') return false;
  const stack: Node[] = [field(creator, 'body') ?? creator];
  while (stack.length) {
    const node = stack.pop()!;
    if (SCOPES.has(node.type)) continue;
    if (node.type === 'assignment' && field(node, 'left')?.text === text && node.startIndex < created.node.startIndex) return true;
    stack.push(...children(node));
  }
  return false;
}
