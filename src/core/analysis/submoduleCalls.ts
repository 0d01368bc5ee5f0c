// Calling a submodule through its module: `model.encoder(x)` from outside the class,
// `self.transformer.encoder(src, mask)` on a torch.nn.Transformer. The submodule is where
// the module is, so a CPU input meets it exactly as `model(x)` would; before, such a call
// was "some method of a module" and said nothing.
import type { Node } from '../python/pyNode';
import type { Frame } from './frame';
import type { Evaluator } from './roundContext';
import { MODEL_LIKE_NAME } from './torchApi';
import { UNTRACKED, value, type Value } from './values';

/** nn.Module's own API: calling one of these is no call of a submodule. */
const MODULE_API = new Set([
  'add_module', 'apply', 'bfloat16', 'buffers', 'children', 'compile', 'cpu', 'cuda', 'double', 'eval', 'extra_repr', 'float',
  'forward', 'get_buffer', 'get_extra_state', 'get_parameter', 'get_submodule', 'half', 'ipu', 'load_state_dict', 'modules',
  'mtia', 'named_buffers', 'named_children', 'named_modules', 'named_parameters', 'parameters', 'register_backward_hook',
  'register_buffer', 'register_forward_hook', 'register_forward_pre_hook', 'register_full_backward_hook',
  'register_full_backward_pre_hook', 'register_load_state_dict_post_hook', 'register_load_state_dict_pre_hook',
  'register_module', 'register_parameter', 'register_state_dict_post_hook', 'register_state_dict_pre_hook', 'requires_grad_',
  'set_extra_state', 'set_submodule', 'share_memory', 'state_dict', 'to', 'to_empty', 'train', 'type', 'xpu', 'zero_grad',
]);

/** Attribute names that library models use for their layers (torchvision's `fc`, `features`; nn.Transformer's `encoder`). */
const LAYER_NAME = /(^|_)(fc|layer\d+|layers|features|embeddings?|pooler|lm_head|proj|conv\d*|blocks)$/;

/**
 * The submodule that `recv.method(...)` calls, if it is one: for a class of the program,
 * an attribute its methods assigned a module to (the class summary, read by attributeOn);
 * for a library module, an attribute named as layers are, where that module is.
 */
export function calledSubmodule(ex: Evaluator, frame: Frame, callee: Node, recv: Value, method: string): Value | undefined {
  if (recv.kind !== 'module' || recv.placeless || MODULE_API.has(method) || method.startsWith('_')) return undefined;
  const attr = ex.attributeOn(frame, callee, recv);
  if (attr.kind === 'module') return attr;
  if (recv.className || attr.kind !== 'unknown' || recv.place === UNTRACKED) return undefined;
  if (!MODEL_LIKE_NAME.test(method) && !LAYER_NAME.test(method)) return undefined;
  return value('module', recv.place, { deviceText: recv.deviceText, origin: recv.origin });
}
