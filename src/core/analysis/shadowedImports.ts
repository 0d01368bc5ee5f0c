// A name a scope binds hides the import of the same name: in `def batchify(data):
// data = data.view(-1)` of a file that also does `import data`, `data` is the parameter,
// and after `model = model.Net()` at module level `model` is the instance. Python looks a
// name up in the scope first; an import table alone cannot tell, the frame can.
import type { Node } from '../python/pyNode';
import { field } from '../python/syntax';
import type { Frame } from './frame';
import type { Program } from './program';

/** The qualified name `node` stands for through an import, unless its first name is a variable of this scope or of the scope around it. */
export function qualifyInScope(program: Program, frame: Frame, node: Node): string | undefined {
  const root = firstName(node);
  if (root && (frame.env.get(root) ?? frame.outer?.get(root)) !== undefined) return undefined;
  return program.importsAt(frame.unit).qualify(node);
}

function firstName(node: Node): string | undefined {
  let n: Node | undefined = node;
  while (n?.type === 'attribute') n = field(n, 'object') ?? undefined;
  return n?.type === 'identifier' ? n.text : undefined;
}
