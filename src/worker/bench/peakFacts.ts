// What the peaks of a run's devices come from (core/bench/diagnosis.ts): the CPU's
// microarchitecture, physical cores and highest clock from /proc/cpuinfo and sysfs (the
// device report keeps only the model, cores and flags), and the accelerators' names from the
// report. Read once per benchmark; nothing here runs a process.
import { promises as fsp } from 'fs';
import * as os from 'os';
import { cpuDatasheetPeak, parseCpuPeakFields, type CpuPeakFacts } from '../../core/bench/cpuPeak';
import type { PeakFacts } from '../../core/bench/diagnosis';
import type { DeviceReport } from '../../core/devices/report';
import { usableTorch } from './reportFacts';

/** The highest clock the kernel lets a core reach, in kHz (absent in most VMs and containers). */
const MAX_FREQ_KHZ = '/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq';

async function readText(file: string): Promise<string | null> {
  try {
    return await fsp.readFile(file, 'utf8');
  } catch {
    return null;
  }
}

export async function cpuPeakFacts(report: DeviceReport | null, platform: NodeJS.Platform = process.platform): Promise<CpuPeakFacts> {
  const cpuinfo = platform === 'linux' ? await readText('/proc/cpuinfo') : null;
  const fields = cpuinfo ? parseCpuPeakFields(cpuinfo) : { vendor: null, family: null, model: null, armPart: null, physicalCores: null, maxMhz: null };
  const maxKhz = platform === 'linux' ? Number.parseInt((await readText(MAX_FREQ_KHZ)) ?? '', 10) : NaN;
  // os.cpus() speed: the nominal clock where neither /proc nor sysfs says (macOS, Windows).
  const osMhz = Math.max(0, ...os.cpus().map((c) => c.speed));
  const maxMhz = Number.isFinite(maxKhz) && maxKhz > 0 ? maxKhz / 1000 : fields.maxMhz ?? (osMhz > 0 ? osMhz : null);
  return {
    ...fields,
    maxMhz,
    physicalCores: fields.physicalCores ?? report?.host?.cpu?.cores ?? null,
    arch: report?.host?.arch ?? process.arch,
    platform: report?.host?.platform ?? platform,
    flags: report?.host?.cpu?.flags ?? [],
  };
}

/** Accelerator names by torch device: torch's own names first, then nvidia-smi's / system_profiler's. */
export function deviceNames(report: DeviceReport | null): Record<string, string> {
  const names: Record<string, string> = {};
  for (const a of report?.accelerators ?? []) names[a.id] = a.name;
  for (const d of usableTorch(report, null)?.cuda.devices ?? []) names[`cuda:${d.index}`] = d.name;
  return names;
}

export async function peakFacts(report: DeviceReport | null): Promise<PeakFacts> {
  const cores = report?.host?.cpu?.cores ?? (typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length);
  return { cpu: cpuDatasheetPeak(await cpuPeakFacts(report)), cpuThreads: cores, deviceNames: deviceNames(report) };
}
