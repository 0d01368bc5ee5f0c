// Why a noisy result's repeats disagree, from what the run watcher saw during that result:
// another process on the same GPU, the GPU's clock moving, or other processes keeping the
// host's CPUs busy. Only what was seen is said; with nothing seen, the generic sentence.
import { isNoisy } from './diagnosis';
import type { BenchResult } from './model';
import { gpuSamplesIn, hostSamplesIn, windowOf, type HostLoadSample, type RunSamples } from './runSamples';
import { ghzText, isBusy } from './throttling';

export const GENERIC_NOISE_REASON = 'other load on the machine or changing clocks; run again when it is quieter';

/** Other processes' mean share of the CPUs at or above this is load worth naming. */
export const BUSY_HOST_SHARE = 0.1;
/** An SM clock that moved by more than this fraction of its maximum changed the speed between repeats. */
export const CLOCK_SPREAD = 0.1;

function bytesText(bytes: number): string {
  return bytes >= 1024 ** 3 ? `${(bytes / 1024 ** 3).toFixed(1)} GiB` : `${Math.round(bytes / 1024 ** 2)} MiB`;
}

function coresText(cores: number): string {
  return String(Number(cores.toPrecision(2)));
}

function otherGpuProcesses(r: BenchResult, samples: RunSamples): string | null {
  const others = samples.gpuProcesses.filter((p) => p.device === r.device);
  if (others.length === 0) return null;
  const names = others.slice(0, 3).map((p) => `${p.name}, pid ${p.pid}${p.usedBytes !== null ? `, ${bytesText(p.usedBytes)}` : ''}`);
  const more = others.length > 3 ? ` and ${others.length - 3} more` : '';
  return `${others.length === 1 ? 'another process' : `${others.length} other processes`} used ${r.device} during the run (${names.join('; ')}${more})`;
}

function clockSpread(r: BenchResult, samples: RunSamples): string | null {
  const window = windowOf(samples, r);
  if (!window || r.device === 'cpu') return null;
  const busy = gpuSamplesIn(samples, r.device, window).filter(isBusy);
  const clocks = busy.map((s) => s.smClockMhz).filter((c): c is number => c !== null);
  const max = Math.max(0, ...busy.map((s) => s.maxSmClockMhz ?? 0));
  if (clocks.length < 2 || max <= 0) return null;
  const low = Math.min(...clocks);
  const high = Math.max(...clocks);
  return high - low > CLOCK_SPREAD * max ? `the SM clock moved between ${ghzText(low)} and ${ghzText(high)} during the run` : null;
}

/** Mean share over the intervals, weighted by their length. */
function meanShare(host: readonly HostLoadSample[]): number {
  const span = host.reduce((sum, s) => sum + (s.to - s.from), 0);
  return span > 0 ? host.reduce((sum, s) => sum + s.othersShare * (s.to - s.from), 0) / span : 0;
}

/** "other processes kept 1.3 of 2 CPU cores busy while it ran (busiest: …)", or null when the host was quiet. */
export function hostLoad(r: BenchResult, samples: RunSamples): string | null {
  const window = windowOf(samples, r);
  if (!window) return null;
  const host = hostSamplesIn(samples, window);
  if (host.length === 0) return null;
  const share = meanShare(host);
  if (share < BUSY_HOST_SHARE) return null;
  const cpus = host[host.length - 1].cpus;
  // The busiest process over the window: the one named in most intervals, at its highest share.
  const named = new Map<number, { name: string; share: number }>();
  for (const s of host) for (const p of s.busiest) named.set(p.pid, { name: p.name, share: Math.max(p.share, named.get(p.pid)?.share ?? 0) });
  const top = [...named.entries()].sort((a, b) => b[1].share - a[1].share)[0];
  const most = top ? ` (busiest: ${top[1].name}, pid ${top[0]})` : '';
  return `other processes kept ${coresText(share * cpus)} of ${cpus} CPU cores busy while it ran${most}`;
}

/** What was seen to disturb a noisy result, or the generic sentence; null for a result that is not noisy. */
export function noiseReasonOf(r: BenchResult, samples: RunSamples): string | null {
  if (!(r.noisy ?? isNoisy(r))) return null;
  const seen = [otherGpuProcesses(r, samples), clockSpread(r, samples), hostLoad(r, samples)].filter((s): s is string => s !== null);
  return seen.length > 0 ? seen.join('; ') : GENERIC_NOISE_REASON;
}
