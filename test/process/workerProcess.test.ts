// dist/worker.js as the extension runs it: forked with an IPC channel, driven by a plain
// vscode-jsonrpc client, with fake tools on PATH. Hangs, crashes, cancellation, the
// streaming monitor, and the process lifecycle.
import * as assert from 'assert';
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { CancellationTokenSource, createMessageConnection, ResponseError, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node';
import { DetectRequest, StartMonitorRequest, StopMonitorRequest, type ProbeOptions } from '../../src/protocol/worker';
import { REQUEST_CANCELLED } from '../../src/worker/service';
import { buildDist, fakeRuns, isAlive, scenarioEnv, tempDir, waitFor, WorkerUnderTest, WORKER_JS } from './workerTestKit';

const NO_TORCH: ProbeOptions = { pythonPath: null, pinnedDevice: null, timeoutMs: 600 };
const GIB = 1024 ** 3;
const MIB = 1024 ** 2;

function pids(file: string): number[] {
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number) : [];
}

describe('worker: the forked process', function () {
  this.timeout(30_000);
  let tmp: string;
  let runLog: string;
  let pidLog: string;
  const workers: WorkerUnderTest[] = [];

  function startWorker(scenario: string | undefined, extra: NodeJS.ProcessEnv = {}): WorkerUnderTest {
    const worker = new WorkerUnderTest(scenarioEnv(scenario, { DD_FAKE_LOG: runLog, DD_FAKE_PIDS: pidLog, ...extra }));
    workers.push(worker);
    return worker;
  }

  before(() => buildDist());

  beforeEach(() => {
    tmp = tempDir('dd-worker-');
    runLog = path.join(tmp, 'runs.log');
    pidLog = path.join(tmp, 'pids.log');
  });

  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.stop()));
    for (const pid of pids(pidLog)) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('answers detect with nvidia-smi asked once per question, and writes nothing to stdout', async () => {
    const worker = startWorker('nvidia-two-gpus');
    const report = await worker.connection.sendRequest(DetectRequest, NO_TORCH);
    assert.strictEqual(report.schemaVersion, 1);
    assert.strictEqual(report.torch, null);
    assert.deepStrictEqual(fakeRuns(runLog).map((line) => line.split(' ')[1].split('=')[0]), ['--query-gpu', '-q', '-L', 'topo']);
    assert.strictEqual(worker.stdout, '');
    assert.ok(worker.logs.some((l) => /^detect took \d+ ms/.test(l.message)), JSON.stringify(worker.logs));
  });

  it('kills a hanging nvidia-smi after the timeout, reports it, and starts no second one meanwhile', async () => {
    const worker = startWorker('nvidia-hang');
    const started = Date.now();
    // Two clients asking at once share the one nvidia-smi in flight.
    const [first, second] = await Promise.all([
      worker.connection.sendRequest(DetectRequest, NO_TORCH),
      worker.connection.sendRequest(DetectRequest, NO_TORCH),
    ]);
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= 600 && elapsed < 5_000, `detect took ${elapsed} ms`);
    assert.strictEqual(fakeRuns(runLog).length, 1, fakeRuns(runLog).join('\n'));
    const [hungPid] = pids(pidLog);
    await waitFor('the hung nvidia-smi to be killed', () => !isAlive(hungPid));
    assert.deepStrictEqual([first.accelerators, first.problems], [second.accelerators, second.problems]);
    await waitFor('a problem notification', () => worker.problems.find((p) => /did not answer in time and was killed/.test(p.message)));
    assert.strictEqual(worker.problems[0].source, 'nvidia-smi');

    // Right after the hang, a new detect does not spawn it again: it is backing off.
    const third = await worker.connection.sendRequest(DetectRequest, NO_TORCH);
    assert.strictEqual(fakeRuns(runLog).length, 1);
    assert.deepStrictEqual(third.problems, first.problems);
    await waitFor('a back-off notification', () => worker.problems.find((p) => /hung last time; not starting it again before/.test(p.message)));
  });

  it('streams memory samples from ONE long-lived nvidia-smi and stops it on stopMonitor', async () => {
    const worker = startWorker('nvidia-two-gpus');
    await worker.connection.sendRequest(StartMonitorRequest, { intervalMs: 100 });
    const gpuSamples = () => worker.samples.flatMap((n) => n.samples).filter((s) => s.id !== 'cpu');
    await waitFor('six GPU samples (three intervals)', () => gpuSamples().length >= 6);
    const streams = fakeRuns(runLog);
    assert.strictEqual(streams.length, 1, streams.join('\n'));
    assert.match(streams[0], /--query-gpu=index,memory\.used,memory\.total,utilization\.gpu --format=csv,noheader,nounits -lms 100$/);
    const busy = gpuSamples().find((s) => s.utilizationPercent === 87);
    assert.ok(busy, JSON.stringify(gpuSamples()));
    assert.strictEqual(busy.usedBytes, 20480 * MIB);
    assert.strictEqual(busy.totalBytes, 143771 * MIB);
    const host = worker.samples.flatMap((n) => n.samples).find((s) => s.id === 'cpu');
    assert.ok(host && host.totalBytes !== null && host.totalBytes > 0.1 * GIB && Number.isInteger(host.usedBytes));

    await worker.connection.sendRequest(StopMonitorRequest, undefined);
    const [streamPid] = pids(pidLog);
    await waitFor('the stream to be killed', () => !isAlive(streamPid));
    const count = worker.samples.length;
    await new Promise((r) => setTimeout(r, 350));
    assert.strictEqual(worker.samples.length, count, 'no samples after stopMonitor');
  });

  it('restarts the stream when nvidia-smi exits, with a back-off and a problem notice', async () => {
    const worker = startWorker('nvidia-two-gpus', { DD_FAKE_STREAM_ONCE: '1', DEVICE_DOCTOR_MONITOR_RESTART_MS: '100' });
    await worker.connection.sendRequest(StartMonitorRequest, { intervalMs: 100 });
    await waitFor('a restarted stream', () => fakeRuns(runLog).length >= 2, 10_000);
    await waitFor('a problem notice', () => worker.problems.find((p) => p.source === 'monitor' && /restarting it in/.test(p.message)));
    await worker.connection.sendRequest(StopMonitorRequest, undefined);
  });

  it('answers a cancelled detect with RequestCancelled and kills the probe nobody waits for', async () => {
    const worker = startWorker('nvidia-hang');
    const source = new CancellationTokenSource();
    const pending = worker.connection.sendRequest(DetectRequest, { ...NO_TORCH, timeoutMs: 20_000 }, source.token);
    await waitFor('nvidia-smi to start', () => pids(pidLog).length === 1);
    const started = Date.now();
    source.cancel();
    await assert.rejects(pending, (err: unknown) => err instanceof ResponseError && err.code === REQUEST_CANCELLED);
    assert.ok(Date.now() - started < 2_000);
    await waitFor('the cancelled nvidia-smi to be killed', () => !isAlive(pids(pidLog)[0]));
  });

  it('survives SIGKILL during a request: the client gets an error and a new worker serves requests', async () => {
    const doomed = startWorker('nvidia-hang');
    const pending = doomed.connection.sendRequest(DetectRequest, { ...NO_TORCH, timeoutMs: 20_000 });
    await waitFor('nvidia-smi to start', () => pids(pidLog).length === 1);
    doomed.child.kill('SIGKILL');
    await assert.rejects(pending, (err: unknown) => err instanceof Error && /connection got disposed|closed/i.test(err.message));
    assert.deepStrictEqual(await doomed.exited, { code: null, signal: 'SIGKILL' });

    const replacement = startWorker('nvidia-two-gpus');
    const report = await replacement.connection.sendRequest(DetectRequest, NO_TORCH);
    assert.strictEqual(report.schemaVersion, 1);
  });

  it('keeps serving after a tool fails (exit 9, exit 18, not installed)', async () => {
    for (const scenario of ['nvidia-driver-not-loaded', 'nvidia-version-mismatch', undefined]) {
      const worker = startWorker(scenario);
      const report = await worker.connection.sendRequest(DetectRequest, NO_TORCH);
      assert.strictEqual(report.schemaVersion, 1, String(scenario));
      assert.strictEqual(worker.child.exitCode, null);
    }
  });

  it('exits when its parent disconnects, and takes a running tool with it', async () => {
    const worker = startWorker('nvidia-hang');
    const pending = worker.connection.sendRequest(DetectRequest, { ...NO_TORCH, timeoutMs: 20_000 });
    pending.catch(() => undefined);
    await waitFor('nvidia-smi to start', () => pids(pidLog).length === 1);
    worker.child.disconnect();
    assert.deepStrictEqual(await worker.exited, { code: 0, signal: null });
    await waitFor('the hung nvidia-smi to be killed', () => !isAlive(pids(pidLog)[0]));
  });

  it('also speaks the protocol over stdio with --stdio, and exits when stdin closes', async () => {
    const child = spawn(process.execPath, [WORKER_JS, '--stdio'], { env: scenarioEnv('nvidia-two-gpus'), stdio: ['pipe', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const connection = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
    connection.listen();
    try {
      const report = await connection.sendRequest(DetectRequest, NO_TORCH);
      assert.strictEqual(report.schemaVersion, 1);
    } finally {
      connection.dispose();
      child.stdin.end();
    }
    assert.strictEqual(await exited, 0);
  });
});
