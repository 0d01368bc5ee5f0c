// DD018 module-list-not-registered: an nn.Module keeps submodules it builds in a plain
// list, tuple or dict (`self.layers = [nn.Linear(...) for _ in range(n)]`). nn.Module
// registers only modules assigned directly to an attribute (or held by ModuleList /
// ModuleDict / Sequential), so `.to(device)` leaves these on the CPU, `.parameters()`
// never gives them to the optimizer and `state_dict()` never saves them. Reported where
// the container is made; the fix wraps it in nn.ModuleList / nn.ModuleDict.
import type { Node } from '../../python/pyNode';
import { children, field, stringLiteralValue, unparen } from '../../python/syntax';
import { insertAt } from '../fixes';
import type { ClassInfo, FunctionInfo, ProgramView as Program, Rule, RuleFrame as Frame, RuleHost } from '../ruleApi';
import type { Fix, TextEdit } from '../types';
import { shortText } from './shared/describe';
import { ruleMessage } from './shared/message';
import { bodyNodes, isSelfAttribute, lastAssignmentBefore, moduleMethodAt } from './shared/moduleCode';
import { buildsStatefulModule } from './shared/moduleState';
import { nnPrefix } from './shared/nnNames';

type Shape = 'list' | 'dict';

/** What holds the module: the container expression to wrap, the attribute, and how to wrap it. */
interface Holder {
  attr: string;
  /** The expression that makes the container (`[...]`, `{...}`, `layers`, `[]`). */
  container: Node;
  shape: Shape;
  /** Whether wrapping `container` is a safe fix (a dict with non-string keys is not: ModuleDict needs str keys). */
  wrappable: boolean;
}

export const moduleListNotRegistered: Rule = (host) => {
  const reported = new Set<string>();
  return {
    call: (frame, call, qualified) => {
      const program = host.program;
      if (program.units[frame.unit]?.module !== 0 || !buildsStatefulModule(host, call, qualified)) return;
      const at = moduleMethodAt(program, call);
      if (!at) return;
      const holder = holderOf(call, at.fn);
      if (!holder || registeredElsewhere(at.cls, at.fn.selfName!, holder)) return;
      // Each plain container assigned to the attribute (one per arm of an `if`) gets its own fix.
      const key = `${at.cls.key}.${holder.attr}.${holder.container.id}`;
      if (reported.has(key)) return;
      reported.add(key);
      report(host, frame, at.cls, at.fn, call, holder);
    },
  };
};

const SEQUENCES = new Set(['list', 'tuple', 'list_comprehension', 'generator_expression']);
const DICTS = new Set(['dictionary', 'dictionary_comprehension']);

/** The literal container the module is an element of, climbing through pairs and nested lists; stops at a call. */
function literalContainer(call: Node): Node | undefined {
  let found: Node | undefined;
  for (let n = call.parent; n; n = n.parent) {
    if (SEQUENCES.has(n.type) || DICTS.has(n.type)) found = n;
    else if (n.type === 'pair' || n.type === 'parenthesized_expression' || n.type === 'for_in_clause' || n.type === 'if_clause') continue;
    else break;
  }
  return found;
}

function shapeOf(container: Node): Shape {
  return DICTS.has(container.type) ? 'dict' : 'list';
}

/** A dict whose keys are all string literals (or a comprehension, whose keys the reader must check): ModuleDict takes it. */
function stringKeyed(dict: Node): boolean {
  if (dict.type !== 'dictionary') return dict.type === 'dictionary_comprehension';
  return children(dict).every((p) => p.type !== 'pair' || stringLiteralValue(field(p, 'key') ?? p) !== undefined);
}

/** `self.attr` assigned the container: `self.attr = [...]`. */
function assignedSelfAttr(container: Node, selfName: string): string | undefined {
  const assignment = container.parent;
  if (assignment?.type !== 'assignment' || field(assignment, 'right')?.id !== container.id) return undefined;
  const left = field(assignment, 'left');
  return left && isSelfAttribute(left, selfName) ? field(unparen(left), 'attribute')?.text : undefined;
}

/**
 * Where the module built by `call` ends up: an element of a literal assigned to
 * `self.attr`; appended to (or stored by key in) `self.attr` made as `[]` / `{}`; or
 * appended to a local list that is then assigned to `self.attr` as it is.
 */
function holderOf(call: Node, fn: FunctionInfo): Holder | undefined {
  const self = fn.selfName!;
  const literal = literalContainer(call);
  if (literal) {
    const attr = assignedSelfAttr(literal, self);
    const shape = shapeOf(literal);
    return attr ? { attr, container: literal, shape, wrappable: shape === 'list' || stringKeyed(literal) } : undefined;
  }
  const parent = call.parent;
  // `self.heads["cls"] = nn.Linear(...)`
  if (parent?.type === 'assignment' && field(parent, 'right')?.id === call.id) {
    const left = unparen(field(parent, 'left') ?? parent);
    const object = left.type === 'subscript' ? field(left, 'value') : null;
    if (object && isSelfAttribute(object, self)) return emptyAttr(fn, field(object, 'attribute')!.text, 'dict');
    return undefined;
  }
  // `<target>.append(nn.Linear(...))`
  const appendCall = parent?.type === 'argument_list' ? parent.parent : null;
  const callee = appendCall?.type === 'call' ? field(appendCall, 'function') : null;
  if (!appendCall || callee?.type !== 'attribute' || field(callee, 'attribute')?.text !== 'append') return undefined;
  const target = unparen(field(callee, 'object')!);
  if (isSelfAttribute(target, self)) return emptyAttr(fn, field(target, 'attribute')!.text, 'list');
  if (target.type !== 'identifier') return undefined;
  return localListKept(fn, target.text, appendCall);
}

/** `self.attr = []` (or `{}`) in this method, the container a later append or store fills. */
function emptyAttr(fn: FunctionInfo, attr: string, shape: Shape): Holder | undefined {
  for (const n of bodyNodes(fn.body)) {
    if (n.type !== 'assignment') continue;
    const left = field(n, 'left');
    const right = field(n, 'right');
    if (!left || !right || !isSelfAttribute(left, fn.selfName!, attr)) continue;
    return isEmptyLiteral(right) ? { attr, container: right, shape: right.type === 'dictionary' ? 'dict' : shape, wrappable: true } : undefined;
  }
  return undefined;
}

/** `[]` or `{}`. */
function isEmptyLiteral(node: Node): boolean {
  return /^(\[\s*\]|\{\s*\})$/.test(node.text);
}

/** `layers = []`, `layers.append(module)`, then `self.attr = layers` unwrapped in the same method. */
function localListKept(fn: FunctionInfo, name: string, appendCall: Node): Holder | undefined {
  const made = lastAssignmentBefore(fn, name, appendCall);
  const right = made ? field(made, 'right') : null;
  if (right?.type !== 'list') return undefined;
  for (const n of bodyNodes(fn.body)) {
    if (n.type !== 'assignment' || n.startIndex < appendCall.startIndex) continue;
    const value = field(n, 'right');
    if (value?.type !== 'identifier' || value.text !== name) continue;
    const attr = assignedSelfAttr(value, fn.selfName!);
    if (attr) return { attr, container: value, shape: 'list', wrappable: true };
  }
  return undefined;
}

/**
 * Anything in the class that registers the attribute's modules another way, or reassigns it
 * from a call (`self.layers = nn.ModuleList(self.layers)`), taken as registering whatever its
 * order. Another plain container or name, or a call in the other arm of an `if`
 * (`if wide: self.convs = [...] else: self.convs = [...]`), registers nothing.
 */
function registeredElsewhere(cls: ClassInfo, self: string, holder: Holder): boolean {
  const attr = holder.attr;
  const body = field(cls.node, 'body');
  if (!body) return true;
  const stack: Node[] = [body];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.type === 'call') {
      const callee = field(n, 'function');
      const name = callee?.type === 'attribute' ? field(callee, 'attribute')?.text : callee?.text;
      if (name === 'add_module' || name === 'register_module') return true;
      // `nn.ModuleList(self.layers)`, `nn.Sequential(*self.layers)`
      if (name && /^(ModuleList|ModuleDict|Sequential)$/.test(name) && new RegExp(`\\b${self}\\.${attr}\\b`).test(field(n, 'arguments')?.text ?? '')) return true;
    }
    if (n.type === 'assignment') {
      const left = field(n, 'left');
      const right = field(n, 'right');
      if (left && isSelfAttribute(left, self, attr) && right && unparen(right).type === 'call' && !inOtherArm(n, holder.container)) return true;
    }
    stack.push(...children(n));
  }
  return false;
}

/** `a` and `b` lie in different arms of one `if` statement: at most one of them runs. */
function inOtherArm(a: Node, b: Node): boolean {
  const above = new Set<number>();
  for (let n: Node | null = a; n; n = n.parent) above.add(n.id);
  let common: Node | null = b;
  while (common && !above.has(common.id)) common = common.parent;
  return common?.type === 'if_statement';
}

function report(host: RuleHost, frame: Frame, cls: ClassInfo, fn: FunctionInfo, call: Node, holder: Holder): void {
  const self = fn.selfName!;
  const kind = holder.shape === 'dict' ? 'dict' : holder.container.type === 'tuple' ? 'tuple' : 'list';
  const wrapper = holder.shape === 'dict' ? 'ModuleDict' : 'ModuleList';
  host.report({
    unit: frame.unit,
    code: 'DD018',
    node: holder.container,
    message: ruleMessage((q) => ({
      problem: `${q(`${self}.${holder.attr}`)} holds modules in a plain ${kind}`,
      action: `wrap it in nn.${wrapper}`,
      why: `It keeps the modules it holds (such as \`${shortText(call, 30)}\`) in a plain ${kind}, which ` +
        `\`${cls.name}\` does not register: \`.to(device)\` leaves them on the CPU (then "Expected all tensors to be on the same device"), ` +
        `\`.parameters()\` does not give them to the optimizer and \`state_dict()\` does not save them.`,
    })),
    related: [],
    fixes: wrapFix(host.program, frame.unit, self, holder, wrapper),
  });
}

function wrapFix(program: Program, unit: number, self: string, holder: Holder, wrapper: string): Fix[] {
  const nn = nnPrefix(program, unit);
  if (!nn || !holder.wrappable) return [];
  const c = holder.container;
  const edits: TextEdit[] = isEmptyLiteral(c)
    ? [{ range: { start: { line: c.startPosition.row, character: c.startPosition.column }, end: { line: c.endPosition.row, character: c.endPosition.column } }, newText: `${nn}${wrapper}()`, cellIndex: unit }]
    : [insertAt({ line: c.startPosition.row, character: c.startPosition.column }, `${nn}${wrapper}(`, unit), insertAt({ line: c.endPosition.row, character: c.endPosition.column }, ')', unit)];
  return [{ title: `Keep \`${self}.${holder.attr}\` in ${nn}${wrapper}`, edits, preferred: true }];
}
