// torchvision's image transforms: `ToTensor()` and `PILToTensor()` (and v2's `ToImage()`)
// turn a PIL image or an array into a new tensor on the CPU, and the other torchvision
// transforms keep a tensor where it is. So calling a `ToTensor()` instance, or a
// `Compose([...])` of torchvision transforms that holds one, returns a CPU tensor, as do
// their functional forms (`to_tensor(img)`, `pil_to_tensor(img)`).
import type { Node } from '../python/pyNode';
import { callArguments, children, field, unparen } from '../python/syntax';
import type { Frame } from './frame';
import type { RoundContext } from './roundContext';
import { CPU, Value, value } from './values';

const TO_TENSOR = /^torchvision\.transforms\.(?:v2\.)?(ToTensor|PILToTensor|ToImage)$/;
const TRANSFORM = /^torchvision\.transforms\.(?:v2\.)?[A-Z]\w*$/;
const COMPOSE = /^torchvision\.transforms\.(?:v2\.)?Compose$/;
const TO_TENSOR_FUNCTION = /^torchvision\.transforms\.(?:functional\.(?:to_tensor|pil_to_tensor)|v2\.functional\.pil_to_tensor)$/;
/** A `Lambda` that moves its input (or mentions a device) may put the result anywhere. */
const MOVES = /\.(to|cuda)\(|device/;

/** The transform object `q(...)` builds, when calling it makes a CPU tensor; undefined otherwise. */
export function cpuTensorTransform(ctx: RoundContext, frame: Frame, call: Node, q: string): Value | undefined {
  if (TO_TENSOR.test(q)) return value('other', undefined, { makesCpuTensor: true });
  if (!COMPOSE.test(q)) return undefined;
  const list = callArguments(call).positional[0];
  const steps = list && ['list', 'tuple'].includes(unparen(list).type) ? children(unparen(list)) : undefined;
  if (!steps?.length) return undefined;
  const names = steps.map((s) => {
    const callee = s.type === 'call' ? field(s, 'function') : undefined;
    return callee ? ctx.program.importsAt(frame.unit).qualify(callee) : undefined;
  });
  const converts = names.some((n) => n !== undefined && TO_TENSOR.test(n));
  const keeps = names.every((n, i) => n !== undefined && TRANSFORM.test(n) && !(n.endsWith('.Lambda') && MOVES.test(steps[i].text)));
  return converts && keeps ? value('other', undefined, { makesCpuTensor: true }) : undefined;
}

/** `to_tensor(img)`: the functional form of a converting transform, called at once. */
export function convertsToCpuTensor(q: string): boolean {
  return TO_TENSOR_FUNCTION.test(q);
}

/** What calling such a transform returns: a new tensor on the CPU. */
export function transformedTensor(frame: Frame, call: Node, calleeText: string): Value {
  return value('tensor', CPU, { grad: 'no', origin: { unit: frame.unit, node: call, what: `converted to a CPU tensor by \`${calleeText}(…)\` here` } });
}
