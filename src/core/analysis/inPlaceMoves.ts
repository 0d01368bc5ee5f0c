// Objects that move themselves in place: a class of the program with `def to(self, device):`
// moving the tensors it holds and returning nothing (an episode buffer's batch), or a data
// object of a library the program imports (a torch_geometric graph).
import type { Node } from '../python/pyNode';
import type { Program } from './program';
import { LIBRARIES_MOVING_DATA_IN_PLACE } from './torchApi';

/**
 * Whether the program may hold objects whose `.to()` moves them in place: a class of the
 * program whose `to()` or `cuda()` returns nothing or the instance itself, or an import of a
 * library whose data objects do (torchApi.ts). A discarded `.to()` of a value the program does
 * not type may be one of those, so a slice of it (`batch[:, :t]`) says no tensor. A program fact.
 */
export function mayMoveInPlace(program: Program): boolean {
  // Any module of the program: a project helper that builds the graph batches imports the library, not the script.
  if (program.modules.some((m) => m.imports.qualifiedNames().some((q) => LIBRARIES_MOVING_DATA_IN_PLACE.test(q)))) return true;
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
