// "Is one of my eight GPUs slower than the others?": each device's matmul speed against the
// median of its peers (the other devices of the same run, itself left out, so one slow
// device cannot drag the yardstick down with it). A device more than 10 % below is flagged,
// with its clocks, temperature and power beside it when the monitor had them, since a hot
// or power-capped GPU is the usual reason.
import { median } from '../statistics';

/** Flagged when below (1 − this) × the peers' median. */
export const SLOW_FRACTION = 0.1;

export interface DeviceSpeed {
  /** cuda:0, cuda:1, … */
  device: string;
  gflops: number;
  /** From the monitor at the time, when known. */
  smClockMHz?: number | null;
  temperatureC?: number | null;
  powerW?: number | null;
}

export interface DeviceVerdict extends DeviceSpeed {
  /** The median GFLOP/s of the other devices; null without peers. */
  peerMedianGflops: number | null;
  /** How far below the peers, as a fraction (0.25: 25 % slower); negative when faster; null without peers. */
  belowPeers: number | null;
  slow: boolean;
}

/** One verdict per device, in the order given. Devices with no positive, finite speed are refused. */
export function judgeDevices(speeds: readonly DeviceSpeed[], fraction: number = SLOW_FRACTION): DeviceVerdict[] {
  if (!(fraction > 0 && fraction < 1)) throw new RangeError(`the slow fraction must be between 0 and 1, not ${fraction}`);
  for (const s of speeds) {
    if (!(Number.isFinite(s.gflops) && s.gflops > 0)) throw new RangeError(`${s.device} has no speed to compare (${s.gflops} GFLOP/s)`);
  }
  return speeds.map((s, i) => {
    const peers = speeds.filter((_, j) => j !== i).map((p) => p.gflops);
    if (peers.length === 0) return { ...s, peerMedianGflops: null, belowPeers: null, slow: false };
    const peerMedian = median(peers);
    const below = 1 - s.gflops / peerMedian;
    return { ...s, peerMedianGflops: peerMedian, belowPeers: below, slow: s.gflops < (1 - fraction) * peerMedian };
  });
}

/** "cuda:3 is 23 % below the median of its 7 peers (41.2 vs 53.5 TFLOP/s) at 87 °C, 700 W, 1410 MHz". */
export function slowDeviceMessage(verdict: DeviceVerdict, peerCount: number): string {
  const tflops = (g: number) => Number((g / 1000).toPrecision(3));
  const why = [
    verdict.temperatureC != null ? `${verdict.temperatureC} °C` : null,
    verdict.powerW != null ? `${verdict.powerW} W` : null,
    verdict.smClockMHz != null ? `${verdict.smClockMHz} MHz` : null,
  ].filter(Boolean);
  const percent = Math.round((verdict.belowPeers ?? 0) * 100);
  return `${verdict.device} is ${percent} % below the median of its ${peerCount} peer${peerCount === 1 ? '' : 's'} (${tflops(verdict.gflops)} vs ${tflops(verdict.peerMedianGflops ?? 0)} TFLOP/s)${why.length ? ` at ${why.join(', ')}` : ''}`;
}
