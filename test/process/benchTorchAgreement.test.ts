// `bench --engine torch --device cpu --size 1024 --json` must agree with a direct torch
// timing of the same product within 10%, so that the torch engine reports what the user's
// PyTorch really gets. That agreement itself is measured where speed is
// measured, in `npm run bench` (scripts/bench-torch-agreement.ts prints both sides and
// fails the bench run past 10%): on a shared 2-core machine a timed unit test was
// flaky (rounds of the same product varied 42-78 ms within one run). This test pins
// down what that comparison relies on, without reading a clock: that command
// measures exactly the product the direct timing measures, and reports it consistently.
import * as assert from 'assert';
import { spawnSync } from 'child_process';
import { buildDist, CLI_JS, DEBIAN_PYTHON, requireDebianTorch, scenarioEnv } from './workerTestKit';

describe('torch engine: bench --json measures the product a direct timing measures', function () {
  this.timeout(300_000);

  it('bench --engine torch --device cpu --size 1024 --repeats 10 --json: one float32 1024×1024 product, 10 timed repeats, consistent GFLOP/s, checked', () => {
    requireDebianTorch();
    buildDist();
    // --repeats: a fixed count (the default adapts the samples to a time budget instead).
    const args = [CLI_JS, 'bench', '--engine', 'torch', '--device', 'cpu', '--size', '1024', '--repeats', '10', '--json', '--python', DEBIAN_PYTHON];
    const run = spawnSync(process.execPath, args, { env: scenarioEnv(undefined), encoding: 'utf8', timeout: 240_000 });
    assert.strictEqual(run.status, 0, run.stderr);
    const json = JSON.parse(run.stdout);
    assert.strictEqual(json.schemaVersion, 1);
    const torchCpu = json.results.filter((r: { engine: string; device: string }) => r.engine === 'torch' && r.device === 'cpu');
    assert.strictEqual(torchCpu.length, 1, run.stdout);
    const [result] = torchCpu;
    assert.deepStrictEqual([result.dtype, result.size, result.repeats, result.timesSec.length], ['float32', 1024, 10, 10]);
    const sorted = [...result.timesSec].sort((a: number, b: number) => a - b);
    assert.ok(Math.abs(result.medianSec - (sorted[4] + sorted[5]) / 2) < 1e-12, 'medianSec is the median of timesSec');
    assert.ok(Math.abs(result.gflops - (2 * 1024 ** 3) / result.medianSec / 1e9) < 1e-6 * result.gflops, 'GFLOP/s = 2·n³/median');
    assert.ok(result.maxRelError >= 0 && result.maxRelError < 1e-3, `the product was checked against float64: ${result.maxRelError}`);
  });
});
