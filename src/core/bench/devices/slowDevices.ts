// "Is one of my eight GPUs slower than the others?": each device's matmul speed against the
// median of its peers (the other devices of the same run, itself left out, so one slow
// device cannot drag the yardstick down with it). A device more than 10 % below is flagged,
// with its SM clock, temperature and power during its own run beside it when nvidia-smi gave
// them, since a hot, power-capped or down-clocked GPU is the usual reason.
import { median } from '../statistics';
import { significant } from '../numberText';

/** Flagged when below (1 − this) × the peers' median. */
export const SLOW_FRACTION = 0.1;

export interface DeviceSpeed {
  /** cuda:0, cuda:1, … */
  device: string;
  gflops: number;
  /** What the GPU did during this device's own run (runConditions.ts), when known. */
  smClockMHz?: number | null;
  maxSmClockMHz?: number | null;
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

const ghz = (mhz: number) => significant(mhz / 1000, 3);

/** TFLOP/s for GPU-sized speeds, GFLOP/s below one TFLOP/s, where "0.00026 TFLOP/s" would hide the number. */
function speedsText(gflops: number, peerGflops: number): string {
  if (Math.max(gflops, peerGflops) >= 1000) return `${significant(gflops / 1000, 3)} vs ${significant(peerGflops / 1000, 3)} TFLOP/s`;
  return `${significant(gflops, 3)} vs ${significant(peerGflops, 3)} GFLOP/s`;
}

/** "; its SM clock ran at 1.41 of 1.98 GHz at 84 °C and 612 W during the run", or '' when nothing was seen. */
function conditionsText(v: DeviceSpeed): string {
  const readings = [v.temperatureC != null ? `${Math.round(v.temperatureC)} °C` : null, v.powerW != null ? `${Math.round(v.powerW)} W` : null].filter(Boolean);
  const at = readings.length ? ` at ${readings.join(' and ')}` : '';
  if (v.smClockMHz != null) {
    const of = v.maxSmClockMHz != null ? ` of ${ghz(v.maxSmClockMHz)}` : '';
    return `; its SM clock ran at ${ghz(v.smClockMHz)}${of} GHz${at} during the run`;
  }
  return at ? `; it ran${at} during the run` : '';
}

/** "cuda:3 is 18 % below the median of its 7 peers (41.2 vs 50.3 TFLOP/s); its SM clock ran at 1.41 of 1.98 GHz at 84 °C during the run". */
export function slowDeviceMessage(verdict: DeviceVerdict, peerCount: number): string {
  const percent = Math.round((verdict.belowPeers ?? 0) * 100);
  const peers = `its ${peerCount} peer${peerCount === 1 ? '' : 's'}`;
  return `${verdict.device} is ${percent} % below the median of ${peers} (${speedsText(verdict.gflops, verdict.peerMedianGflops ?? 0)})${conditionsText(verdict)}`;
}
