// The extension's worker client against the real dist/worker.js (not the fake): the contract
// holds end to end — a report the status bar can render, memory samples, a crash mid-detect
// with a fresh worker after it, and a clean exit on shutdown. Fake GPU tools on PATH.
import * as assert from 'assert';
import { DetectRequest } from '../../src/protocol/worker';
import type { MemorySamples } from '../../src/protocol/worker';
import { EMPTY_SNAPSHOT } from '../../src/vscode/devices/deviceSnapshot';
import { renderStatusBar } from '../../src/vscode/devices/statusBarView';
import { WorkerClient } from '../../src/vscode/worker/workerClient';
import type { WorkerLogger } from '../../src/vscode/worker/workerClient';
import { WorkerError } from '../../src/vscode/worker/workerErrors';
import { buildDist, isAlive, scenarioEnv, waitFor, WORKER_JS } from './workerTestKit';

const quietLog: WorkerLogger & { lines: string[] } = {
  lines: [],
  trace(m) { this.lines.push(m); },
  debug(m) { this.lines.push(m); },
  info(m) { this.lines.push(m); },
  warn(m) { this.lines.push(m); },
  error(m) { this.lines.push(m); },
};

describe('workerClient: the real dist/worker.js', function () {
  this.timeout(60_000);
  let client: WorkerClient | undefined;

  before(() => buildDist());
  afterEach(async () => {
    await client?.dispose();
    client = undefined;
  });

  it('detects two fake NVIDIA GPUs without an interpreter (Restricted Mode) and the status bar renders the report', async () => {
    client = new WorkerClient({ modulePath: WORKER_JS, log: quietLog, env: scenarioEnv('nvidia-two-gpus') });
    const report = await client.request(DetectRequest, { pythonPath: null, pinnedDevice: null, timeoutMs: 5000 });
    assert.deepStrictEqual(report.accelerators.map((a) => a.name), ['NVIDIA H200', 'NVIDIA GeForce RTX 4070']);
    assert.strictEqual(report.torch, null, 'no interpreter: PyTorch not probed');
    assert.strictEqual(report.selected.device, 'cpu');
    const view = renderStatusBar({ ...EMPTY_SNAPSHOT, report }, { memoryWarningPercent: 90 });
    assert.match(view.text, /^\$\(chip\) CPU · [\d.?]+\/[\d.?]+ GiB$/, view.text);
    assert.match(view.tooltip, /NVIDIA H200/);
  });

  it('streams memory samples from the one long-lived nvidia-smi', async () => {
    client = new WorkerClient({ modulePath: WORKER_JS, log: quietLog, env: scenarioEnv('nvidia-two-gpus') });
    const received: MemorySamples[] = [];
    client.onMemorySamples((s) => received.push(s));
    await client.request(DetectRequest, { pythonPath: null, pinnedDevice: null, timeoutMs: 5000 });
    await client.setMonitor({ intervalMs: 250 });
    const withGpu = await waitFor('a GPU sample', () => received.find((s) => s.samples.some((x) => x.id !== 'cpu')), 10_000);
    assert.ok(withGpu.samples.every((x) => typeof x.time === 'number'));
    await client.setMonitor(null);
  });

  it('a SIGKILL during a hanging detect rejects it, and a fresh worker answers the next one', async () => {
    client = new WorkerClient({ modulePath: WORKER_JS, log: quietLog, env: scenarioEnv('nvidia-hang') });
    await client.start();
    const pid = client.pid!;
    const pending = client.request(DetectRequest, { pythonPath: null, pinnedDevice: null, timeoutMs: 20_000 });
    await new Promise((r) => setTimeout(r, 300));
    process.kill(pid, 'SIGKILL');
    await assert.rejects(pending, (e: unknown) => e instanceof WorkerError && e.kind === 'crashed' && /killed by SIGKILL/.test(e.message));
    const report = await client.request(DetectRequest, { pythonPath: null, pinnedDevice: null, timeoutMs: 500 });
    assert.notStrictEqual(client.pid, pid);
    assert.strictEqual(report.accelerators.length, 0, 'the hung nvidia-smi found nothing');
  });

  it('the worker exits by itself when the client shuts down', async () => {
    client = new WorkerClient({ modulePath: WORKER_JS, log: quietLog, env: scenarioEnv(undefined), shutdownGraceMs: 5000 });
    await client.request(DetectRequest, { pythonPath: null, pinnedDevice: null, timeoutMs: 2000 });
    const pid = client.pid!;
    const started = Date.now();
    await client.dispose();
    assert.ok(!isAlive(pid));
    assert.ok(Date.now() - started < 2000, 'it left on the closed channel, without SIGTERM or SIGKILL');
  });

  it('a worker shut down while it is still loading is gone within the grace period', async () => {
    client = new WorkerClient({ modulePath: WORKER_JS, log: quietLog, env: scenarioEnv(undefined), shutdownGraceMs: 1000 });
    await client.start();
    const pid = client.pid!;
    const started = Date.now();
    await client.dispose();
    assert.ok(!isAlive(pid));
    assert.ok(Date.now() - started < 2000, `${Date.now() - started} ms`);
  });
});
