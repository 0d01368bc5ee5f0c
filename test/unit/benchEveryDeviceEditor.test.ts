// The editor's "every device" choice: offered with two accelerators PyTorch sees, it becomes
// compare 'all' for the torch engine, and the Matmul Benchmark panel sets each accelerator
// against the median of its peers (the CPU left out), naming a slow one.
import * as assert from 'assert';
import type { BenchResult, Dtype } from '../../src/core/bench/model';
import { makeBenchResult } from '../../src/core/bench/result';
import type { DeviceReport } from '../../src/core/devices/report';
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

  it('asks the worker for torch on every device it has', () => {
    const pick = everyDevicePick(withGpus(2))!;
    const choice = { compare: pick.compare, engine: pick.engine, size: 4096 };
    assert.deepStrictEqual(toBenchParams(choice, { pythonPath: '/py', pinnedDevice: null, runId: 'r' }), { pythonPath: '/py', pinnedDevice: null, compare: 'all', engine: 'torch', runId: 'r', size: 4096 });
    assert.strictEqual(describeChoice(choice), 'torch on every device, n = 4096');
    // "Compare everything available" still names no engine.
    assert.ok(!('engine' in toBenchParams({ compare: 'all', size: 256 }, { pythonPath: null, pinnedDevice: null, runId: 'r' })));
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
});
