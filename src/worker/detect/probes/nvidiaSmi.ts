// Runs nvidia-smi for the report: the inventory first, and only when that worked the
// details (-q, for the CUDA version) and the -L listing (MIG). One call at a time, so a
// sick driver is asked once, not three times at once.
import { NVIDIA_DETAILS_ARGS, NVIDIA_LIST_ARGS, NVIDIA_QUERY_ARGS } from '../../../core/devices/nvidiaSmi';
import { NVIDIA_TOPO_ARGS } from '../../../core/devices/topology';
import { succeeded, type ToolRun } from '../../../core/devices/toolRun';
import { timedOut, timeoutFor, unwrapGated, type ProbeContext } from './probeContext';
import { runTool, type ToolRunResult } from '../../../node/processRunner';

export const NVIDIA_SMI = 'nvidia-smi';

export interface NvidiaSmiRuns {
  query: ToolRun;
  /** null when the inventory failed and the rest was not asked. */
  details: ToolRun | null;
  list: ToolRun | null;
  /** `topo -m`: asked only when the inventory lists two GPUs or more (one GPU has no links). */
  topology?: ToolRun | null;
  /** Set while nvidia-smi is backing off after a hang: these runs are the hung ones. */
  retryAt?: number;
}

function anyTimedOut(runs: NvidiaSmiRuns): boolean {
  return [runs.query, runs.details, runs.list, runs.topology ?? null].some(timedOut);
}

/** The inventory's CSV rows, one per GPU. */
function inventoryRows(query: ToolRun): number {
  return query.stdout.split('\n').filter((line) => line.trim() !== '').length;
}

async function runAll(ctx: ProbeContext, signal: AbortSignal): Promise<NvidiaSmiRuns> {
  const timeoutMs = timeoutFor(ctx, 'nvidia-smi');
  const run = (args: readonly string[]): Promise<ToolRunResult> => {
    ctx.log('debug', `running ${NVIDIA_SMI} ${args.join(' ')} (timeout ${timeoutMs} ms)`);
    return runTool(NVIDIA_SMI, args, { timeoutMs, env: ctx.env, signal });
  };
  const runs: NvidiaSmiRuns = { query: await run(NVIDIA_QUERY_ARGS), details: null, list: null };
  if (!succeeded(runs.query)) return runs;
  for (const [key, args] of [['details', NVIDIA_DETAILS_ARGS], ['list', NVIDIA_LIST_ARGS]] as const) {
    runs[key] = await run(args);
    // A call that hangs after a good inventory means the driver is in trouble: stop asking.
    if (timedOut(runs[key]) || signal.aborted) return runs;
  }
  if (inventoryRows(runs.query) >= 2) runs.topology = await run(NVIDIA_TOPO_ARGS);
  return runs;
}

/** nvidia-smi's answers for one detect; shared with a detect already asking, held back after a hang. */
export async function probeNvidiaSmi(ctx: ProbeContext): Promise<NvidiaSmiRuns> {
  const gated = await ctx.gate.run(NVIDIA_SMI, (signal) => runAll(ctx, signal), anyTimedOut, ctx.signal);
  const runs = unwrapGated(ctx, NVIDIA_SMI, gated);
  return gated.status === 'backing-off' ? { ...runs, retryAt: gated.retryAt } : runs;
}
