// Conditions that test whether a value is a tensor or a module: `torch.is_tensor(x)`,
// `isinstance(x, torch.Tensor)`, `isinstance(net, nn.Module)` (or a tuple of types holding
// one). Where such a test is false, x is neither, so a path that skipped `if torch.is_tensor(vec):
// vec = vec.detach().cpu().numpy()` does not carry the tensor that requires grad to the
// `np.median(vec)` after it, and the `else:` of `if isinstance(net, nn.Module):` (a plain
// function `net`, given CPU batches) is no module call.
import type { Node } from '../python/pyNode';
import { callArguments, children, dottedKey, field, unparen } from '../python/syntax';
import type { Env } from './env';
import { OTHER, type Value } from './values';

const TENSOR_TYPES = new Set(['torch.Tensor', 'torch.FloatTensor', 'torch.nn.Parameter', 'torch.nn.parameter.Parameter']);
const ARRAY_TYPES = new Set(['numpy.ndarray']);
const MODULE_TYPES = new Set(['torch.nn.Module', 'torch.nn.modules.module.Module']);

/**
 * A type test: the name it tests, and whether the name is no tensor (or module) where the
 * condition is true (`not is_tensor(x)`) or false. `module`: a test for a module, whose arm
 * without it only holds for that arm (`net` stays the model after the `if`).
 */
export interface TensorTest {
  name: string;
  notTensorWhen: boolean;
  module: boolean;
}

export function tensorTest(cond: Node | null, qualify: (n: Node) => string | undefined): TensorTest | undefined {
  if (!cond) return undefined;
  const c = unparen(cond);
  if (c.type === 'not_operator') {
    const inner = field(c, 'argument');
    const tested = inner ? testedName(inner, qualify) : undefined;
    return tested ? { ...tested, notTensorWhen: true } : undefined;
  }
  const tested = testedName(c, qualify);
  return tested ? { ...tested, notTensorWhen: false } : undefined;
}

/**
 * `isinstance(net, nn.Module)` where `net` is a function the program defines: never a
 * module. `isinstance(x, torch.Tensor)` where `x` is a tensor the analysis made (a torch
 * op's result, a model's output, passed in by this call's caller): always one.
 */
export function typeTestOutcome(test: TensorTest | undefined, env: Env): boolean | undefined {
  const tested = test ? env.get(test.name) : undefined;
  if (!tested) return undefined;
  if (test!.module) return tested.functionId !== undefined && tested.kind !== 'module' ? test!.notTensorWhen : undefined;
  return isinstanceOutcome(tested, 'torch.Tensor') === true ? !test!.notTensorWhen : undefined;
}

/** `env` with `name` bound to `marker`, a value that is no tensor nor module. */
export function withoutTensor(env: Env, name: string, marker: Value = OTHER): Env {
  const narrowed = env.clone();
  narrowed.set(name, marker);
  return narrowed;
}

/** The dotted name that `cond` tests for being a tensor or a module, when it is such a test. */
function testedName(cond: Node, qualify: (n: Node) => string | undefined): { name: string; module: boolean } | undefined {
  const c = unparen(cond);
  if (c.type !== 'call') return undefined;
  const callee = field(c, 'function');
  const args = callArguments(c);
  if (!callee || args.hasSplat || args.keywords.size) return undefined;
  const subject = args.positional[0];
  if (!subject) return undefined;
  const name = dottedKey(unparen(subject));
  if (!name) return undefined;
  if (args.positional.length === 1 && qualify(callee) === 'torch.is_tensor') return { name, module: false };
  if (callee.type !== 'identifier' || callee.text !== 'isinstance' || args.positional.length !== 2) return undefined;
  const types = unparen(args.positional[1]);
  const named = (types.type === 'tuple' ? children(types) : [types]).map((t) => qualify(t) ?? '');
  if (named.some((t) => TENSOR_TYPES.has(t))) return { name, module: false };
  return named.some((t) => MODULE_TYPES.has(t)) ? { name, module: true } : undefined;
}

/**
 * `isinstance(x, T)` as a value (`as_np = isinstance(track, np.ndarray)`, then `if as_np:`):
 * decided where x is a tensor the analysis made (true for a tensor type, false for NumPy's
 * array) or a NumPy array (the other way round); undefined otherwise.
 */
export function isinstanceOutcome(subject: Value, type: string | undefined): boolean | undefined {
  if (!type || subject.mayBeNone || subject.isNone) return undefined;
  const tensor = subject.kind === 'tensor' ? true : subject.ndarray ? false : undefined;
  if (tensor === undefined) return undefined;
  if (TENSOR_TYPES.has(type)) return tensor;
  return ARRAY_TYPES.has(type) ? !tensor : undefined;
}
