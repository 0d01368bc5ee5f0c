// Where code sits among the program's nn.Module classes: the method around a node, and
// what a class assigns to `self.<attr>`. Read by the rules about code inside modules
// (DD015, DD016) and by DD001, which leaves those findings to them.
import type { Node } from '../../../python/pyNode';
import { bodyNodes, children, field, unparen } from '../../../python/syntax';
import type { ClassInfo, FunctionInfo, ProgramView as Program } from '../../ruleApi';

export interface ModuleMethod {
  fn: FunctionInfo;
  cls: ClassInfo;
}

/** The nearest `def` around a node (a nested def counts as its own function). */
function enclosingDef(node: Node): Node | null {
  let n = node.parent;
  while (n && n.type !== 'function_definition') n = n.parent;
  return n;
}

/** The method of an nn.Module subclass (Lightning modules included) whose body holds `node`. */
export function moduleMethodAt(program: Program, node: Node): ModuleMethod | undefined {
  const def = enclosingDef(node);
  const fn = def ? program.functionDefinedBy(def) : undefined;
  const cls = fn?.className ? program.classes.get(fn.className) : undefined;
  return fn && cls?.isModule && fn.selfName ? { fn, cls } : undefined;
}

export { bodyNodes };

/** `self.attr` (exactly that attribute of the method's instance name). */
export function isSelfAttribute(node: Node, selfName: string, attr?: string): boolean {
  const n = unparen(node);
  if (n.type !== 'attribute') return false;
  const obj = field(n, 'object');
  return obj?.type === 'identifier' && obj.text === selfName && (attr === undefined || field(n, 'attribute')?.text === attr);
}

/** Nodes that bind `self.attr` in a method: assignment targets (also inside tuples), augmented assignments, `del`. */
export function selfAttributeWrites(fn: FunctionInfo, attr: string): Node[] {
  if (!fn.selfName) return [];
  const out: Node[] = [];
  const targetsOf = (t: Node): Node[] => (['pattern_list', 'tuple_pattern', 'list_pattern', 'tuple', 'list', 'expression_list'].includes(unparen(t).type)
    ? children(unparen(t)).flatMap(targetsOf) : [t]);
  for (const n of bodyNodes(fn.body)) {
    const left = n.type === 'assignment' || n.type === 'augmented_assignment' ? field(n, 'left') : n.type === 'delete_statement' ? children(n)[0] : null;
    if (!left) continue;
    for (const t of targetsOf(left)) if (isSelfAttribute(t, fn.selfName, attr)) out.push(n);
  }
  return out;
}

/** A call of `super().__init__(...)` / `nn.Module.__init__(self)` among the body's statements before `before`. */
export function initializedBefore(fn: FunctionInfo, before: Node): boolean {
  for (const n of bodyNodes(fn.body)) {
    if (n.startIndex >= before.startIndex) break;
    if (n.type !== 'call') continue;
    const callee = field(n, 'function');
    if (callee?.type === 'attribute' && field(callee, 'attribute')?.text === '__init__') return true;
  }
  return false;
}

/** The class body's own statements binding `name` (`mask = None` at class level). */
export function classLevelBinding(cls: ClassInfo, name: string): boolean {
  const body = field(cls.node, 'body');
  return !!body && children(body).some((s) => s.type === 'expression_statement'
    && children(s).some((a) => a.type === 'assignment' && unparen(field(a, 'left') ?? a).text === name));
}

/** The statement (a direct child of a block) that holds `node`. */
export function statementOf(node: Node): Node | undefined {
  let n: Node | null = node;
  while (n && n.parent && n.parent.type !== 'block' && n.parent.type !== 'module') n = n.parent;
  return n ?? undefined;
}

/** The last `name = ...` in the function body before `before` (in text order). */
export function lastAssignmentBefore(fn: FunctionInfo, name: string, before: Node): Node | undefined {
  return lastAssignmentIn(fn.body, name, before);
}

/** The last `name = ...` in a body (a function's, or a module's top level) before `before`. */
export function lastAssignmentIn(body: Node, name: string, before: Node): Node | undefined {
  let found: Node | undefined;
  for (const n of bodyNodes(body)) {
    if (n.startIndex >= before.startIndex) break;
    if (n.type !== 'assignment') continue;
    const left = field(n, 'left');
    if (left?.type === 'identifier' && left.text === name) found = n;
  }
  return found;
}

/** Identifiers an expression reads (not attribute names after a dot, not keyword names). */
function readNames(node: Node, out: Set<string>): void {
  if (node.type === 'identifier') {
    out.add(node.text);
    return;
  }
  if (node.type === 'lambda' || node.type === 'function_definition') return;
  for (const c of children(node)) {
    if (node.type === 'attribute' && c === field(node, 'attribute')) continue;
    if (node.type === 'keyword_argument' && c === field(node, 'name')) continue;
    readNames(c, out);
  }
}

/** Names bound by an assignment target (`x`, `q, k, v`, `(a, *rest)`). */
function boundNames(target: Node): string[] {
  const t = unparen(target);
  if (t.type === 'identifier') return [t.text];
  if (['pattern_list', 'tuple_pattern', 'list_pattern', 'tuple', 'list', 'expression_list', 'list_splat_pattern'].includes(t.type)) return children(t).flatMap(boundNames);
  return [];
}

/**
 * Whether an expression in a module method comes from the module itself or from the
 * method's inputs: it reads `self` or a parameter, directly or through local variables
 * assigned from them (`scores = q @ k.T` after `q, k, v = self.qkv(x).split(C)`). A global
 * (`model`, `device`) is neither: the module does not decide where that is.
 */
export function derivesFromModule(fn: FunctionInfo, expr: Node): boolean {
  const own = new Set(fn.params.map((p) => p.name));
  const seen = new Set<string>();
  const visit = (node: Node, depth: number): boolean => {
    const names = new Set<string>();
    readNames(node, names);
    for (const name of names) {
      if (own.has(name)) return true;
      if (seen.has(name) || depth > 8) continue;
      seen.add(name);
      for (const n of bodyNodes(fn.body)) {
        const source = n.type === 'assignment' || n.type === 'augmented_assignment' ? field(n, 'right')
          : n.type === 'for_statement' ? field(n, 'right') : null;
        const target = n.type === 'for_statement' ? field(n, 'left') : field(n, 'left');
        if (source && target && boundNames(target).includes(name) && visit(source, depth + 1)) return true;
      }
    }
    return false;
  };
  return visit(expr, 0);
}
