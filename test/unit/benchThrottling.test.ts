// Throttling as a diagnosis: nvidia-smi's clock query during a run (recorded outputs in
// test/fixtures/probes/nvidia-smi-clocks/, our own values in the documented format) turned into
// a gpu-throttled problem only when the clocks were really held down during the result itself.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { decodeThrottleReasons, GPU_CLOCK_FIELD_SETS, gpuClockArgs, isUnknownFieldError, parseGpuClockLine, parseGpuClockLines } from '../../src/core/bench/gpuClockSamples';
import { makeBenchResult } from '../../src/core/bench/result';
import type { ResultWindow, RunSamples } from '../../src/core/bench/runSamples';
import { clockSamples } from './benchClockSamples';
import { diagnoseThrottling, throttleProblem } from '../../src/core/bench/throttling';
import type { BenchResult } from '../../src/core/bench/model';

const probes = path.join(__dirname, '..', 'fixtures', 'probes');
const recorded = (dir: string, file: string) => fs.readFileSync(path.join(probes, dir, file), 'utf8');


function gpuResult(size = 8192, device = 'cuda:0'): BenchResult {
  const t = (2 * size ** 3) / 400e12;
  return makeBenchResult({ plan: { engine: 'torch', device, dtype: 'float32', size }, timesSec: [t, t, t], maxRelError: 1e-6, checkedEntries: 64 });
}

function windowFor(r: BenchResult, from: number, to: number): ResultWindow {
  return { engine: r.engine, device: r.device, dtype: r.dtype, size: r.size, from, to };
}

describe('bench throttling: the clock query', () => {
  it('reads the recorded rows, the throttle reasons from their bitmask, and [Not Supported] as unknown', () => {
    const rows = parseGpuClockLines(recorded('nvidia-smi-clocks', 'h200-thermal-slowdown.txt'));
    assert.strictEqual(rows.length, 5);
    assert.deepStrictEqual(rows[3], {
      index: 0, uuid: 'GPU-5d7f3c2a-1b2c-4d3e-9f8a-0123456789ab', smClockMhz: 1200, maxSmClockMhz: 1980,
      temperatureC: 87, powerW: 612.07, powerLimitW: 700, utilizationPercent: 100, reasons: ['power-cap', 'thermal'],
    });
    assert.deepStrictEqual(rows.map((r) => r.reasons), [['gpu-idle'], [], ['power-cap'], ['power-cap', 'thermal'], ['thermal']]);
    const old = parseGpuClockLines(recorded('nvidia-smi-clocks', 'gtx770-no-reasons.txt'));
    assert.deepStrictEqual(old.map((r) => [r.smClockMhz, r.powerW, r.reasons]), [[540, null, null], [1110, null, null]]);
  });

  it('takes no line of the other nvidia-smi queries for a clock sample (a fake or a shared tool prints them too)', () => {
    for (const [dir, file] of [['nvidia-smi-monitor', 'h200-busy-ramp.txt'], ['nvidia-smi', 'h200.txt'], ['nvidia-smi', 'h200-rtx4070.txt'], ['nvidia-smi-compute-apps', 'h200-other-container.txt']]) {
      assert.deepStrictEqual(parseGpuClockLines(recorded(dir, file)), [], `${dir}/${file}`);
    }
    assert.strictEqual(parseGpuClockLine('Field "clocks_throttle_reasons.active" is not a valid field to query.'), null);
  });

  it('decodes only hex masks, and the high bits of a 64-bit mask do not break it', () => {
    assert.deepStrictEqual(decodeThrottleReasons('0x00000000000000C8'), ['hw-slowdown', 'hw-thermal', 'power-brake']);
    assert.deepStrictEqual(decodeThrottleReasons('0xFFFF000000000002'), ['applications-clocks']);
    assert.strictEqual(decodeThrottleReasons('[N/A]'), null);
    assert.strictEqual(decodeThrottleReasons('4'), null);
  });

  it('asks for the throttle reasons under both names, then without them, and knows the refusal of an unknown field', () => {
    assert.deepStrictEqual(GPU_CLOCK_FIELD_SETS.map((f) => f.split(',').pop()), ['clocks_throttle_reasons.active', 'clocks_event_reasons.active', 'utilization.gpu']);
    assert.deepStrictEqual(gpuClockArgs(GPU_CLOCK_FIELD_SETS[0], 200).slice(1), ['--format=csv,noheader,nounits', '-lms', '200']);
    assert.ok(isUnknownFieldError('Field "clocks_event_reasons.active" is not a valid field to query.\n'));
    assert.ok(!isUnknownFieldError('No devices were found'));
  });
});

describe('bench throttling: the diagnosis', () => {
  it('says how far the clocks fell and why, with the temperature and the power, when thermal slowdown was active', () => {
    const problem = throttleProblem(gpuResult(), clockSamples('h200-thermal-slowdown.txt'));
    assert.deepStrictEqual({ ...problem, remedy: undefined }, {
      status: 'below-peak', code: 'gpu-throttled', engine: 'torch', device: 'cuda:0', dtype: 'float32', size: 8192, remedy: undefined,
      message: 'clocks fell to 1.2 GHz of 1.98 GHz max during the run (thermal slowdown at 87 °C, power cap at 700 W of 700 W): the result understates the GPU.',
    });
    assert.match(problem!.remedy ?? '', /cooling/);
  });

  it('a GPU at its power limit a little below its maximum clock is how it runs, not a problem', () => {
    assert.strictEqual(throttleProblem(gpuResult(), clockSamples('h200-steady-power-cap.txt')), null);
  });

  it('without reasons (an older driver), a clear fall of the clock under load is still said', () => {
    const problem = throttleProblem(gpuResult(), clockSamples('gtx770-no-reasons.txt'));
    assert.strictEqual(problem?.message, 'clocks fell to 0.54 GHz of 1.16 GHz max during the run: the result understates the GPU.');
  });

  it('an idle GPU\'s low clock is not throttling', () => {
    const idle = clockSamples('h200-thermal-slowdown.txt').slice(0, 1);
    assert.strictEqual(idle[0].smClockMhz, 345);
    assert.strictEqual(throttleProblem(gpuResult(), idle), null);
  });

  it('judges each device by the samples of its own results\' windows, once, named by its largest result', () => {
    const gpu = clockSamples('h200-thermal-slowdown.txt'); // t = 1000 … 1800; throttled from 1400
    const small = gpuResult(1024);
    const large = gpuResult(4096);
    const before: RunSamples = { gpu, host: [], gpuProcesses: [], windows: [windowFor(small, 1000, 1250), windowFor(large, 1250, 1350)] };
    // The first sample after a window speaks for it: 1400 (power cap at 1755 MHz) for the large one, nothing throttled.
    assert.deepStrictEqual(diagnoseThrottling([small, large], before), []);
    const during: RunSamples = { ...before, windows: [windowFor(small, 1000, 1250), windowFor(large, 1250, 1900)] };
    assert.deepStrictEqual(diagnoseThrottling([small, large], during).map((p) => `${p.code} ${p.device} n = ${p.size}`), ['gpu-throttled cuda:0 n = 4096']);
    const otherDevice: RunSamples = { ...during, windows: [windowFor(gpuResult(4096, 'cuda:1'), 1000, 1900)] };
    assert.deepStrictEqual(diagnoseThrottling([gpuResult(4096, 'cuda:1')], otherDevice), [], 'cuda:0\'s samples say nothing about cuda:1');
  });
});
