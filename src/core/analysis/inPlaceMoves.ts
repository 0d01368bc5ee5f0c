// Classes of the program that move themselves in place (`def to(self, device):` moving the
// tensors they hold, returning nothing), as an episode buffer's batch does.
import type { Node } from '../python/pyNode';
import type { Program } from './program';

/**
 * Whether a class of the program has a `to()` or `cuda()` of its own that returns nothing
 * or the instance itself (an episode batch moving its tensors in place): a discarded `.to()` of a value the program
 * does not type may be that one, so a slice of it (`batch[:, :t]`) says no tensor. A program fact.
 */
export function definesInPlaceMove(program: Program): boolean {
  for (const cls of program.classes.values()) {
    if (cls.isModule) continue;
    for (const name of ['to', 'cuda']) {
      const method = cls.methods.get(name);
      if (method && !returnsValue(method.body, method.selfName)) return true;
    }
  }
  return false;
}

/** A `return` of something other than the instance itself (`return self` moved it in place). */
function returnsValue(body: Node, selfName: string | undefined): boolean {
  const stack: Node[] = [body];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.type === 'function_definition' || n.type === 'class_definition' || n.type === 'lambda') continue;
    if (n.type === 'return_statement' && n.namedChildren.some((c) => c.type !== 'comment' && c.text !== selfName)) return true;
    stack.push(...n.namedChildren);
  }
  return false;
}
