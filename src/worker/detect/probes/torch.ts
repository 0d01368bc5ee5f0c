// Runs src/worker/python/probe.py with the user's interpreter. One probe per interpreter
// in flight; a hung import (a network file system, a stuck CUDA init) backs off like a
// hung nvidia-smi.
import * as fs from 'fs';
import * as path from 'path';
import { timedOut, timeoutFor, unwrapGated, type ProbeContext } from './probeContext';
import type { ToolRun } from '../../../core/devices/toolRun';
import { runTool } from '../../../node/processRunner';

export interface TorchProbeRun {
  interpreter: string;
  run: ToolRun;
  retryAt?: number;
}

/**
 * Where probe.py is: beside the bundle in dist/ (esbuild copies it there), or in
 * src/worker/python when running from source.
 */
export function probeScriptPath(baseDir: string = __dirname): string {
  const candidates = [
    path.join(baseDir, 'probe.py'),
    path.join(baseDir, '..', '..', 'python', 'probe.py'),
  ];
  return candidates.find((file) => fs.existsSync(file)) ?? candidates[0];
}

export async function probeTorch(ctx: ProbeContext, interpreter: string, script: string = probeScriptPath()): Promise<TorchProbeRun> {
  const timeoutMs = timeoutFor(ctx, 'torch');
  const gated = await ctx.gate.run(
    `torch:${interpreter}`,
    (signal) => {
      ctx.log('debug', `running ${interpreter} ${script} (timeout ${timeoutMs} ms)`);
      // Only the JSON on stdout matters; cap it well below the default.
      return runTool(interpreter, [script], { timeoutMs, env: ctx.env, signal, maxOutputBytes: 1024 * 1024 });
    },
    timedOut,
    ctx.signal,
  );
  const run = unwrapGated(ctx, `PyTorch probe (${interpreter})`, gated);
  return gated.status === 'backing-off' ? { interpreter, run, retryAt: gated.retryAt } : { interpreter, run };
}
