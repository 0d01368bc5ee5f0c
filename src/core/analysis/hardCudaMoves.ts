// A statement that always moves something to CUDA (`net = nn.DataParallel(net).cuda()`,
// `x = x.to("cuda:0")`, or another accelerator written out), straight down its scope: on a
// machine without one it raises, so the code after it runs only where an accelerator is
// (Frame.acceleratorOnly), as after an availability test whose other path left the scope. A move inside a conditional expression,
// a lambda or a comprehension may not run; one inside a loop, a `try` or a `with` whose
// exit may swallow the error does not end the CPU path either.
import type { Node } from '../python/pyNode';
import { children, field, unparen } from '../python/syntax';
import { deviceFromString } from './devices';
import { ACCEL } from './values';

const MAY_NOT_RUN = new Set([
  'conditional_expression', 'lambda', 'boolean_operator', 'list_comprehension', 'dictionary_comprehension',
  'set_comprehension', 'generator_expression', 'function_definition', 'class_definition',
]);
const SCOPE_ENDS = new Set(['function_definition', 'class_definition', 'module']);
const LEAVES_CPU_PATH_OPEN = new Set(['for_statement', 'while_statement', 'try_statement', 'with_statement', 'match_statement']);

/** Each statement's hard moves straight down its scope (syntax only: which are a plain class's own methods is the program's to say). */
const KNOWN = new WeakMap<Node, readonly Node[]>();

/** `isOwnMethod`: a call that runs the program's own method of that name (`self.cuda(*items)` of a trainer), not torch's. */
export function alwaysMovesToCuda(statement: Node, isOwnMethod: (call: Node) => boolean): boolean {
  let known = KNOWN.get(statement);
  if (known === undefined) KNOWN.set(statement, (known = straightDownItsScope(statement) ? hardCudaMoves(statement) : []));
  return known.some((call) => !isOwnMethod(call));
}

function straightDownItsScope(statement: Node): boolean {
  for (let up = statement.parent; up && !SCOPE_ENDS.has(up.type); up = up.parent) {
    if (LEAVES_CPU_PATH_OPEN.has(up.type)) return false;
  }
  return true;
}

function hardCudaMoves(statement: Node): Node[] {
  const out: Node[] = [];
  const stack: Node[] = [statement];
  while (stack.length) {
    const n = stack.pop()!;
    if (MAY_NOT_RUN.has(n.type)) continue;
    if (n.type === 'call' && isHardCudaMove(n)) out.push(n);
    for (const c of children(n)) stack.push(c);
  }
  return out;
}

/** `.cuda(...)`, or `.to("cuda")` / `.to(torch.device("cuda:1"))` with an accelerator written out (devices.ts deviceFromString). */
function isHardCudaMove(call: Node): boolean {
  const callee = field(call, 'function');
  if (callee?.type !== 'attribute') return false;
  const method = field(callee, 'attribute')?.text;
  if (method === 'cuda') return true;
  if (method !== 'to') return false;
  let device = unparen(children(field(call, 'arguments') ?? call)[0] ?? call);
  if (device.type === 'call' && /^(torch\.)?device$/.test(field(device, 'function')?.text ?? '')) device = unparen(children(field(device, 'arguments') ?? device)[0] ?? device);
  return deviceFromString(device)?.place === ACCEL;
}
