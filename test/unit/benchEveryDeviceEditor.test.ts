// The editor's "every device" choice: offered with two accelerators PyTorch sees, it becomes
// compare 'all' for the torch engine, and the Matmul Benchmark panel sets each accelerator
// against the median of its peers (the CPU left out), naming a slow one; with both passes in
// the run (BenchRunResponse.everyDevice), one table per pass with each GPU's clock, temperature
// and power during its own run.
import * as assert from 'assert';
import type { BenchResult, Dtype } from '../../src/core/bench/model';
import { makeBenchResult } from '../../src/core/bench/result';
import type { DeviceReport } from '../../src/core/devices/report';
import { everyDeviceReport } from '../../src/core/bench/devices/everyDevice';
import { everyDevicePick } from '../../src/vscode/benchmark/everyDevicePick';
import { peerSectionHtml } from '../../src/vscode/benchmark/panel/peerSection';
import { describeChoice, toBenchParams } from '../../src/vscode/benchmark/runBenchmarkPicks';

const withGpus = (count: number) => ({
  torch: { interpreter: '/py', version: '2.4.1', cuda: { built: true, available: count > 0, version: '12.4', deviceCount: count }, mps: { built: false, available: false } },
}) as unknown as DeviceReport;

/** A result whose speed is `gflops` at n = 1024. */
function at(device: string, gflops: number, dtype: Dtype = 'float32'): BenchResult {
  const seconds = (2 * 1024 ** 3) / (gflops * 1e9);
  return makeBenchResult({ plan: { engine: 'torch', device, dtype, size: 1024 }, timesSec: [seconds, seconds, seconds], maxRelError: 1e-7, checkedEntries: 64 });
}

describe('editor: every device', () => {
  it('is offered with two GPUs or more, not with one or none', () => {
    assert.strictEqual(everyDevicePick(withGpus(0)), null);
    assert.strictEqual(everyDevicePick(withGpus(1)), null);
    const pick = everyDevicePick(withGpus(4));
    assert.ok(pick);
    assert.match(pick.detail, /cuda:0, cuda:1, cuda:2, cuda:3/);
  });

  it('asks the worker for torch on every device it has, and for the all-at-once pass', () => {
    const pick = everyDevicePick(withGpus(2))!;
    const choice = { compare: pick.compare, engine: pick.engine, everyDevice: pick.everyDevice, size: 4096 };
    assert.deepStrictEqual(toBenchParams(choice, { pythonPath: '/py', pinnedDevice: null, runId: 'r' }), { pythonPath: '/py', pinnedDevice: null, compare: 'all', engine: 'torch', everyDevice: true, runId: 'r', size: 4096 });
    assert.strictEqual(describeChoice(choice), 'torch on every device, n = 4096');
    // "Compare everything available" still names no engine.
    const plain = toBenchParams({ compare: 'all', size: 256 }, { pythonPath: null, pinnedDevice: null, runId: 'r' });
    assert.ok(!('engine' in plain) && !('everyDevice' in plain), JSON.stringify(plain));
  });

  it('names the GPU more than 10 % below the median of its peers, leaving the CPU out', () => {
    const html = peerSectionHtml({ results: [at('cpu', 50), at('cuda:0', 40_000), at('cuda:1', 41_000), at('cuda:2', 30_000), at('cuda:3', 40_500)] });
    assert.strictEqual((html.match(/<tr class="slow">/g) ?? []).length, 1);
    assert.match(html, /<tr class="slow"><td>cuda:2<\/td>/);
    assert.match(html, /cuda:2 is 26 % below the median of its 3 peers \(30 vs 40\.5 TFLOP\/s\)/);
    assert.ok(!html.includes('<td>cpu</td>'));
  });

  it('says so when no GPU is slow, and shows nothing with fewer than two GPUs at one size and dtype', () => {
    assert.match(peerSectionHtml({ results: [at('cuda:0', 100), at('cuda:1', 95)] }), /No device is more than 10 % below its peers/);
    assert.strictEqual(peerSectionHtml({ results: [at('cpu', 50), at('cuda:0', 100)] }), '');
    assert.strictEqual(peerSectionHtml({ results: [at('cuda:0', 100), at('cuda:1', 50, 'bfloat16')] }), '');
  });

  it('shows both passes from the worker, with the clock, temperature and power of each run, the slow GPU named in the pass it was slow', () => {
    const cool = { smClockMHz: 1905, maxSmClockMHz: 2100, temperatureC: 62, powerW: 291.4, samples: 4 };
    const hot = { smClockMHz: 1410, maxSmClockMHz: 2100, temperatureC: 84, powerW: 241.36, samples: 4 };
    const devices = ['cuda:0', 'cuda:1', 'cuda:2'];
    const everyDevice = everyDeviceReport(devices, {
      alone: [{ gflops: 50_000, during: cool }, { gflops: 50_500, during: cool }, { gflops: 49_800, during: cool }],
      together: [{ gflops: 49_000, during: cool }, { gflops: 48_800, during: cool }, { gflops: 39_000, during: hot }],
    }, { size: 8192, dtype: 'float32', report: null });
    const html = peerSectionHtml({ results: [at('cuda:0', 1), at('cuda:1', 1), at('cuda:2', 1)], everyDevice });
    const [alone, together] = html.split('data-pass="together"');
    assert.match(alone, /data-pass="alone"><caption>One at a time/);
    assert.ok(!alone.includes('class="slow"'), 'nobody is slow alone');
    assert.match(together, /^><caption>All at once/);
    assert.match(together, /<tr class="slow"><td>cuda:2<\/td><td class="num">39000\.0<\/td><td class="num">48900\.0<\/td><td class="num">−20 % slow<\/td><td class="num">1\.41\/2\.1 GHz<\/td><td class="num">84°C<\/td><td class="num">241 W<\/td><\/tr>/);
    assert.strictEqual((html.match(/<tr class="slow">/g) ?? []).length, 1);
    assert.match(html, /<li>cuda:2 is 20 % below the median of its 2 peers \(39 vs 48\.9 TFLOP\/s\); its SM clock ran at 1\.41 of 2\.1 GHz at 84 °C and 241 W during the run \(all at once\)<\/li>/);
    // The results' own (equal, made-up) speeds are not what is judged when both passes are there.
    assert.ok(!html.includes('No device is more than'), html);
  });

  it('names a failed run of either pass', () => {
    const everyDevice = everyDeviceReport(['cuda:0', 'cuda:1'], { alone: [{ gflops: 100 }, { gflops: 100 }], together: [{ gflops: 100 }, { error: 'CUDA error: <out of memory>' }] }, { size: 1024, dtype: 'float32', report: null });
    const html = peerSectionHtml({ results: [], everyDevice });
    assert.match(html, /<li>cuda:1 \(all at once\): CUDA error: &lt;out of memory&gt;<\/li>/);
    assert.match(html, /<td>cuda:1<\/td><td class="num">failed<\/td><td class="num">-<\/td>/);
  });
});
