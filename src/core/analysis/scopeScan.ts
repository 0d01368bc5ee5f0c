// One syntactic pass over a scope before it is interpreted: which names it binds
// (so a fix never references an undefined name) and what evidence says an unknown
// receiver is — a tensor or a module (so DD004 decides by evidence, never by guessing).
import type { Node } from '../python/pyNode';
import { callArguments, children, dottedKey, field } from '../python/syntax';
import type { ImportTable } from './imports';
import { LOSS_LIKE_NAME, MODEL_LIKE_NAME, MODULE_EVIDENCE_METHODS, TENSOR_EVIDENCE_METHODS, WRAPPER_MODULES } from './torchApi';
import { isModelActionName, isModelFunctionName, takesModule } from './frameworkNames';

export interface ScopeFacts {
  names: Set<string>;
  evidence: Map<string, 'tensor' | 'module' | 'both'>;
  /** Keys a Module-only method is called on (`net.parameters()`, `net.eval()`): stronger than being called. */
  moduleMethods: Set<string>;
  deviceAware: boolean;
  /** Keys the scope asks `isinstance(x, torch.Tensor)` of: where it then reads `x.device`, x is a tensor. */
  testedAsTensor: Set<string>;
}

const ARITHMETIC = new Set(['+', '-', '*', '/', '//', '%', '**', '@']);
const NESTED_SCOPES = new Set(['function_definition', 'class_definition', 'lambda', 'decorated_definition']);

/**
 * Facts kept with the tree between analyses of a document: a body or top-level statement
 * that KeptPlainTree reused is not scanned again while the imports mean the same.
 */
const kept = new WeakMap<Node, { imports: string; facts: ScopeFacts }>();

function keptFacts(node: Node, imports: ImportTable, scan: () => ScopeFacts): ScopeFacts {
  const signature = imports.signature();
  const old = kept.get(node);
  if (old && old.imports === signature) return old.facts;
  const facts = scan();
  kept.set(node, { imports: signature, facts });
  return facts;
}

/**
 * The facts of a scope. A module's are those of its top-level statements together (a
 * nested scope adds only its name), so an edit rescans only the statements it changed.
 */
export function scopeFacts(body: Node, imports: ImportTable): ScopeFacts {
  if (body.type !== 'module') return keptFacts(body, imports, () => scanScope(body, imports));
  const facts: ScopeFacts = { names: new Set(), evidence: new Map(), moduleMethods: new Set(), deviceAware: false, testedAsTensor: new Set() };
  for (const statement of children(body)) {
    if (statement.type === 'comment' || statement.type === 'string') continue;
    if (NESTED_SCOPES.has(statement.type)) {
      const name = scopeName(statement);
      if (name) facts.names.add(name.text);
      continue;
    }
    const part = keptFacts(statement, imports, () => scanScope(statement, imports));
    for (const n of part.names) facts.names.add(n);
    for (const m of part.moduleMethods) facts.moduleMethods.add(m);
    for (const k of part.testedAsTensor) facts.testedAsTensor.add(k);
    for (const [key, what] of part.evidence) {
      const old = facts.evidence.get(key);
      facts.evidence.set(key, old && old !== what ? 'both' : what);
    }
    facts.deviceAware ||= part.deviceAware;
  }
  return facts;
}

function isKeywordName(node: Node): boolean {
  const parent = node.parent;
  return parent?.type === 'keyword_argument' && field(parent, 'name')?.id === node.id;
}

function scopeName(node: Node): Node | null {
  return field(node, 'name') ?? field(field(node, 'definition') ?? node, 'name');
}

export function scanScope(body: Node, imports: ImportTable): ScopeFacts {
  const facts: ScopeFacts = { names: new Set(), evidence: new Map(), moduleMethods: new Set(), deviceAware: false, testedAsTensor: new Set() };
  const note = (key: string | undefined, what: 'tensor' | 'module') => {
    if (!key) return;
    const old = facts.evidence.get(key);
    facts.evidence.set(key, old && old !== what ? 'both' : what);
  };
  const stack: Node[] = [body];
  while (stack.length) {
    const node = stack.pop()!;
    switch (node.type) {
      case 'identifier':
        // A keyword's name (`autocast(device_type="cuda")`) names no device of this scope.
        if (/device/i.test(node.text) && !isKeywordName(node)) facts.deviceAware = true;
        continue;
      case 'call':
        noteCall(node, imports, note, facts);
        break;
      case 'binary_operator': {
        const op = field(node, 'operator')?.text ?? '';
        if (ARITHMETIC.has(op)) {
          note(keyOf(field(node, 'left')), 'tensor');
          note(keyOf(field(node, 'right')), 'tensor');
        }
        break;
      }
      case 'subscript':
        // `x[:-1, :]`: indexing with several axes is a tensor's (or an array's); a list, a
        // dict or a module takes one index, so a later `x.to(d)` is a tensor's move.
        if (children(node).length > 2) note(keyOf(field(node, 'value')), 'tensor');
        break;
      case 'assignment': case 'augmented_assignment': case 'for_statement': case 'for_in_clause':
      case 'as_pattern': case 'named_expression':
        collectTargets(field(node, 'left') ?? field(node, 'alias') ?? field(node, 'name'), facts.names);
        break;
      case 'global_statement': case 'nonlocal_statement':
        for (const c of children(node)) facts.names.add(c.text);
        break;
    }
    if (node !== body && NESTED_SCOPES.has(node.type)) {
      const name = scopeName(node);
      if (name) facts.names.add(name.text);
      continue;
    }
    for (let i = node.namedChildCount - 1; i >= 0; i--) {
      const c = node.namedChild(i);
      if (c && c.type !== 'comment' && c.type !== 'string') stack.push(c);
    }
  }
  return facts;
}

function keyOf(node: Node | null): string | undefined {
  return node ? dottedKey(node) : undefined;
}

function noteCall(
  call: Node,
  imports: ImportTable,
  note: (key: string | undefined, what: 'tensor' | 'module') => void,
  facts: ScopeFacts,
): void {
  const callee = field(call, 'function');
  if (!callee) return;
  if (callee.type === 'attribute') {
    const method = field(callee, 'attribute')?.text ?? '';
    const recv = keyOf(field(callee, 'object'));
    if (method === 'cuda') facts.deviceAware = true;
    if (MODULE_EVIDENCE_METHODS.has(method)) {
      note(recv, 'module');
      if (recv) facts.moduleMethods.add(recv);
    }
    else if (TENSOR_EVIDENCE_METHODS.has(method)) note(recv, 'tensor');
  }
  const qualified = imports.qualify(callee);
  const calleeKey = keyOf(callee);
  // What is passed to a model or a loss is a tensor; an imported `create_model(...)` or a
  // `reparameterize_model(model)` is a function that takes (and returns) a module.
  const modelFunction = qualified !== undefined || isModelFunctionName(calleeKey ?? '') || isModelActionName(calleeKey ?? '');
  if (calleeKey && !modelFunction && (MODEL_LIKE_NAME.test(calleeKey) || LOSS_LIKE_NAME.test(calleeKey))) {
    const args = callArguments(call);
    for (const arg of [...args.positional, ...args.keywords.values()]) note(keyOf(arg), 'tensor');
  }
  // `isinstance(x, torch.Tensor)`: no evidence that x is one (the other branch takes what is
  // not), but what `x.device` reads where it is.
  if (callee.text === 'isinstance') {
    const [subject, type] = callArguments(call).positional;
    const key = subject && type && /^torch\.(\w+\.)*\w*Tensor$/.test(imports.qualify(type) ?? '') ? keyOf(subject) : undefined;
    if (key) facts.testedAsTensor.add(key);
  }
  if (qualified === undefined) {
    // Only modules (and functions) are called; a tensor never is.
    const key = keyOf(callee);
    if (key && key.includes('.') === false) note(key, 'module');
    else if (key && callee.type === 'attribute' && /^(self|model)\./.test(key)) note(key, 'module');
    return;
  }
  const last = qualified.split('.').pop() ?? '';
  if (!qualified.startsWith('torch.') || WRAPPER_MODULES.has(qualified) || /^[A-Z]/.test(last) || takesModule(qualified)) return;
  const args = callArguments(call);
  for (const arg of args.positional) note(keyOf(arg), 'tensor');
  // `torch.gather(q, dim=3, index=u)`: the keywords that name a tensor operand (not `dim=`, `dtype=`).
  for (const [name, arg] of args.keywords) if (TENSOR_KEYWORDS.has(name)) note(keyOf(arg), 'tensor');
}

/** Keyword arguments of torch functions that take a tensor. */
const TENSOR_KEYWORDS = new Set(['input', 'other', 'index', 'indices', 'mask', 'target', 'weight', 'src', 'tensor', 'condition', 'mat1', 'mat2', 'vec', 'vec1', 'vec2', 'x', 'y']);

/** The node types an assignment unpacks into (`a, b = ...`, `[x, *rest] = ...`). */
export const UNPACKING_TARGETS = new Set(['pattern_list', 'tuple_pattern', 'list_pattern', 'tuple', 'list', 'parenthesized_expression', 'list_splat_pattern']);

/** The names an assignment or loop target binds. */
export function collectTargets(node: Node | null, into: Set<string>): void {
  if (!node) return;
  if (node.type === 'identifier') into.add(node.text);
  else if (UNPACKING_TARGETS.has(node.type)) {
    for (const c of children(node)) collectTargets(c, into);
  }
}
