// A collective benchmark from request to report: the request's flags for collectives.py,
// the ranks started by the launcher, rank 0's JSON read and checked by the core. Used by
// `device-doctor bench --collective` (and meant for the worker's service alike).
import * as fs from 'fs';
import * as path from 'path';
import { parseCollectiveReport, type CollectiveReport } from '../../../core/bench/collectives/report';
import { collectiveScriptArgs, type CollectiveRequest } from '../../../core/bench/collectives/request';
import { launchRanks, type LaunchFailure } from './launcher';

export interface CollectiveRunOptions {
  python: string;
  /** collectives.py; default: beside the bundle (dist/) or in src/worker/python. */
  script?: string;
  /** The whole run, every rank. */
  timeoutMs: number;
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
  /** rank 0's "measured <collective> <bytes>" lines as they come. */
  onMeasured?(collective: string, bytes: number): void;
  onRankStarted?(rank: number, pid: number | undefined): void;
  onStderrLine?(rank: number, line: string): void;
  /** Test hook: that rank alters its result before each check. */
  corruptRank?: number;
}

export type CollectiveRunOutcome =
  | { status: 'ok'; report: CollectiveReport }
  | { status: 'failed'; reason: LaunchFailure | 'bad-report'; message: string }
  | { status: 'cancelled' };

export function collectivesScriptPath(baseDir: string = __dirname): string {
  const candidates = [path.join(baseDir, 'collectives.py'), path.join(baseDir, '..', '..', 'python', 'collectives.py'), path.join(baseDir, '..', '..', '..', 'worker', 'python', 'collectives.py')];
  return candidates.find((file) => fs.existsSync(file)) ?? candidates[0];
}

const MEASURED = /^measured (\S+) (\d+)$/;

export async function runCollectives(request: CollectiveRequest, options: CollectiveRunOptions): Promise<CollectiveRunOutcome> {
  const args = collectiveScriptArgs(request);
  if (options.corruptRank !== undefined) args.push('--corrupt-rank', String(options.corruptRank));
  const outcome = await launchRanks({
    python: options.python,
    script: options.script ?? collectivesScriptPath(),
    args,
    worldSize: request.worldSize,
    env: options.env,
    timeoutMs: options.timeoutMs,
    signal: options.signal,
    onRankStarted: options.onRankStarted,
    onStderrLine: (rank, line) => {
      const measured = rank === 0 ? MEASURED.exec(line.trim()) : null;
      if (measured) options.onMeasured?.(measured[1], Number(measured[2]));
      options.onStderrLine?.(rank, line);
    },
  });
  if (outcome.status !== 'ok') return outcome;
  const parsed = parseCollectiveReport(outcome.stdout);
  if (!parsed.ok) return { status: 'failed', reason: 'bad-report', message: parsed.error };
  return { status: 'ok', report: parsed.report };
}
