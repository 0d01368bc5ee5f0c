// Where Python needs a tensor of exactly one element: PyTorch raises "Boolean value of Tensor
// with more than one value is ambiguous" (or "only one element tensors can be converted")
// otherwise, so code that runs tells us the size of what it tests.
import type { Node } from '../python/pyNode';
import { children, field } from '../python/syntax';

const ONE_ELEMENT_CONVERSIONS = new Set(['int', 'float', 'bool']);

/**
 * `if a[i] == b[i]:`, `1 if p[k] != y[k] else 0`, `assert x[0] < 1`, `(p[i] == y[i]).item()`,
 * `int(p[i] == y[i])`: the value of `node` is tested for truth or read as one number.
 */
export function readAsOneElement(node: Node): boolean {
  let n = node;
  for (let p = n.parent; p; n = p, p = p.parent) {
    switch (p.type) {
      case 'parenthesized_expression': case 'not_operator': case 'boolean_operator': continue;
      case 'if_statement': case 'elif_clause': case 'while_statement':
        return field(p, 'condition')?.id === n.id;
      case 'conditional_expression': return children(p)[1]?.id === n.id;
      case 'assert_statement': return children(p)[0]?.id === n.id;
      case 'attribute': {
        const call = p.parent;
        return field(p, 'object')?.id === n.id && field(p, 'attribute')?.text === 'item' && call?.type === 'call';
      }
      case 'argument_list': {
        const fn = p.parent?.type === 'call' ? field(p.parent, 'function') : undefined;
        return children(p).length === 1 && fn?.type === 'identifier' && ONE_ELEMENT_CONVERSIONS.has(fn.text);
      }
      default: return false;
    }
  }
  return false;
}
