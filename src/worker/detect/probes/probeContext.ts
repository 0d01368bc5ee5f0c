// What every probe runner gets: the gate that keeps one probe of a kind in flight, the
// timeout, the environment the tools see, cancellation and a log.
import type { WorkerLog } from '../../../protocol/worker';
import type { Gated, ProbeGate } from './probeGate';
import type { ToolRun } from '../../../core/devices/toolRun';
import { runTool, type ToolRunResult } from '../../../node/processRunner';
import { DEFAULT_TIMEOUTS_MS, type ToolKind } from '../../../protocol/probeTimeouts';

export type LogFn = (level: WorkerLog['level'], message: string) => void;

export interface ProbeContext {
  gate: ProbeGate;
  /** Overrides every kind's own default when set (deviceDoctor.probeTimeoutMs; tests use a short one). */
  timeoutMs?: number;
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  signal?: AbortSignal;
  log: LogFn;
}

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
