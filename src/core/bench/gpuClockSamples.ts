// What nvidia-smi says about a GPU's clocks while a benchmark runs: SM clock against its
// maximum, temperature, power against the limit, utilization, and the driver's reasons for
// holding the clocks down (NVML's clocks throttle reasons, renamed "clocks event reasons" in
// driver 535; both names still answer). A separate query from the memory monitor's
// (nvidiaMonitor.ts) so that recorded monitor outputs and the status bar stay as they are.
import { integerOrNull, numberOrNull, textOrNull } from '../devices/fields';

/** NVML's nvmlClocksThrottleReason bits, as nvidia-smi prints them in `clocks_throttle_reasons.active`. */
export type ThrottleReason =
  | 'gpu-idle'
  | 'applications-clocks'
  | 'power-cap'
  | 'hw-slowdown'
  | 'sync-boost'
  | 'thermal'
  | 'hw-thermal'
  | 'power-brake'
  | 'display-clocks';

const REASON_BITS: ReadonlyArray<readonly [number, ThrottleReason]> = [
  [0x1, 'gpu-idle'],
  [0x2, 'applications-clocks'],
  [0x4, 'power-cap'],
  [0x8, 'hw-slowdown'],
  [0x10, 'sync-boost'],
  [0x20, 'thermal'],
  [0x40, 'hw-thermal'],
  [0x80, 'power-brake'],
  [0x100, 'display-clocks'],
];

/** "0x0000000000000024" → ['power-cap', 'thermal']; null for [N/A] or anything not hex. */
export function decodeThrottleReasons(raw: string): ThrottleReason[] | null {
  const text = raw.trim();
  if (!/^0x[0-9a-f]+$/i.test(text)) return null;
  // Only the low bits carry reasons; BigInt keeps a 64-bit mask exact.
  const mask = Number(BigInt(text) & 0xffffn);
  return REASON_BITS.filter(([bit]) => (mask & bit) !== 0).map(([, reason]) => reason);
}

/** Field sets, tried in order: the first a driver rejects ("is not a valid field") falls back to the next. */
export const GPU_CLOCK_FIELD_SETS: readonly string[] = [
  'index,uuid,clocks.sm,clocks.max.sm,temperature.gpu,power.draw,power.limit,utilization.gpu,clocks_throttle_reasons.active',
  'index,uuid,clocks.sm,clocks.max.sm,temperature.gpu,power.draw,power.limit,utilization.gpu,clocks_event_reasons.active',
  'index,uuid,clocks.sm,clocks.max.sm,temperature.gpu,power.draw,power.limit,utilization.gpu',
];

export function gpuClockArgs(fields: string, intervalMs: number): string[] {
  return [`--query-gpu=${fields}`, '--format=csv,noheader,nounits', '-lms', String(Math.max(1, Math.round(intervalMs)))];
}

/** The driver's answer to a field it does not know: the next field set is tried. */
export function isUnknownFieldError(output: string): boolean {
  return /is not a valid field to query/i.test(output);
}

/** What nvidia-smi says of one GPU's clocks, heat and power at one moment. */
export interface GpuClockReading {
  smClockMhz: number | null;
  maxSmClockMhz: number | null;
  temperatureC: number | null;
  powerW: number | null;
  powerLimitW: number | null;
  utilizationPercent: number | null;
  /** null when the driver did not say (older field set, [N/A]). */
  reasons: ThrottleReason[] | null;
}

/** One GPU at one moment, as nvidia-smi's row names it. */
export interface GpuClockRow extends GpuClockReading {
  index: number;
  uuid: string | null;
}

/** One line of the clock query's output, or null when it is not one (another query's line, an error). */
export function parseGpuClockLine(line: string): GpuClockRow | null {
  const fields = line.replace(/\r$/, '').split(',').map((f) => f.trim());
  if (fields.length !== 8 && fields.length !== 9) return null;
  const index = integerOrNull(fields[0]);
  // The uuid tells this query's lines from the memory monitor's or the inventory's.
  if (index === null || !/^GPU-/i.test(fields[1])) return null;
  return {
    index,
    uuid: textOrNull(fields[1]),
    smClockMhz: numberOrNull(fields[2]),
    maxSmClockMhz: numberOrNull(fields[3]),
    temperatureC: numberOrNull(fields[4]),
    powerW: numberOrNull(fields[5]),
    powerLimitW: numberOrNull(fields[6]),
    utilizationPercent: numberOrNull(fields[7]),
    reasons: fields.length === 9 ? decodeThrottleReasons(fields[8]) : null,
  };
}

export function parseGpuClockLines(text: string): GpuClockRow[] {
  return text.split('\n').map(parseGpuClockLine).filter((row): row is GpuClockRow => row !== null);
}
