// A file that only imports: a package's `__init__.py` re-exporting its modules, with a
// docstring, `__all__` and a version string, perhaps an import tried inside `try`. It runs
// no code a rule hears and makes no value another file could meet in it, so it has nothing
// to report: the analysis need not link what it imports (often the whole package) nor run it.
import type { Node } from '../python/pyNode';
import { children, field } from '../python/syntax';
import { IMPORTS } from './moduleDemand';

/** Literals a plain assignment may bind (`__all__ = ["Net"]`, `__version__ = "1.2"`). */
const LITERALS = new Set(['string', 'concatenated_string', 'integer', 'float', 'true', 'false', 'none']);

export function onlyImports(root: Node): boolean {
  return children(root).every(inert);
}

function inert(statement: Node): boolean {
  if (IMPORTS.has(statement.type) || statement.type === 'pass_statement') return true;
  if (statement.type === 'expression_statement') return children(statement).every((e) => e.type === 'string' || e.type === 'concatenated_string' || plainAssignment(e));
  // `try: from .cuda_ops import fused` / `except ImportError: fused = None`.
  if (statement.type === 'try_statement') return children(statement).every(inertClause);
  return false;
}

function inertClause(clause: Node): boolean {
  if (clause.type === 'block') return children(clause).every(inert);
  if (clause.type === 'except_clause' || clause.type === 'else_clause' || clause.type === 'finally_clause') {
    return children(clause).every((c) => (c.type === 'block' ? children(c).every(inert) : exceptionNames(c)));
  }
  return false;
}

/** `except ImportError`, `except (ImportError, OSError) as e`: names, no call. */
function exceptionNames(node: Node): boolean {
  if (node.type === 'identifier' || node.type === 'attribute') return true;
  if (node.type === 'tuple' || node.type === 'as_pattern' || node.type === 'as_pattern_target' || node.type === 'parenthesized_expression') return children(node).every(exceptionNames);
  return false;
}

function plainAssignment(node: Node): boolean {
  if (node.type !== 'assignment') return false;
  const left = field(node, 'left');
  const right = field(node, 'right');
  return left?.type === 'identifier' && !!right && literal(right) && !field(node, 'type');
}

function literal(node: Node): boolean {
  if (LITERALS.has(node.type)) return true;
  if (node.type === 'list' || node.type === 'tuple') return children(node).every(literal);
  return false;
}
