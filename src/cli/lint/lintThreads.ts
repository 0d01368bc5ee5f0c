// `lint` of many files on several cores: each thread (lintWorker.ts, dist/lintWorker.js beside
// the CLI's bundle) checks one file at a time as the run hands them out, with its own parsed
// modules; lintFiles.ts puts the outcomes in the order the files were given, as one thread
// would. Not with --fix (a fixed file is what the files checked after it import) nor with a
// test's own analyzer (lintFiles.ts decides), and not for a few files: a thread's start (its
// bundle and parser) costs more.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Worker } from 'worker_threads';
import type { LintedFile, LintReport } from '../formats/report';
import type { SelectionLayer } from '../../core/config';

/** Threads at most, whatever the machine: each keeps its own parsed modules and heap. */
const MAX_THREADS = 8;
/** A thread is started for at least this many files. */
const FILES_PER_THREAD = 4;
/**
 * A thread's old generation, as the language server's analysis threads have it (server.ts):
 * V8 lets an unlimited heap grow to several times what it keeps alive, and eight threads
 * each at a single thread's peak would hold gigabytes.
 */
const THREAD_LIMITS = { maxOldGenerationSizeMb: 1024 };

/** What checking one file gave: the file checked, nothing (a notebook that is not ours), or why it could not be. */
export interface LintOutcome {
  linted?: LintedFile;
  problem?: LintReport['problems'][number];
}

/** What every thread is given: the run's files and settings, plain data, and how to open its cache. */
export interface LintThreadData {
  files: readonly string[];
  settings: { cwd: string; overrides?: SelectionLayer; noqa: boolean; maxBytes?: number; paths?: readonly string[] };
  cache?: { folder: string; tool: string };
}

export interface LintThreadAnswer {
  index: number;
  outcome: LintOutcome;
}

/** A file's outcome from a thread, or why the thread checking it stopped. */
export type ThreadResult = { outcome: LintOutcome } | { stopped: string };

/**
 * How many threads check `files` files: `jobs` (--jobs), else one core fewer than the machine
 * has, since one analysing thread already keeps the garbage collector's threads busy on about
 * a third of another core; fewer for few files.
 */
export function threadCount(files: number, jobs: number | undefined): number {
  const wanted = jobs ?? Math.min(os.availableParallelism() - 1, MAX_THREADS);
  return Math.max(1, Math.min(wanted, Math.floor(files / FILES_PER_THREAD)));
}

/**
 * Each file's result from the threads, by index (none for a file no thread got to, when every
 * thread stopped first); undefined where the run checks its files in this thread.
 */
export async function resultsFromThreads(data: LintThreadData, jobs: number | undefined): Promise<Array<ThreadResult | undefined> | undefined> {
  const script = path.join(__dirname, 'lintWorker.js');
  const count = threadCount(data.files.length, jobs);
  if (count < 2 || !fs.existsSync(script)) return undefined;
  const results: Array<ThreadResult | undefined> = new Array(data.files.length);
  let next = 0;
  const take = () => (next < data.files.length ? next++ : undefined);
  await Promise.all(Array.from({ length: count }, () => runThread(script, data, take, results)));
  return results;
}

/** One thread, handed a file each time it answers, until none is left or it stops. */
function runThread(script: string, data: LintThreadData, take: () => number | undefined, results: Array<ThreadResult | undefined>): Promise<void> {
  return new Promise((resolve) => {
    const worker = new Worker(script, { workerData: data, resourceLimits: THREAD_LIMITS });
    let current: number | undefined;
    let failure: string | undefined;
    const handOut = () => {
      current = take();
      if (current === undefined) void worker.terminate();
      else worker.postMessage(current);
    };
    worker.on('message', (answer: LintThreadAnswer) => {
      results[answer.index] = { outcome: answer.outcome };
      handOut();
    });
    worker.on('error', (err) => {
      failure = err instanceof Error ? err.message : String(err);
    });
    worker.on('exit', (code) => {
      // A thread that died (out of memory, a crash of the analysis) costs the file it was checking, not the run.
      if (current !== undefined && results[current] === undefined) results[current] = { stopped: failure ?? `exit code ${code}` };
      resolve();
    });
    handOut();
  });
}
