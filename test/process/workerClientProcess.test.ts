// The worker client against a real forked process: the fake worker in test/fixtures/fakeWorker
// speaks the same JSON-RPC methods as dist/worker.js.
import * as assert from 'assert';
import * as path from 'path';
import { CancellationTokenSource } from 'vscode-jsonrpc/node';
import { DetectRequest } from '../../src/protocol/worker';
import type { MemorySamples, ProbeOptions } from '../../src/protocol/worker';
import { WorkerClient } from '../../src/vscode/worker/workerClient';
import type { WorkerLogger, WorkerState } from '../../src/vscode/worker/workerClient';
import { isShutdownStop, WorkerError } from '../../src/vscode/worker/workerErrors';

const FAKE_WORKER = path.resolve(__dirname, '..', 'fixtures', 'fakeWorker', 'worker.js');

class RecordingLog implements WorkerLogger {
  readonly lines: string[] = [];
  trace(m: string) { this.lines.push(`trace ${m}`); }
  debug(m: string) { this.lines.push(`debug ${m}`); }
  info(m: string) { this.lines.push(`info ${m}`); }
  warn(m: string) { this.lines.push(`warn ${m}`); }
  error(m: string) { this.lines.push(`error ${m}`); }
  async waitFor(pattern: RegExp, timeoutMs = 5000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const line = this.lines.find((l) => pattern.test(l));
      if (line) return line;
      if (Date.now() > deadline) throw new Error(`no log line matched ${pattern}:\n${this.lines.join('\n')}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }
}

function probe(pythonPath: string | null = '/usr/bin/python3', pinnedDevice: string | null = null): ProbeOptions {
  return { pythonPath, pinnedDevice, timeoutMs: 1000 };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitUntil(condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function rejectsWith(promise: Promise<unknown>, kind: WorkerError['kind'], message: RegExp): Promise<WorkerError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof WorkerError, `expected a WorkerError, got ${String(error)}`);
    assert.strictEqual(error.kind, kind, error.message);
    assert.match(error.message, message);
    assert.doesNotMatch(error.message, /\n\s+at /, 'no stack trace in the message');
    return error;
  }
  throw new Error(`expected a ${kind} rejection`);
}

describe('workerClient: a real forked worker', function () {
  this.timeout(20_000);
  let log: RecordingLog;
  let env: NodeJS.ProcessEnv;
  let client: WorkerClient;

  function newClient(extra: Partial<ConstructorParameters<typeof WorkerClient>[0]> = {}): WorkerClient {
    client = new WorkerClient({ modulePath: FAKE_WORKER, log, env, requestTimeoutMs: 5000, shutdownGraceMs: 1000, ...extra });
    return client;
  }

  beforeEach(() => {
    log = new RecordingLog();
    env = { ...process.env };
    delete env.FAKE_WORKER_EXIT_ON_START;
    delete env.FAKE_WORKER_IGNORE_DISCONNECT;
  });

  afterEach(async () => client?.dispose());

  it('forks lazily, on the first request, and answers it with the typed report', async () => {
    newClient();
    assert.strictEqual(client.state, 'stopped');
    assert.strictEqual(client.pid, undefined);
    const report = await client.request(DetectRequest, probe('/usr/bin/python3', 'cuda:0'));
    assert.strictEqual(client.state, 'running');
    assert.strictEqual(report.accelerators[0]?.name, 'NVIDIA H200');
    assert.strictEqual(report.selected.reason, `fake worker pid ${client.pid}`);
    await log.waitFor(/^info \[worker\] detect \{"pythonPath":"\/usr\/bin\/python3","pinnedDevice":"cuda:0"/);
  });

  it('SIGKILL during a request rejects it with a clear error, and a new worker serves the next one', async () => {
    newClient();
    await client.request(DetectRequest, probe());
    const firstPid = client.pid!;
    const hanging = client.request(DetectRequest, probe('hang'));
    const second = client.request(DetectRequest, probe('hang'));
    await log.waitFor(/detect \{"pythonPath":"hang"/);
    process.kill(firstPid, 'SIGKILL');
    await rejectsWith(hanging, 'crashed', /stopped unexpectedly \(killed by SIGKILL\) while running "detect"/);
    await rejectsWith(second, 'crashed', /killed by SIGKILL/);
    const report = await client.request(DetectRequest, probe());
    assert.notStrictEqual(client.pid, firstPid);
    assert.strictEqual(report.selected.reason, `fake worker pid ${client.pid}`);
    await log.waitFor(/^warn The Device Doctor worker stopped unexpectedly \(killed by SIGKILL\); restarting it\./);
  });

  it('a worker exiting in the middle of a request gives its exit code', async () => {
    newClient();
    await rejectsWith(client.request(DetectRequest, probe('crash')), 'crashed', /\(exit code 3\)/);
    await client.request(DetectRequest, probe());
  });

  it('times a request out, cancels it in the worker, and keeps the worker', async () => {
    newClient();
    await client.request(DetectRequest, probe());
    const pid = client.pid;
    await rejectsWith(client.request(DetectRequest, probe('hang'), { timeoutMs: 200 }), 'timeout', /did not answer "detect" within 0\.2 s/);
    await log.waitFor(/\[worker\] detect cancelled/);
    await client.request(DetectRequest, probe());
    assert.strictEqual(client.pid, pid);
  });

  it('passes the caller\'s cancellation to the worker', async () => {
    newClient();
    const source = new CancellationTokenSource();
    const request = client.request(DetectRequest, probe('hang'), { token: source.token });
    await log.waitFor(/detect \{"pythonPath":"hang"/);
    source.cancel();
    await rejectsWith(request, 'cancelled', /"detect" was cancelled/);
    await log.waitFor(/\[worker\] detect cancelled/);
  });

  it('with answerAfterCancelMs, waits for the worker\'s answer to a cancelled request; an error answer is still a cancel', async () => {
    newClient();
    const source = new CancellationTokenSource();
    const answered = client.request(DetectRequest, probe('answer-on-cancel'), { token: source.token, answerAfterCancelMs: 5_000 });
    await log.waitFor(/detect \{"pythonPath":"answer-on-cancel"/);
    source.cancel();
    assert.strictEqual((await answered).selected.reason, 'answered after the cancel');
    const other = new CancellationTokenSource();
    const refused = client.request(DetectRequest, probe('hang'), { token: other.token, answerAfterCancelMs: 5_000 });
    await log.waitFor(/detect \{"pythonPath":"hang"/);
    other.cancel();
    await rejectsWith(refused, 'cancelled', /"detect" was cancelled/);
  });

  it('does not start a request whose token is already cancelled', async () => {
    newClient();
    const source = new CancellationTokenSource();
    source.cancel();
    await rejectsWith(client.request(DetectRequest, probe(), { token: source.token }), 'cancelled', /cancelled/);
    assert.strictEqual(client.pid, undefined, 'no worker was forked for it');
  });

  it('turns the worker\'s own error answer into a message without a stack', async () => {
    newClient();
    await rejectsWith(client.request(DetectRequest, probe('fail')), 'failed', /could not run "detect": .*nvidia-smi exploded/);
  });

  it('stops restarting after 5 crashes in 3 minutes, then a user restart starts over', async () => {
    env.FAKE_WORKER_EXIT_ON_START = '1';
    newClient();
    const states: WorkerState[] = [];
    client.onDidChangeState((s) => states.push(s));
    await rejectsWith(client.request(DetectRequest, probe()), 'crashed', /exit code 1/);
    await waitUntil(() => client.state === 'gaveUp', 'the client to give up');
    assert.strictEqual(log.lines.filter((l) => /Device Doctor worker started/.test(l)).length, 5);
    assert.match(client.gaveUpMessage ?? '', /crashed 5 times in the last 3 minutes.*Last exit: exit code 1/);
    await rejectsWith(client.request(DetectRequest, probe()), 'stopped', /crashed 5 times/);
    assert.strictEqual(client.pid, undefined, 'a request does not revive a given-up worker');

    delete env.FAKE_WORKER_EXIT_ON_START;
    await client.restart();
    assert.strictEqual(client.state, 'running');
    await client.request(DetectRequest, probe());
    assert.deepStrictEqual(states.slice(-2), ['starting', 'running']);
  });

  it('restarts one at a time: three quick restarts fork at most two workers', async () => {
    newClient();
    await client.start();
    const before = log.lines.filter((l) => /worker started/.test(l)).length;
    await Promise.all([client.restart(), client.restart(), client.restart()]);
    const started = log.lines.filter((l) => /worker started/.test(l)).length - before;
    assert.ok(started >= 1 && started <= 2, `${started} workers started`);
    await client.request(DetectRequest, probe());
  });

  it('streams memory samples, resumes monitoring in a restarted worker, and stops on request', async () => {
    newClient();
    const received: MemorySamples[] = [];
    client.onMemorySamples((s) => received.push(s));
    await client.setMonitor({ intervalMs: 30 });
    await waitUntil(() => received.length >= 2, 'samples');
    assert.strictEqual(received[0]!.samples[0]!.id, 'cuda:0');

    let restarted = false;
    client.onDidRestartAfterCrash(() => { restarted = true; });
    process.kill(client.pid!, 'SIGKILL');
    await waitUntil(() => restarted, 'the restart after the crash');
    const afterRestart = received.length;
    await waitUntil(() => received.length >= afterRestart + 2, 'samples from the new worker');
    assert.strictEqual(log.lines.filter((l) => /monitor every 30 ms/.test(l)).length, 2);

    await client.setMonitor(null);
    await log.waitFor(/monitor stopped/);
    const stoppedAt = received.length;
    await new Promise((r) => setTimeout(r, 150));
    assert.ok(received.length <= stoppedAt + 1, 'no samples after stopMonitor');
  });

  it('forwards worker problems and logs at their level', async () => {
    newClient();
    const problems: string[] = [];
    client.onProblem((p) => problems.push(`${p.source}: ${p.message}`));
    await client.start();
    await waitUntil(() => problems.length > 0, 'a problem notification');
    assert.deepStrictEqual(problems, ['fake: fake worker started']);
    await log.waitFor(/^info \[worker\] fake worker \d+ ready$/);
  });

  it('shuts down cleanly: an idle worker exits when its channel closes', async () => {
    newClient();
    await client.start();
    const pid = client.pid!;
    const started = Date.now();
    await client.dispose();
    assert.ok(!isAlive(pid), 'the worker is gone');
    assert.ok(Date.now() - started < 900, 'without waiting for the grace period');
    assert.strictEqual(client.state, 'stopped');
  });

  it('kills a worker that ignores the shutdown after the grace period, failing its requests as stopped', async () => {
    env.FAKE_WORKER_IGNORE_DISCONNECT = '1';
    newClient({ shutdownGraceMs: 300 });
    await client.start();
    const pid = client.pid!;
    const hanging = client.request(DetectRequest, probe('hang'));
    await log.waitFor(/detect \{"pythonPath":"hang"/);
    const exits: string[] = [];
    await client.dispose();
    exits.push(...log.lines.filter((l) => /worker stopped \(/.test(l)));
    assert.ok(!isAlive(pid), 'killed after the grace period');
    assert.deepStrictEqual(exits, ['info Device Doctor worker stopped (killed by SIGKILL).']);
    const stopped = await rejectsWith(hanging, 'stopped', /was stopped before "detect" finished/);
    assert.ok(isShutdownStop(stopped), 'stopped by the shutdown, not a failure');
    assert.ok(isShutdownStop(await rejectsWith(client.request(DetectRequest, probe()), 'stopped', /stopped/)));
  });

  it('gives up at once, with a message, when the worker file is missing', async () => {
    newClient({ modulePath: path.join(path.dirname(FAKE_WORKER), 'missing.js') });
    await rejectsWith(client.request(DetectRequest, probe()), 'stopped', /worker is missing .*missing\.js/);
    assert.strictEqual(client.state, 'gaveUp');
  });
});
