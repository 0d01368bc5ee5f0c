// What one device's GPU did during its own matmul run, from the run watcher's nvidia-smi samples
// (runSamples.ts): its SM clock (median) against its maximum, its hottest temperature and its
// median power. `bench --devices all` puts these beside each device's speed, per pass, because
// a readout taken after the runs (or during another device's run) says nothing about why this
// one was slow. Only samples of the GPU at work count: an idle GPU lowers its clocks, rightly.
import { median } from '../statistics';
import { gpuSamplesIn, type RunSamples } from '../runSamples';
import { isBusy } from '../throttling';

export interface RunConditions {
  /** Median SM clock while busy, MHz. */
  smClockMHz: number | null;
  /** The highest clocks.max.sm reported, MHz. */
  maxSmClockMHz: number | null;
  /** The hottest reading while busy, °C. */
  temperatureC: number | null;
  /** Median power draw while busy, W. */
  powerW: number | null;
  /** How many busy samples these come from. */
  samples: number;
}

const known = (values: ReadonlyArray<number | null>) => values.filter((v): v is number => v !== null && Number.isFinite(v));

/** The device's busy samples in the windows of its own results; null when there are none (no NVIDIA GPU, too short a run). */
export function conditionsDuring(samples: RunSamples, device: string): RunConditions | null {
  const windows = samples.windows.filter((w) => w.device === device);
  const seen = new Map<number, RunSamples['gpu'][number]>();
  for (const window of windows) for (const s of gpuSamplesIn(samples, device, window)) seen.set(s.time, s);
  const busy = [...seen.values()].filter(isBusy);
  if (busy.length === 0) return null;
  const clocks = known(busy.map((s) => s.smClockMhz));
  const maxClocks = known(busy.map((s) => s.maxSmClockMhz));
  const temperatures = known(busy.map((s) => s.temperatureC));
  const powers = known(busy.map((s) => s.powerW));
  return {
    smClockMHz: clocks.length ? median(clocks) : null,
    maxSmClockMHz: maxClocks.length ? Math.max(...maxClocks) : null,
    temperatureC: temperatures.length ? Math.max(...temperatures) : null,
    powerW: powers.length ? median(powers) : null,
    samples: busy.length,
  };
}
