// DD014 data-parallel: `nn.DataParallel(model)` drives every GPU from one Python process,
// scattering each batch and gathering each output under the GIL; PyTorch recommends
// DistributedDataParallel even on one machine. No error, only lost speed: information.
// A file that also wraps in DistributedDataParallel (or FSDP) made that choice already: its
// DataParallel is the fallback path (no process group, one node), and the advice is moot.
// So it is in a test function: a test that wraps a layer in DataParallel tests DataParallel.
import { field } from '../../python/syntax';
import type { Rule } from '../ruleApi';
import { shortText } from './shared/describe';
import { inTestFunction } from './shared/testCode';
import { ruleMessage } from './shared/message';

/** Where the class lives (torch.nn re-exports it from its parallel package). */
const DATA_PARALLEL = new Set(['torch.nn.DataParallel', 'torch.nn.parallel.DataParallel', 'torch.nn.parallel.data_parallel.DataParallel']);

export const dataParallel: Rule = (host) => ({
  call: (frame, call, qualified) => {
    if (!qualified || !DATA_PARALLEL.has(qualified) || host.deviceChoice().distributed || inTestFunction(call)) return;
    const callee = field(call, 'function') ?? call;
    host.report({
      unit: frame.unit,
      code: 'DD014',
      node: call,
      startNode: callee,
      message: ruleMessage((q) => ({
        problem: `${q(callee)} runs every GPU from one process`,
        action: 'use DistributedDataParallel',
        why: `\`${shortText(callee)}\` scatters each batch and gathers each output every step; PyTorch recommends ` +
          'DistributedDataParallel (one process per GPU, launched with torchrun) even on a single machine.',
      })),
      related: [],
      fixes: [],
    });
  },
});
