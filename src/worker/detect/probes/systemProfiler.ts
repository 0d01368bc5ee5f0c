// system_profiler on macOS. Its output carries display serial numbers: it goes to the
// parser and nowhere else (never into the log).
import { SYSTEM_PROFILER_ARGS } from '../../../core/devices/apple';
import { gatedTool, unwrapGated, type ProbeContext } from './probeContext';
import type { ToolRunResult } from '../../../node/processRunner';

export async function probeSystemProfiler(ctx: ProbeContext): Promise<ToolRunResult | null> {
  if (ctx.platform !== 'darwin') return null;
  return unwrapGated(ctx, 'system_profiler', await gatedTool(ctx, 'system_profiler', 'system_profiler', SYSTEM_PROFILER_ARGS));
}
