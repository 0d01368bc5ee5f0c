// The worker's quick engines answer (issue 22 item 9): the editor's benchmark pick asks for the
// engines without torch first, so it shows while `import torch` is still running. Against the
// real dist/worker.js, with a Python whose `import torch` never finishes.
import * as assert from 'assert';
import * as path from 'path';
import { EnginesRequest } from '../../src/protocol/worker';
import { buildDist, FAKE_BIN, scenarioEnv, WorkerUnderTest } from './workerTestKit';

const HANGING_PYTHON = path.join(FAKE_BIN, 'python-import-hangs', 'python3');

describe('worker: the engines without torch', function () {
  this.timeout(60_000);
  let worker: WorkerUnderTest;

  before(() => buildDist());
  beforeEach(() => {
    worker = new WorkerUnderTest(scenarioEnv(undefined));
  });
  afterEach(async () => worker.stop());

  it('answers the TensorFlow.js engines while the PyTorch probe of the full answer still hangs', async () => {
    const params = { pythonPath: HANGING_PYTHON, pinnedDevice: null };
    let fullAnswered = false;
    const answered = (): void => {
      fullAnswered = true;
    };
    worker.connection.sendRequest(EnginesRequest, params).then(answered, answered);
    const quick = await worker.connection.sendRequest(EnginesRequest, { ...params, withoutTorch: true });
    assert.strictEqual(fullAnswered, false, 'the full answer waits for the hanging import');
    const summary = quick.engines.map((e) => `${e.engine}:${e.devices.join(',')}:${e.problem?.status ?? 'ok'}`);
    assert.deepStrictEqual(summary, ['tfjs-node-gpu::not-installed', 'tfjs-node::not-installed', 'wasm:cpu:ok', 'js:cpu:ok']);
    assert.strictEqual(quick.selectedDevice, 'cpu');
  });
});
