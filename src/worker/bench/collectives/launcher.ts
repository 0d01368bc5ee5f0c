// Starts the ranks of a torch.distributed group on this machine, the way torchrun does for
// one node: one process per rank through the process runner, each told RANK, WORLD_SIZE,
// LOCAL_RANK, MASTER_ADDR=127.0.0.1 and a free MASTER_PORT. A group lives or dies together:
// when one rank fails or dies, the others would wait on it until torch's timeout, so they
// are killed at once and the run ends naming the rank that went first. A port another
// process took between our choice and rank 0's bind is retried with a fresh one; a port the
// caller named is not (its holder is theirs to find), and is checked before anything starts.
import { freePort, portIsFree } from '../../../node/freePort';
import { OWNED_CHILDREN, startProcess, whenAborted, type ProcessEnd, type RunningProcess } from '../../../node/processRunner';

export const LOOPBACK = '127.0.0.1';
const DEFAULT_PORT_ATTEMPTS = 3;
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
  /** A port the caller chose: used as it is, never retried. */
  port?: number;
  /** Where free ports come from (default: the kernel's, for port 0). */
  pickPort?: () => Promise<number>;
  portAttempts?: number;
  /** Every rank has ended by then (killed if need be). */
  timeoutMs: number;
  signal?: AbortSignal;
  onRankStarted?(rank: number, pid: number | undefined): void;
  onStderrLine?(rank: number, line: string): void;
}

export type LaunchFailure = 'rank-failed' | 'port-in-use' | 'timeout' | 'spawn-error' | 'report-too-large';

export type LaunchOutcome =
  | { status: 'ok'; port: number; stdout: string }
  | { status: 'failed'; reason: LaunchFailure; port: number | null; message: string }
  | { status: 'cancelled' };

interface RankEnd {
  rank: number;
  end: ProcessEnd;
  /** Ended by our kill (a peer failed, the timeout, a cancel), not on its own. */
  killedByUs: boolean;
  stderrTail: string;
}

const ADDRESS_IN_USE = /address already in use|EADDRINUSE|errno: 98\b/i;

/** Runs the group to its end; never throws. */
export async function launchRanks(launch: RankLaunch): Promise<LaunchOutcome> {
  if (launch.signal?.aborted) return { status: 'cancelled' };
  if (launch.port !== undefined) {
    if (!(await portIsFree(launch.port))) return portTaken(launch.port, true);
    return attempt(launch, launch.port);
  }
  const pick = launch.pickPort ?? freePort;
  const attempts = launch.portAttempts ?? DEFAULT_PORT_ATTEMPTS;
  let last: LaunchOutcome | undefined;
  for (let i = 0; i < attempts; i++) {
    const port = await pick();
    last = await attempt(launch, port);
    if (last.status !== 'failed' || last.reason !== 'port-in-use') return last;
  }
  const port = last?.status === 'failed' ? last.port : null;
  return { status: 'failed', reason: 'port-in-use', port, message: `${attempts} free ports in a row were taken by another process before rank 0 could listen on them (last: ${port}); try again` };
}

function portTaken(port: number, named: boolean): LaunchOutcome {
  const advice = named ? 'choose another with --master-port, or leave it out to use a free one' : 'try again';
  return { status: 'failed', reason: 'port-in-use', port, message: `port ${port} is already in use by another process, so rank 0 cannot listen on it; ${advice}` };
}

function rankEnv(launch: RankLaunch, rank: number, port: number): NodeJS.ProcessEnv {
  const base = launch.env ?? process.env;
  const n = String(launch.worldSize);
  return {
    ...base,
    RANK: String(rank),
    LOCAL_RANK: String(rank),
    WORLD_SIZE: n,
    LOCAL_WORLD_SIZE: n,
    GROUP_RANK: '0',
    MASTER_ADDR: LOOPBACK,
    MASTER_PORT: String(port),
    // As torchrun does for more than one process: N ranks with a thread per core each would
    // fight over the cores and measure the fight.
    OMP_NUM_THREADS: base.OMP_NUM_THREADS ?? '1',
    // The ranks talk over loopback only; without this gloo and NCCL pick the interface the
    // host name resolves to, which may be a network one.
    ...(process.platform === 'linux' ? { GLOO_SOCKET_IFNAME: base.GLOO_SOCKET_IFNAME ?? 'lo', NCCL_SOCKET_IFNAME: base.NCCL_SOCKET_IFNAME ?? 'lo' } : {}),
    PYTHONDONTWRITEBYTECODE: '1',
    PYTHONIOENCODING: 'utf-8',
    PYTHONUNBUFFERED: '1',
  };
}

/** One try on one port: start every rank, wait for all, stop all on the first failure. */
function attempt(launch: RankLaunch, port: number): Promise<LaunchOutcome> {
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
      const child = startProcess(launch.python, [launch.script, ...launch.args], {
        env: rankEnv(launch, rank, port),
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
        resolve(outcomeOf(launch, port, ends, stopping, ranks[0]));
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

function outcomeOf(launch: RankLaunch, port: number, ends: RankEnd[], stopping: string | null, rank0: RunningProcess): LaunchOutcome {
  if (stopping === 'cancelled') return { status: 'cancelled' };
  const n = launch.worldSize;
  const seconds = Math.round(launch.timeoutMs / 1000);
  if (stopping === 'timeout') {
    return { status: 'failed', reason: 'timeout', port, message: `the ${n} ranks had not finished after ${seconds} s and were stopped (lower --max-size or --repeats, or raise --timeout)` };
  }
  if (rank0.output().truncated) {
    return { status: 'failed', reason: 'report-too-large', port, message: `rank 0 printed more than ${REPORT_LIMIT_BYTES} bytes and was stopped` };
  }
  const own = ends.filter((e) => !e.killedByUs && failed(e.end));
  // A rank that died of a signal is the cause; the others' errors are its echo ("connection closed by peer").
  const first = own.find((e) => e.end.signal !== null && e.end.errorCode === undefined) ?? own[0];
  if (first) {
    if (first.end.errorCode !== undefined) {
      return { status: 'failed', reason: 'spawn-error', port, message: `${launch.python} could not be started (${first.end.errorCode}: ${first.end.errorMessage})` };
    }
    if (own.some((e) => ADDRESS_IN_USE.test(e.stderrTail))) return portTaken(port, launch.port !== undefined);
    const others = n > 1 ? '; the other ranks were stopped' : '';
    const how = first.end.signal ? `was killed by ${first.end.signal}` : `failed (exit code ${first.end.exitCode})`;
    // A rank killed from outside had no last words: its last line ("ready") would mislead.
    const why = first.end.signal ? ownReason(first.stderrTail) : reasonLine(first.stderrTail);
    return { status: 'failed', reason: 'rank-failed', port, message: `rank ${first.rank} of ${n} ${how}${why ? `: ${why}` : ''}${others}` };
  }
  return { status: 'ok', port, stdout: rank0.output().stdout };
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
