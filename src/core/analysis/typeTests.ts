// Conditions that test whether a value is a tensor: `torch.is_tensor(x)`,
// `isinstance(x, torch.Tensor)` (or a tuple of types holding it). Where such a test is false,
// x is no tensor, so a path that skipped `if torch.is_tensor(vec): vec = vec.detach().cpu().numpy()`
// does not carry the tensor that requires grad to the `np.median(vec)` after it.
import type { Node } from '../python/pyNode';
import { callArguments, children, dottedKey, field, unparen } from '../python/syntax';
import type { Env } from './env';
import { OTHER } from './values';

const TENSOR_TYPES = new Set(['torch.Tensor', 'torch.FloatTensor', 'torch.nn.Parameter', 'torch.nn.parameter.Parameter']);

/** A type test: the name it tests, and whether the name is no tensor where the condition is true (`not is_tensor(x)`) or false. */
export interface TensorTest {
  name: string;
  notTensorWhen: boolean;
}

export function tensorTest(cond: Node | null, qualify: (n: Node) => string | undefined): TensorTest | undefined {
  if (!cond) return undefined;
  const c = unparen(cond);
  if (c.type === 'not_operator') {
    const inner = field(c, 'argument');
    const name = inner ? testedName(inner, qualify) : undefined;
    return name ? { name, notTensorWhen: true } : undefined;
  }
  const name = testedName(c, qualify);
  return name ? { name, notTensorWhen: false } : undefined;
}

/** `env` with `name` bound to a value that is no tensor. */
export function withoutTensor(env: Env, name: string): Env {
  const narrowed = env.clone();
  narrowed.set(name, OTHER);
  return narrowed;
}

/** The dotted name that `cond` tests for being a tensor, when it is such a test. */
function testedName(cond: Node, qualify: (n: Node) => string | undefined): string | undefined {
  const c = unparen(cond);
  if (c.type !== 'call') return undefined;
  const callee = field(c, 'function');
  const args = callArguments(c);
  if (!callee || args.hasSplat || args.keywords.size) return undefined;
  const subject = args.positional[0];
  if (!subject) return undefined;
  if (args.positional.length === 1 && qualify(callee) === 'torch.is_tensor') return dottedKey(unparen(subject));
  if (callee.type !== 'identifier' || callee.text !== 'isinstance' || args.positional.length !== 2) return undefined;
  const types = unparen(args.positional[1]);
  const named = types.type === 'tuple' ? children(types) : [types];
  return named.some((t) => TENSOR_TYPES.has(qualify(t) ?? '')) ? dottedKey(unparen(subject)) : undefined;
}
