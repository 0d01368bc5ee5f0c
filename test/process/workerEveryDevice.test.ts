// The editor's "every device" benchmark through the worker's JSON-RPC (dist/worker.js): torch on
// every device one at a time, then the GPUs all at once, with the four fake GPUs of
// benchEveryDevice.test.ts (the fake-cuda-devices shim, cuda:3 at half speed, and a fake
// nvidia-smi holding GPU 3 at 1.41 GHz and 84 °C). Proves the response carries both passes for
// the panel, each run with its own GPU's readings, and exactly cuda:3 flagged in both.
import * as assert from 'assert';
import { BenchRequest } from '../../src/protocol/worker';
import { removeShims, shimDir } from './benchTorchKit';
import { buildDist, DEBIAN_PYTHON, requireDebianTorch, scenarioEnv, WorkerUnderTest } from './workerTestKit';

describe('worker: every device, alone and all at once', function () {
  this.timeout(180_000);
  let worker: WorkerUnderTest | undefined;
  before(() => {
    requireDebianTorch();
    buildDist();
  });
  afterEach(async () => worker?.stop());
  after(() => removeShims());

  it('answers with both passes, the readings of each run, and the slow GPU named in both', async () => {
    worker = new WorkerUnderTest(scenarioEnv('nvidia-four-a6000-one-hot', { PYTHONPATH: shimDir('fake-cuda-devices'), PYTHONDONTWRITEBYTECODE: '1', DD_FAKE_CUDA_DELAYS_MS: '20,20,20,40' }));
    const run = await worker.connection.sendRequest(BenchRequest, { pythonPath: DEBIAN_PYTHON, pinnedDevice: null, compare: 'all', engine: 'torch', everyDevice: true, size: 64, repeats: 15 });
    assert.deepStrictEqual(run.results.map((r) => r.device).sort(), ['cpu', 'cuda:0', 'cuda:1', 'cuda:2', 'cuda:3']);
    const every = run.everyDevice;
    assert.ok(every, `no everyDevice in the answer: ${JSON.stringify(run.problems)}`);
    assert.strictEqual(every.size, 64);
    assert.deepStrictEqual(every.devices.map((d) => [d.device, d.aloneVerdict?.slow, d.togetherVerdict?.slow]), [['cuda:0', false, false], ['cuda:1', false, false], ['cuda:2', false, false], ['cuda:3', true, true]]);
    // The alone pass is the run's own results, not a second run of them.
    for (const d of every.devices) assert.strictEqual('gflops' in d.alone && d.alone.gflops, run.results.find((r) => r.device === d.device)?.gflops);
    const during = every.devices.map((d) => ['alone', 'together'].map((pass) => {
      const r = pass === 'alone' ? d.alone : d.together;
      return 'gflops' in r ? r.during?.smClockMHz : null;
    }));
    assert.deepStrictEqual(during, [[1905, 1905], [1890, 1890], [1905, 1905], [1410, 1410]]);
    assert.strictEqual(every.findings.length, 2, every.findings.join('\n'));
    assert.ok(every.findings.every((f) => f.startsWith('cuda:3 is ') && f.includes('its SM clock ran at 1.41 of 2.1 GHz at 84 °C')), every.findings.join('\n'));
  });
});
