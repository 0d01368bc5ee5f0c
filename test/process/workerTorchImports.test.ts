// The worker imports PyTorch no more often than it must (issue 14): a detect reuses the last
// probe of an unchanged interpreter unless the user asks to detect again, and a benchmark that
// has to detect first runs its probe and its torch batch in one Python (a TorchHost). Counted
// through an interpreter that logs each start before it becomes Debian's Python.
import * as assert from 'assert';
import * as path from 'path';
import * as fs from 'fs';
import { BenchRequest, DetectRequest } from '../../src/protocol/worker';
import { buildDist, countingPython, requireDebianTorch, scenarioEnv, tempDir, WorkerUnderTest } from './workerTestKit';

describe('worker: PyTorch imports', function () {
  this.timeout(120_000);
  let dir: string;
  let worker: WorkerUnderTest;

  before(() => {
    requireDebianTorch();
    buildDist();
    dir = tempDir('device-doctor-worker-imports-');
  });
  beforeEach(() => (worker = new WorkerUnderTest(scenarioEnv(undefined, { PYTHONDONTWRITEBYTECODE: '1' }))));
  afterEach(async () => worker.stop());
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('a second detect of an unchanged interpreter reuses its probe; an explicit refresh probes again', async () => {
    const { python, starts } = countingPython(fs.mkdtempSync(path.join(dir, 'detect-')));
    const first = await worker.connection.sendRequest(DetectRequest, { pythonPath: python, pinnedDevice: null });
    // A changed pin re-detects (the worker is asked again) but PyTorch has nothing new to say.
    const second = await worker.connection.sendRequest(DetectRequest, { pythonPath: python, pinnedDevice: 'cpu' });
    assert.deepStrictEqual(second.torch, first.torch);
    assert.deepStrictEqual(starts().map((s) => path.basename(s)), ['probe.py']);
    const refreshed = await worker.connection.sendRequest(DetectRequest, { pythonPath: python, pinnedDevice: null, refresh: true });
    assert.match(refreshed.torch && 'version' in refreshed.torch ? refreshed.torch.version : '', /^\d+\.\d+/);
    assert.deepStrictEqual(starts().map((s) => path.basename(s)), ['probe.py', 'probe.py']);
  });

  it('a benchmark that must detect first starts no probe.py: its bench.py answers the probe and runs torch', async () => {
    const { python, starts } = countingPython(fs.mkdtempSync(path.join(dir, 'bench-')));
    const run = await worker.connection.sendRequest(BenchRequest, { pythonPath: python, pinnedDevice: null, compare: 'single', engine: 'torch', device: 'cpu', size: 128, repeats: 3 });
    assert.deepStrictEqual(run.results.map((r) => `${r.engine} ${r.device} ${r.size}`), ['torch cpu 128']);
    assert.deepStrictEqual(starts().map((s) => path.basename(s)), ['bench.py'], `interpreter starts: ${starts().join(', ')}`);
  });

  it('a wasm benchmark after a detect of the same interpreter starts no Python: the report is reused, no host waits for torch', async () => {
    const { python, starts } = countingPython(fs.mkdtempSync(path.join(dir, 'after-detect-')));
    await worker.connection.sendRequest(DetectRequest, { pythonPath: python, pinnedDevice: null });
    const run = await worker.connection.sendRequest(BenchRequest, { pythonPath: python, pinnedDevice: null, compare: 'single', engine: 'wasm', device: 'cpu', size: 64, repeats: 3 });
    assert.strictEqual(run.results[0]?.engine, 'wasm');
    assert.deepStrictEqual(starts().map((s) => path.basename(s)), ['probe.py']);
  });
});
