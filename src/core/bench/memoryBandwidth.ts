// Copy bandwidth: GB/s from a copy's bytes and its median time, and a device-to-device copy
// judged against its accelerator's datasheet memory bandwidth (gpuPeaks.ts). A copy within
// one memory reads every byte and writes it again, so it moves twice its size; that is how
// the datasheet figure (and nvbandwidth, and the STREAM "copy" kernel) counts it.
import { gpuPeakByName } from './gpuPeaks';
import type { TransferResult } from './model';
import { StatisticsError } from './statistics';

/** GB/s (1e9 bytes) of one copy of `bytes` in `medianSec`: twice the bytes within one device's memory. */
export function copyGbPerSec(direction: TransferResult['direction'], bytes: number, medianSec: number): number {
  if (!(bytes > 0) || !Number.isFinite(bytes)) throw new StatisticsError(`A copy's size must be a positive number of bytes, not ${bytes}.`);
  if (!(medianSec > 0) || !Number.isFinite(medianSec)) throw new StatisticsError(`A copy's time must be a positive number of seconds, not ${medianSec}.`);
  return ((direction === 'deviceToDevice' ? 2 : 1) * bytes) / medianSec / 1e9;
}

/**
 * The device-to-device copies with their datasheet bandwidth and the share of it where the
 * part is known; null where it is not, and on the CPU (a host's memory bandwidth depends on
 * its channels and DIMMs, which nothing here reads).
 */
export function withCopyPeaks(transfers: readonly TransferResult[], deviceNames: Readonly<Record<string, string>>): TransferResult[] {
  return transfers.map((t) => {
    if (t.direction !== 'deviceToDevice') return t;
    const name = t.device === 'cpu' ? undefined : deviceNames[t.device];
    const gpu = name ? gpuPeakByName(name) : null;
    if (!gpu || t.gbPerSec === null) return { ...t, peakGbPerSec: gpu?.bandwidthGBs ?? null, percentOfPeak: null, peakBasis: gpu ? datasheetBasis(gpu.name, gpu.bandwidthGBs) : null };
    return { ...t, peakGbPerSec: gpu.bandwidthGBs, percentOfPeak: (100 * t.gbPerSec) / gpu.bandwidthGBs, peakBasis: datasheetBasis(gpu.name, gpu.bandwidthGBs) };
  });
}

function datasheetBasis(name: string, gbPerSec: number): string {
  return `memory bandwidth of the ${name} (${gbPerSec} GB/s, datasheet)`;
}
