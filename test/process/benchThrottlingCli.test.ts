// `device-doctor bench --json` on a CUDA machine whose GPU is held in thermal slowdown: a shim
// over Debian's torch plays the CUDA device, a fake nvidia-smi (test/fixtures/bin/
// nvidia-h200-throttling) streams the clock query's recorded hot samples. Proves the glue end to
// end: the run watcher asks nvidia-smi for the clocks during the run, names its rows by the
// benchmarked device, the diagnosis reaches `problems`, and its nvidia-smi does not outlive the CLI.
import * as assert from 'assert';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { isRunning, removeShims, shimDir } from './benchTorchKit';
import { buildDist, CLI_JS, DEBIAN_PYTHON, fakeRuns, requireDebianTorch, scenarioEnv, tempDir } from './workerTestKit';

describe('cli: bench on a GPU in thermal slowdown', function () {
  this.timeout(180_000);
  before(() => {
    requireDebianTorch();
    buildDist();
  });
  after(() => removeShims());

  it('says in problems how far the clocks fell and why, and stops its nvidia-smi with the run', () => {
    const dir = tempDir('dd-throttle-');
    const log = path.join(dir, 'runs.log');
    const pids = path.join(dir, 'pids');
    const env = scenarioEnv('nvidia-h200-throttling', { PYTHONPATH: shimDir('fake-cuda'), PYTHONDONTWRITEBYTECODE: '1', DD_FAKE_LOG: log, DD_FAKE_PIDS: pids });
    const run = spawnSync(process.execPath, [CLI_JS, 'bench', '--engine', 'torch', '--device', 'cuda:0', '--size', '256', '--repeats', '20', '--python', DEBIAN_PYTHON, '--json'], { env, encoding: 'utf8', timeout: 150_000 });
    assert.strictEqual(run.status, 0, run.stderr);
    const json = JSON.parse(run.stdout) as { problems: Array<{ code?: string; device: string | null; message: string }> };
    const throttled = json.problems.filter((p) => p.code === 'gpu-throttled');
    assert.strictEqual(throttled.length, 1, run.stdout);
    assert.strictEqual(throttled[0].device, 'cuda:0');
    assert.match(throttled[0].message, /^clocks fell to 1\.(19|2) GHz of 1\.98 GHz max during the run \(thermal slowdown at 8[78] °C\): the result understates the GPU\.$/);
    assert.ok(fakeRuns(log).some((line) => /--query-gpu=index,uuid,clocks\.sm,.*clocks_throttle_reasons\.active .*-lms 200$/.test(line)), fakeRuns(log).join('\n'));
    const started = fs.readFileSync(pids, 'utf8').split('\n').filter(Boolean).map(Number);
    assert.deepStrictEqual(started.filter(isRunning), [], 'every fake nvidia-smi ended with the CLI');
  });
});
