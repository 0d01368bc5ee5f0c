// A test function (pytest's `test_*`, unittest's `testSomething`): code that exercises an API
// on purpose, where advice to use another API would defeat the test.
import type { Node } from '../../../python/pyNode';
import { field } from '../../../python/syntax';

const TEST_FUNCTION = /^test(_|[A-Z0-9])/;

export function inTestFunction(node: Node): boolean {
  for (let n = node.parent; n; n = n.parent) {
    if (n.type === 'function_definition' && TEST_FUNCTION.test(field(n, 'name')?.text ?? '')) return true;
  }
  return false;
}
