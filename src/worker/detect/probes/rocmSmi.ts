// rocm-smi (deprecated upstream, still common): one JSON call on Linux.
import { ROCM_SMI_ARGS } from '../../../core/devices/amd';
import { gatedTool, unwrapGated, type ProbeContext } from './probeContext';
import type { ToolRunResult } from '../../../node/processRunner';

export async function probeRocmSmi(ctx: ProbeContext): Promise<ToolRunResult | null> {
  if (ctx.platform !== 'linux') return null;
  return unwrapGated(ctx, 'rocm-smi', await gatedTool(ctx, 'rocm-smi', 'rocm-smi', ROCM_SMI_ARGS));
}
