// `bench --devices all` with fake runs (no machine here has two GPUs): which devices, one at a
// time then all at once, the verdicts of both passes against the median of the peers with each
// run's own clock, temperature and power, a failed run kept as a failure, the options, the text.
import * as assert from 'assert';
import { parseArgs } from '../../src/cli/args';
import { formatEveryDeviceText } from '../../src/cli/formats/everyDeviceText';
import { everyDeviceProblem, everyDeviceReport, everyTorchDevice, measureEveryDevice, type DeviceRun } from '../../src/core/bench/devices/everyDevice';
import type { RunConditions } from '../../src/core/bench/devices/runConditions';
import type { DeviceReport } from '../../src/core/devices/report';

function reportWith(count: number, extra: Partial<DeviceReport> = {}): DeviceReport {
  return {
    torch: { interpreter: '/py', version: '2.4.1', cuda: { built: true, available: count > 0, version: '12.4', deviceCount: count }, mps: { built: false, available: false } },
    // The report's readout (after the runs) must not be what a run is judged by: its numbers differ from the runs'.
    accelerators: Array.from({ length: count }, (_, i) => ({ id: `cuda:${i}`, name: 'NVIDIA H100 80GB HBM3', temperatureC: 40, powerW: 90 })),
    ...extra,
  } as unknown as DeviceReport;
}

const cool: RunConditions = { smClockMHz: 1980, maxSmClockMHz: 1980, temperatureC: 61, powerW: 650, samples: 5 };
const hot: RunConditions = { smClockMHz: 1410, maxSmClockMHz: 1980, temperatureC: 84, powerW: 700, samples: 5 };

/** Speeds per pass; records how many runs were in flight at once, and which passes began and ended. */
function fakeRunner(alone: number[], together: number[] | ((i: number) => DeviceRun), during?: (pass: string, i: number) => RunConditions) {
  let inFlight = 0;
  const peaks: number[] = [];
  const calls: string[] = [];
  return {
    peaks, calls,
    passStarting(pass: string) {
      calls.push(`start ${pass}`);
    },
    async passEnded(pass: string, runs: DeviceRun[]) {
      calls.push(`end ${pass}`);
      return during ? runs.map((r, i) => ('gflops' in r ? { ...r, during: during(pass, i) } : r)) : runs;
    },
    async run(device: string): Promise<DeviceRun> {
      const i = Number(device.split(':')[1]);
      const first = !calls.includes(device);
      calls.push(device);
      inFlight++;
      const pass = first ? 0 : 1;
      peaks[pass] = Math.max(peaks[pass] ?? 0, inFlight);
      await new Promise((resolve) => setImmediate(resolve));
      inFlight--;
      if (first) return { gflops: alone[i] };
      return typeof together === 'function' ? together(i) : { gflops: together[i] };
    },
  };
}

describe('bench --devices all', () => {
  it('runs every CUDA device PyTorch sees, and refuses fewer than two', () => {
    assert.deepStrictEqual(everyTorchDevice(reportWith(4)), ['cuda:0', 'cuda:1', 'cuda:2', 'cuda:3']);
    assert.deepStrictEqual(everyTorchDevice(reportWith(0)), []);
    assert.deepStrictEqual(everyTorchDevice(null), []);
    assert.match(everyDeviceProblem([], '/usr/bin/python3') ?? '', /PyTorch in \/usr\/bin\/python3 sees no CUDA or ROCm device; run 'device-doctor bench' for one device/);
    assert.match(everyDeviceProblem(['cuda:0'], null) ?? '', /sees one GPU/);
    assert.strictEqual(everyDeviceProblem(['cuda:0', 'cuda:1'], null), null);
  });

  it('measures each device alone, one at a time, then all of them at once', async () => {
    const runner = fakeRunner([50, 50, 50, 50], [48, 48, 48, 48]);
    const runs = await measureEveryDevice(['cuda:0', 'cuda:1', 'cuda:2', 'cuda:3'], runner);
    assert.deepStrictEqual(runner.calls, ['start alone', 'cuda:0', 'cuda:1', 'cuda:2', 'cuda:3', 'end alone', 'start together', 'cuda:0', 'cuda:1', 'cuda:2', 'cuda:3', 'end together']);
    assert.deepStrictEqual(runner.peaks, [1, 4], 'alone: one in flight; together: all four');
    assert.deepStrictEqual(runs.alone.map((r) => ('gflops' in r ? r.gflops : null)), [50, 50, 50, 50]);
    assert.deepStrictEqual(runs.together.map((r) => ('gflops' in r ? r.gflops : null)), [48, 48, 48, 48]);
  });

  it('flags a device more than 10 % below its peers in each pass, with the clock, temperature and power of its own run', async () => {
    const devices = ['cuda:0', 'cuda:1', 'cuda:2', 'cuda:3'];
    // Alone all are fine; at once cuda:2 (hot, clocks down) falls 20 % behind.
    const during = (pass: string, i: number) => (pass === 'together' && i === 2 ? hot : cool);
    const runs = await measureEveryDevice(devices, fakeRunner([52_000, 51_000, 50_500, 51_500], [50_000, 49_800, 40_000, 50_200], during));
    const report = everyDeviceReport(devices, runs, { size: 8192, dtype: 'bfloat16', report: reportWith(4) });
    assert.deepStrictEqual(report.devices.map((d) => [d.aloneVerdict?.slow, d.togetherVerdict?.slow]), [[false, false], [false, false], [false, true], [false, false]]);
    assert.deepStrictEqual(report.findings, ['cuda:2 is 20 % below the median of its 3 peers (40 vs 50 TFLOP/s); its SM clock ran at 1.41 of 1.98 GHz at 84 °C and 700 W during the run (all at once)']);
    const text = formatEveryDeviceText(report);
    const [alone, together] = text.split('All at once');
    assert.match(alone, /^cuda:2 +NVIDIA H100 80GB HBM3 +50500 +−2 % +1\.98\/1\.98 GHz +61°C +650 W$/m);
    assert.match(together, /^cuda:2 +NVIDIA H100 80GB HBM3 +40000 +−20 % SLOW +1\.41\/1\.98 GHz +84°C +700 W$/m);
    assert.match(text, /n = 8192, bfloat16/);
  });

  it('keeps a failed run as a failure, judging the others among themselves', async () => {
    const devices = ['cuda:0', 'cuda:1', 'cuda:2'];
    const runs = await measureEveryDevice(devices, fakeRunner([100, 100, 70], (i) => (i === 1 ? { error: 'CUDA error: an illegal memory access' } : { gflops: 100 })));
    const report = everyDeviceReport(devices, runs, { size: 1024, dtype: 'float32', report: null });
    assert.strictEqual(report.devices[1].togetherVerdict, null);
    assert.strictEqual(report.devices[0].togetherVerdict?.peerMedianGflops, 100, 'judged against cuda:2 only');
    assert.deepStrictEqual(report.findings, ['cuda:2 is 30 % below the median of its 2 peers (70 vs 100 GFLOP/s) (alone)']);
    const text = formatEveryDeviceText(report);
    assert.match(text, /cuda:1 \(all at once\): CUDA error: an illegal memory access/);
    const [alone, together] = text.split('All at once');
    assert.match(alone, /^cuda:1 +- +100 +\+18 % +- +- +-$/m, 'no readings seen: dashes, not the report\'s');
    assert.match(together, /^cuda:1 +- +failed +- +- +- +-$/m);
  });

  it('reads --devices all, refuses other values and the options it cannot go with', () => {
    const parsed = parseArgs(['bench', '--devices', 'all', '--size', '4096', '--json']);
    assert.ok(parsed.command === 'bench' && parsed.options.devices === 'all' && parsed.options.size === 4096);
    for (const [argv, message] of [
      [['bench', '--devices', 'cuda:0'], /--devices takes 'all'/],
      [['bench', '--devices', 'all', '--device', 'cuda:0'], /does not go with --device/],
      [['bench', '--devices', 'all', '--engine', 'wasm'], /does not go with --engine/],
      [['bench', '--devices', 'all', '--collective', 'all-reduce'], /does not go with --collective/],
    ] as const) {
      const result = parseArgs([...argv]);
      assert.strictEqual(result.command, 'usage-error', JSON.stringify(result));
      assert.match((result as { message: string }).message, message);
    }
  });
});
