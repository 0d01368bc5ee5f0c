// Discovery, then a PyTorch probe of each interpreter that may run, two at a time (importing
// torch is seconds of CPU), through the same gate as detect so that the detect's own interpreter
// is never probed twice at once. Used by the worker's interpreters request and by the CLI.
import { torchStatusFromRun } from '../../core/devices/torchProbe';
import type { DiscoveredInterpreter, InterpreterCandidate } from '../../core/interpreters/model';
import { mayRun } from '../../core/interpreters/trust';
import { discoverInterpreters, trustFacts, type DiscoveryInput } from '../../node/interpreters/discover';
import type { ProbeContext } from '../detect/probes/probeContext';
import { probeTorch, probeScriptPath } from '../detect/probes/torch';
import { interpreterStamp, type TorchProbeCache } from './probeCache';

const PARALLEL_PROBES = 2;

export interface ProbeInterpretersOptions {
  ctx: ProbeContext;
  cache?: TorchProbeCache;
  script?: string;
}

async function probeOne(candidate: InterpreterCandidate, allowed: boolean, options: ProbeInterpretersOptions): Promise<DiscoveredInterpreter> {
  if (!allowed) return { ...candidate, torch: null, notProbed: 'untrusted' };
  const cached = options.cache?.status(candidate.path);
  if (cached) return { ...candidate, torch: cached, notProbed: null };
  const stamp = interpreterStamp(candidate.path);
  const { run } = await probeTorch(options.ctx, candidate.path, options.script ?? probeScriptPath());
  options.cache?.remember(candidate.path, run, stamp);
  return { ...candidate, torch: torchStatusFromRun(run, candidate.path), notProbed: null };
}

/** Runs `work` over `items`, at most `limit` at once, keeping the order. */
async function mapLimited<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}

export async function probeInterpreters(input: DiscoveryInput, options: ProbeInterpretersOptions): Promise<DiscoveredInterpreter[]> {
  const candidates = await discoverInterpreters(input);
  const facts = trustFacts(input);
  options.ctx.log('debug', `found ${candidates.length} interpreter(s): ${candidates.map((c) => c.path).join(', ')}`);
  return mapLimited(candidates, PARALLEL_PROBES, (candidate) => probeOne(candidate, mayRun(candidate, facts), options));
}
