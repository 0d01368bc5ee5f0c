// A device's readings during its own run (core/bench/devices/runConditions.ts), from made-up run
// watcher samples: only its own samples, only inside its result's window (plus the one after,
// which reports the interval before it), only while busy; the median clock, hottest temperature.
import * as assert from 'assert';
import { conditionsDuring } from '../../src/core/bench/devices/runConditions';
import type { GpuClockSample, RunSamples } from '../../src/core/bench/runSamples';

const at = (time: number, device: string, smClockMhz: number, temperatureC: number, extra: Partial<GpuClockSample> = {}): GpuClockSample => ({
  time, device, smClockMhz, maxSmClockMhz: 1980, temperatureC, powerW: 600, powerLimitW: 700, utilizationPercent: 100, reasons: [], ...extra,
});

const window = (device: string, from: number, to: number) => ({ engine: 'torch' as const, device, dtype: 'float32' as const, size: 4096, from, to });

describe('bench --devices all: readings during a device\'s own run', () => {
  it('takes the median SM clock, the hottest temperature and the median power of its busy samples in its window', () => {
    const samples: RunSamples = {
      gpu: [
        at(900, 'cuda:1', 300, 30, { utilizationPercent: 0, reasons: ['gpu-idle'] }), // before the run: idle
        at(1000, 'cuda:1', 1400, 80, { powerW: 590 }),
        at(1200, 'cuda:1', 1410, 84, { powerW: 610 }),
        at(1400, 'cuda:1', 1500, 82, { powerW: 650 }),
        at(1600, 'cuda:1', 1380, 83, { powerW: 620 }), // the first after the window speaks for its end
        at(1800, 'cuda:1', 1980, 95), // later: another device's run
        at(1200, 'cuda:0', 1980, 60), // another GPU at the same time
        at(1300, 'cuda:1', 600, 50, { utilizationPercent: 10 }), // a dip while not busy
      ],
      host: [], gpuProcesses: [],
      windows: [window('cuda:0', 0, 2000), window('cuda:1', 950, 1500)],
    };
    assert.deepStrictEqual(conditionsDuring(samples, 'cuda:1'), { smClockMHz: 1405, maxSmClockMHz: 1980, temperatureC: 84, powerW: 615, samples: 4 });
  });

  it('has nothing to say without a window or busy samples, and keeps a missing field null', () => {
    const gpu = [at(1000, 'cuda:0', 1400, 80, { temperatureC: null, powerW: null, maxSmClockMhz: null })];
    assert.strictEqual(conditionsDuring({ gpu, host: [], gpuProcesses: [], windows: [] }, 'cuda:0'), null);
    const idle = [at(1000, 'cuda:0', 300, 30, { reasons: ['gpu-idle'] })];
    assert.strictEqual(conditionsDuring({ gpu: idle, host: [], gpuProcesses: [], windows: [window('cuda:0', 900, 1100)] }, 'cuda:0'), null);
    assert.deepStrictEqual(conditionsDuring({ gpu, host: [], gpuProcesses: [], windows: [window('cuda:0', 900, 1100)] }, 'cuda:0'), { smClockMHz: 1400, maxSmClockMHz: null, temperatureC: null, powerW: null, samples: 1 });
  });
});
