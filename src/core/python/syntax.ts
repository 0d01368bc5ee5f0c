// Small helpers over tree-sitter Python nodes.
import type { Node } from './pyNode';
import type { Range } from '../analysis/types';

export function nodeRange(node: Node): Range {
  return {
    start: { line: node.startPosition.row, character: node.startPosition.column },
    end: { line: node.endPosition.row, character: node.endPosition.column },
  };
}

/** Named children without comments (tree-sitter keeps comments as named nodes). */
export function children(node: Node): readonly Node[] {
  return node.codeChildren;
}

/** A node and every node under it, walking into a child only when `enter(child)` allows. */
export function descendants(root: Node, enter: (child: Node) => boolean = () => true): Node[] {
  const out: Node[] = [];
  const stack = [root];
  while (stack.length) {
    const n = stack.pop()!;
    out.push(n);
    for (const c of children(n)) if (enter(c)) stack.push(c);
  }
  return out;
}

export function field(node: Node, name: string): Node | null {
  return node.childForFieldName(name);
}

/** Strips any number of enclosing parentheses. */
export function unparen(node: Node): Node {
  let n = node;
  while (n.type === 'parenthesized_expression') {
    const inner = children(n)[0];
    if (!inner) break;
    n = inner;
  }
  return n;
}

/** "x", "self.model", "args.device" for identifiers and attribute chains of identifiers. */
export function dottedKey(node: Node): string | undefined {
  if (node.type === 'identifier') return node.text;
  // Nodes never change: each chain is spelled once (interpretation asks for it every round).
  let key = DOTTED_KEYS.get(node);
  if (key === undefined) DOTTED_KEYS.set(node, (key = spellDottedKey(node) ?? null));
  return key ?? undefined;
}

const DOTTED_KEYS = new WeakMap<Node, string | null>();

function spellDottedKey(node: Node): string | undefined {
  // A loop, not recursion: a 10,000-deep attribute chain (20 KB of `.b`) overflowed the stack.
  const parts: string[] = [];
  let n = unparen(node);
  while (n.type === 'attribute') {
    const obj = field(n, 'object');
    const attr = field(n, 'attribute');
    if (!obj || !attr) return undefined;
    parts.push(attr.text);
    n = unparen(obj);
  }
  if (n.type !== 'identifier') return undefined;
  parts.push(n.text);
  return parts.reverse().join('.');
}

/** The text of a string literal without prefix and quotes, when it has no interpolation. */
export function stringLiteralValue(node: Node): string | undefined {
  const n = unparen(node);
  if (n.type !== 'string') return undefined;
  let content = '';
  for (const c of children(n)) {
    if (c.type === 'interpolation') return undefined;
    if (c.type === 'string_content') content += c.text;
  }
  return content;
}

export function isNumberLiteral(node: Node): boolean {
  const n = unparen(node);
  if (n.type === 'integer' || n.type === 'float' || n.type === 'true' || n.type === 'false') return true;
  if (n.type === 'unary_operator') {
    const arg = field(n, 'argument');
    return !!arg && isNumberLiteral(arg);
  }
  return false;
}

const ARITHMETIC = /^(\+|-|\*|\/|\/\/|%|\*\*)$/;
/** Builtins that always return a Python number. */
const NUMBER_BUILTINS = new Set(['float', 'int', 'len']);

/**
 * `0.03 / n`, `float(x)`, `len(ds) * 2`, `loss.item()`: written as a Python number (a number
 * literal in arithmetic, a builtin that converts, `.item()`). Only the text: the operands'
 * values may still be arrays or tensors, which the caller checks.
 */
export function isNumberExpression(node: Node): boolean {
  const n = unparen(node);
  if (isNumberLiteral(n)) return true;
  if (n.type === 'unary_operator') {
    const arg = field(n, 'argument');
    return !!arg && isNumberExpression(arg);
  }
  if (n.type === 'binary_operator' && ARITHMETIC.test(field(n, 'operator')?.text ?? '')) {
    const left = field(n, 'left');
    const right = field(n, 'right');
    return (!!left && isNumberExpression(left)) || (!!right && isNumberExpression(right));
  }
  if (n.type !== 'call') return false;
  const callee = field(n, 'function');
  if (callee?.type === 'identifier') return NUMBER_BUILTINS.has(callee.text);
  return callee?.type === 'attribute' && field(callee, 'attribute')?.text === 'item' && callArguments(n).positional.length === 0;
}

/** `[0.5, 1, -2]`: a list or tuple literal of number literals only (no nesting). */
export function isFlatNumberList(node: Node): boolean {
  const n = unparen(node);
  if (n.type !== 'list' && n.type !== 'tuple') return false;
  const items = children(n);
  return items.length > 0 && items.every(isNumberLiteral);
}

export interface CallArguments {
  positional: Node[];
  keywords: Map<string, Node>;
  /** Has *args or **kwargs: positions after it are unknown. */
  hasSplat: boolean;
  /** The expressions unpacked by `*xs` and `**batch`, in order. */
  splats: Node[];
}

/** Read once per call node: every round, loop pass and scope scan asks again (callers never modify it). */
const argumentsOfCall = new WeakMap<Node, CallArguments>();

export function callArguments(call: Node): CallArguments {
  let found = argumentsOfCall.get(call);
  if (!found) argumentsOfCall.set(call, (found = readCallArguments(call)));
  return found;
}

function readCallArguments(call: Node): CallArguments {
  const out: CallArguments = { positional: [], keywords: new Map(), hasSplat: false, splats: [] };
  const args = field(call, 'arguments');
  if (!args || args.type !== 'argument_list') {
    if (args) out.positional.push(args); // generator expression argument
    return out;
  }
  for (const a of children(args)) {
    if (a.type === 'keyword_argument') {
      const name = field(a, 'name');
      const val = field(a, 'value');
      if (name && val) out.keywords.set(name.text, val);
    } else if (a.type === 'list_splat' || a.type === 'dictionary_splat') {
      out.hasSplat = true;
      const inner = children(a)[0];
      if (inner) out.splats.push(inner);
    } else {
      out.positional.push(a);
    }
  }
  return out;
}

/** The statement's first line indentation (spaces/tabs before it). */
export function indentationOf(node: Node, lineText: string): string {
  return lineText.slice(0, node.startPosition.column).match(/^[ \t]*/)?.[0] ?? '';
}

/** A node's source on one line, cut at `max` characters: how messages quote code. */
export function shortText(node: Node, max = 40): string {
  const text = node.text.replace(/\s+/g, ' ');
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

const NESTED_SCOPES = new Set(['function_definition', 'class_definition', 'decorated_definition', 'lambda']);

/**
 * Every node of a function body in source order, nested definitions excluded (their names
 * and `self` are another scope's). An explicit stack: nested generators cost each node its depth.
 */
export function* bodyNodes(block: Node): Generator<Node> {
  const stack: Node[] = [...children(block)].reverse();
  while (stack.length > 0) {
    const c = stack.pop()!;
    if (NESTED_SCOPES.has(c.type)) continue;
    yield c;
    const inner = children(c);
    for (let i = inner.length - 1; i >= 0; i--) stack.push(inner[i]!);
  }
}

/** `__name__ == "__main__"`: the test of a block that runs only when the file is the script. */
export function isMainGuard(condition: Node | null | undefined): boolean {
  return !!condition && /^__name__\s*==\s*['"]__main__['"]$/.test(condition.text);
}

/** `self.cuda(...)`, `self.to(...)`: the method a call names on the receiver `selfName`, else undefined. */
export function methodCalledOnSelf(call: Node, selfName: string | undefined): string | undefined {
  const callee = field(call, 'function');
  if (!selfName || callee?.type !== 'attribute' || field(callee, 'object')?.text !== selfName) return undefined;
  return field(callee, 'attribute')?.text;
}
