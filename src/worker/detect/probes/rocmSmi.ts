// rocm-smi (deprecated upstream, still common): one JSON call on Linux, and with two GPUs or
// more `--showtopo` for how they are linked (xGMI or PCIe).
import { ROCM_SMI_ARGS } from '../../../core/devices/amd';
import { ROCM_TOPO_ARGS } from '../../../core/devices/topology';
import { gatedTool, timeoutFor, unwrapGated, type ProbeContext } from './probeContext';
import { runTool, type ToolRunResult } from '../../../node/processRunner';

export async function probeRocmSmi(ctx: ProbeContext): Promise<ToolRunResult | null> {
  if (ctx.platform !== 'linux') return null;
  return unwrapGated(ctx, 'rocm-smi', await gatedTool(ctx, 'rocm-smi', 'rocm-smi', ROCM_SMI_ARGS));
}

/** `rocm-smi --showtopo`: asked only right after the JSON call answered with two GPUs or more. */
export function probeRocmTopology(ctx: ProbeContext): Promise<ToolRunResult> {
  const timeoutMs = timeoutFor(ctx, 'rocm-smi');
  ctx.log('debug', `running rocm-smi ${ROCM_TOPO_ARGS.join(' ')} (timeout ${timeoutMs} ms)`);
  return runTool('rocm-smi', ROCM_TOPO_ARGS, { timeoutMs, env: ctx.env, signal: ctx.signal });
}
