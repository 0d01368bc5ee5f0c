// The recorded nvidia-smi clock outputs (test/fixtures/probes/nvidia-smi-clocks/) as the samples
// the run watcher would have taken, for the throttling and noise tests.
import * as fs from 'fs';
import * as path from 'path';
import { parseGpuClockLines } from '../../src/core/bench/gpuClockSamples';
import type { GpuClockSample } from '../../src/core/bench/runSamples';

/** A recorded clock output as samples of `device`, one every 200 ms from `start`. */
export function clockSamples(file: string, device = 'cuda:0', start = 1000): GpuClockSample[] {
  const text = fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'probes', 'nvidia-smi-clocks', file), 'utf8');
  return parseGpuClockLines(text).map(({ index: _i, uuid: _u, ...row }, i) => ({ time: start + 200 * i, device, ...row }));
}
