// A test (function or class) marked as needing a GPU: CUDA is its precondition, which the
// test runner checks before it runs. Rules about code that must also run without CUDA
// (DD005, DD011, DD013) stay silent inside one.
import type { Node } from '../../../python/pyNode';
import { children } from '../../../python/syntax';

/**
 * A decorator that skips, requires or marks on a GPU: `@pytest.mark.gpu`,
 * `@pytest.mark.skipif(not torch.cuda.is_available(), ...)`, `@unittest.skipUnless(...)`,
 * `@require_torch_gpu`, `@requires_cuda`, `@RunIf(min_cuda_gpus=1)`, PyG's `@onlyCUDA`.
 */
const GPU_PRECONDITION = /^@\s*[\w.]*(mark|skip|requires?|run_?if)[\s\S]*(cuda|gpu)|^@\s*[\w.]*(only_?(cuda|gpus?)|(cuda|gpu)_?only)\b/i;

export function inGpuOnlyTest(node: Node): boolean {
  for (let n = node.parent; n; n = n.parent) {
    if (n.type !== 'decorated_definition') continue;
    if (children(n).some((d) => d.type === 'decorator' && GPU_PRECONDITION.test(d.text))) return true;
  }
  return false;
}
