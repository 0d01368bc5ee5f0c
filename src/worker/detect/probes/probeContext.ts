// What every probe runner gets: the gate that keeps one probe of a kind in flight, the
// timeout, the environment the tools see, cancellation and a log.
import type { WorkerLog } from '../../../protocol/worker';
import type { Gated, ProbeGate } from './probeGate';
import type { ToolRun } from '../../../core/devices/toolRun';
import { runTool, type ToolRunResult } from '../../../node/processRunner';

export type LogFn = (level: WorkerLog['level'], message: string) => void;

export interface ProbeContext {
  gate: ProbeGate;
  /** Overrides every kind's own default when set (tests use a short one). */
  timeoutMs?: number;
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  signal?: AbortSignal;
  log: LogFn;
}

/** How long each kind of tool gets by default: importing torch can take a while, nvidia-smi should not. */
export const DEFAULT_TIMEOUTS_MS = {
  'nvidia-smi': 15_000,
  'rocm-smi': 15_000,
  'amd-smi': 15_000,
  system_profiler: 20_000,
  torch: 120_000,
} as const;

export type ToolKind = keyof typeof DEFAULT_TIMEOUTS_MS;

export function timeoutFor(ctx: ProbeContext, kind: ToolKind): number {
  return ctx.timeoutMs ?? DEFAULT_TIMEOUTS_MS[kind];
}

export function timedOut(run: ToolRun | null | undefined): boolean {
  return run?.errorCode === 'TIMEOUT';
}

/** Runs one tool through the gate under `kind`; a hang makes the kind back off. */
export function gatedTool(ctx: ProbeContext, kind: ToolKind, command: string, args: readonly string[]): Promise<Gated<ToolRunResult>> {
  const timeoutMs = timeoutFor(ctx, kind);
  return ctx.gate.run(
    kind,
    (signal) => {
      ctx.log('debug', `running ${command} ${args.join(' ')} (timeout ${timeoutMs} ms)`);
      return runTool(command, args, { timeoutMs, env: ctx.env, signal });
    },
    timedOut,
    ctx.signal,
  );
}

/** Says in the log what the gate did, and returns the run either way. */
export function unwrapGated<T>(ctx: ProbeContext, kind: string, gated: Gated<T>): T {
  if (gated.status === 'backing-off') {
    ctx.log('warn', `${kind} hung last time; not starting it again before ${new Date(gated.retryAt).toISOString()}`);
  } else if (gated.shared) {
    ctx.log('debug', `${kind} was already running; sharing its result`);
  }
  return gated.value;
}
