// amd-smi (rocm-smi's successor): the static inventory, then live metrics when that worked.
import { AMD_SMI_METRIC_ARGS, AMD_SMI_STATIC_ARGS } from '../../../core/devices/amd';
import { succeeded, type ToolRun } from '../../../core/devices/toolRun';
import { timedOut, timeoutFor, unwrapGated, type ProbeContext } from './probeContext';
import { runTool, type ToolRunResult } from '../../../node/processRunner';

export interface AmdSmiRuns {
  static: ToolRun;
  metric: ToolRun | null;
}

function anyTimedOut(runs: AmdSmiRuns): boolean {
  return timedOut(runs.static) || timedOut(runs.metric);
}

async function runBoth(ctx: ProbeContext, signal: AbortSignal): Promise<AmdSmiRuns> {
  const timeoutMs = timeoutFor(ctx, 'amd-smi');
  const run = (args: readonly string[]): Promise<ToolRunResult> => {
    ctx.log('debug', `running amd-smi ${args.join(' ')} (timeout ${timeoutMs} ms)`);
    return runTool('amd-smi', args, { timeoutMs, env: ctx.env, signal });
  };
  const first = await run(AMD_SMI_STATIC_ARGS);
  return { static: first, metric: succeeded(first) && !signal.aborted ? await run(AMD_SMI_METRIC_ARGS) : null };
}

export async function probeAmdSmi(ctx: ProbeContext): Promise<AmdSmiRuns | null> {
  if (ctx.platform !== 'linux') return null;
  const gated = await ctx.gate.run('amd-smi', (signal) => runBoth(ctx, signal), anyTimedOut, ctx.signal);
  return unwrapGated(ctx, 'amd-smi', gated);
}
