// Starts the ranks of a torch.distributed group on this machine, the way torchrun does for
// one node: one process per rank through the process runner, each told RANK, WORLD_SIZE and
// LOCAL_RANK. They meet through a file store in a private (0700) temporary folder, removed
// afterwards, not through env://: rank 0's TCPStore would listen on every network interface,
// unauthenticated, for the whole run. gloo and NCCL are kept on the loopback interface. A
// group lives or dies together: when one rank fails or dies, the others would wait on it until
// torch's timeout, so they are killed at once and the run ends naming the rank that went first.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { OWNED_CHILDREN, startProcess, whenAborted, type ProcessEnd, type RunningProcess } from '../../../node/processRunner';

/** Rank 0's report is one line: a few MB at most, even for a long sweep of many iterations. */
const REPORT_LIMIT_BYTES = 32 * 1024 * 1024;
/** After SIGKILL, how long to wait for a rank to go before settling anyway (D-state). */
const EXIT_WAIT_MS = 2000;

export interface RankLaunch {
  python: string;
  script: string;
  args: readonly string[];
  worldSize: number;
  env?: NodeJS.ProcessEnv;
  /** Every rank has ended by then (killed if need be). */
  timeoutMs: number;
  signal?: AbortSignal;
  onRankStarted?(rank: number, pid: number | undefined): void;
  onStderrLine?(rank: number, line: string): void;
}

export type LaunchFailure = 'rank-failed' | 'timeout' | 'spawn-error' | 'report-too-large' | 'store-folder';

export type LaunchOutcome =
  | { status: 'ok'; stdout: string }
  | { status: 'failed'; reason: LaunchFailure; message: string }
  | { status: 'cancelled' };

interface RankEnd {
  rank: number;
  end: ProcessEnd;
  /** Ended by our kill (a peer failed, the timeout, a cancel), not on its own. */
  killedByUs: boolean;
  stderrTail: string;
}

/** Runs the group to its end; never throws. */
export async function launchRanks(launch: RankLaunch): Promise<LaunchOutcome> {
  if (launch.signal?.aborted) return { status: 'cancelled' };
  let folder: string;
  try {
    // mkdtemp creates it 0700: no other user can read or plant the store's file.
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'device-doctor-ranks-'));
  } catch (err) {
    return { status: 'failed', reason: 'store-folder', message: `could not create a private folder for the ranks' store in ${os.tmpdir()}: ${err instanceof Error ? err.message : String(err)}` };
  }
  try {
    return await runGroup(launch, path.join(folder, 'store'));
  } finally {
    removeFolder(folder);
  }
}

/** The store's folder, gone with the run; a folder that will not go is left (it is private). */
function removeFolder(folder: string): void {
  try {
    fs.rmSync(folder, { recursive: true, force: true });
  } catch {
    // A rank stuck in the kernel may still hold it open on some systems; nothing else to do.
  }
}

function rankEnv(launch: RankLaunch, rank: number): NodeJS.ProcessEnv {
  const base = launch.env ?? process.env;
  const n = String(launch.worldSize);
  return {
    ...base,
    RANK: String(rank),
    LOCAL_RANK: String(rank),
    WORLD_SIZE: n,
    LOCAL_WORLD_SIZE: n,
    GROUP_RANK: '0',
    // As torchrun does for more than one process: N ranks with a thread per core each would
    // fight over the cores and measure the fight.
    OMP_NUM_THREADS: base.OMP_NUM_THREADS ?? '1',
    // gloo's and NCCL's own connections between the ranks, over loopback only; without this
    // they pick the interface the host name resolves to, which may be a network one.
    ...(process.platform === 'linux' ? { GLOO_SOCKET_IFNAME: base.GLOO_SOCKET_IFNAME ?? 'lo', NCCL_SOCKET_IFNAME: base.NCCL_SOCKET_IFNAME ?? 'lo' } : {}),
    PYTHONDONTWRITEBYTECODE: '1',
    PYTHONIOENCODING: 'utf-8',
    PYTHONUNBUFFERED: '1',
  };
}

/** Starts every rank, waits for all, stops all on the first failure. */
function runGroup(launch: RankLaunch, storeFile: string): Promise<LaunchOutcome> {
  return new Promise((resolve) => {
    const ranks: RunningProcess[] = [];
    // A rank has ended when it exits, or once SIGKILL's grace is over: a process stuck in the
    // kernel may keep its pipes open long after, and the run must still end.
    const settles: ((end: ProcessEnd) => void)[] = [];
    const ends: RankEnd[] = [];
    let stopping: 'failure' | 'timeout' | 'cancelled' | null = null;
    const stopAll = (why: 'failure' | 'timeout' | 'cancelled'): void => {
      if (stopping) return;
      stopping = why;
      ranks.forEach((rank, i) => void rank.stop(EXIT_WAIT_MS).then(settles[i]));
    };
    let timer: NodeJS.Timeout | undefined;
    let unsubscribe = (): void => undefined;
    for (let rank = 0; rank < launch.worldSize; rank++) {
      const child = startProcess(launch.python, [launch.script, ...launch.args, '--store-file', storeFile], {
        env: rankEnv(launch, rank),
        track: OWNED_CHILDREN,
        captureBytes: rank === 0 ? REPORT_LIMIT_BYTES : undefined,
        onStderrLine: (line) => launch.onStderrLine?.(rank, line),
      });
      ranks.push(child);
      launch.onRankStarted?.(rank, child.pid);
      void new Promise<ProcessEnd>((settle) => {
        settles.push(settle);
        void child.ended.then(settle);
      }).then((end) => {
        const killedByUs = stopping !== null;
        ends.push({ rank, end, killedByUs, stderrTail: child.stderrTail });
        if (!killedByUs && failed(end)) stopAll('failure');
        if (ends.length < launch.worldSize) return;
        clearTimeout(timer);
        unsubscribe();
        resolve(outcomeOf(launch, ends, stopping, ranks[0]));
      });
    }
    // Armed once every rank exists, so that a stop reaches all of them.
    timer = setTimeout(() => stopAll('timeout'), launch.timeoutMs);
    unsubscribe = whenAborted(launch.signal, () => stopAll('cancelled'));
  });
}

function failed(end: ProcessEnd): boolean {
  return end.errorCode !== undefined || end.signal !== null || end.exitCode !== 0;
}

function outcomeOf(launch: RankLaunch, ends: RankEnd[], stopping: string | null, rank0: RunningProcess): LaunchOutcome {
  if (stopping === 'cancelled') return { status: 'cancelled' };
  const n = launch.worldSize;
  const seconds = Math.round(launch.timeoutMs / 1000);
  if (stopping === 'timeout') {
    return { status: 'failed', reason: 'timeout', message: `the ${n} ranks had not finished after ${seconds} s and were stopped (lower --max-size or --repeats, or raise --timeout)` };
  }
  if (rank0.output().truncated) {
    return { status: 'failed', reason: 'report-too-large', message: `rank 0 printed more than ${REPORT_LIMIT_BYTES} bytes and was stopped` };
  }
  const own = ends.filter((e) => !e.killedByUs && failed(e.end));
  // A rank that died of a signal is the cause; the others' errors are its echo ("connection closed by peer").
  const first = own.find((e) => e.end.signal !== null && e.end.errorCode === undefined) ?? own[0];
  if (first) {
    if (first.end.errorCode !== undefined) {
      return { status: 'failed', reason: 'spawn-error', message: `${launch.python} could not be started (${first.end.errorCode}: ${first.end.errorMessage})` };
    }
    const others = n > 1 ? '; the other ranks were stopped' : '';
    const how = first.end.signal ? `was killed by ${first.end.signal}` : `failed (exit code ${first.end.exitCode})`;
    // A rank killed from outside had no last words: its last line ("ready") would mislead.
    const why = first.end.signal ? ownReason(first.stderrTail) : reasonLine(first.stderrTail);
    return { status: 'failed', reason: 'rank-failed', message: `rank ${first.rank} of ${n} ${how}${why ? `: ${why}` : ''}${others}` };
  }
  return { status: 'ok', stdout: rank0.output().stdout };
}

function stderrLines(stderrTail: string): string[] {
  return stderrTail.split('\n').map((l) => l.trim()).filter((l) => l !== '');
}

/** collectives.py's own one-line reason ("collectives.py rank R/N: ..."), or ''. */
function ownReason(stderrTail: string): string {
  return ([...stderrLines(stderrTail)].reverse().find((l) => l.startsWith('collectives.py')) ?? '').slice(0, 500);
}

/** The rank's own reason, else its last stderr line. */
export function reasonLine(stderrTail: string): string {
  return ownReason(stderrTail) || (stderrLines(stderrTail).pop() ?? '').slice(0, 500);
}
