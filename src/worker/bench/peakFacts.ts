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

/** Where the kernel says the highest clock each core may reach, in kHz (absent in most VMs and containers). */
const CPU_DIR = '/sys/devices/system/cpu';

/** The highest cpuinfo_max_freq of any core (lscpu's "CPU max MHz" reads the same files), in kHz, or NaN. */
async function maxBoostKhz(): Promise<number> {
  let names: string[];
  try {
    names = (await fsp.readdir(CPU_DIR)).filter((n) => /^cpu\d+$/.test(n));
  } catch {
    return NaN;
  }
  const values = await Promise.all(names.map(async (n) => Number.parseInt((await readText(`${CPU_DIR}/${n}/cpufreq/cpuinfo_max_freq`)) ?? '', 10)));
  const known = values.filter((v) => Number.isFinite(v) && v > 0);
  return known.length > 0 ? Math.max(...known) : NaN;
}

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
  const maxKhz = platform === 'linux' ? await maxBoostKhz() : NaN;
  // os.cpus() speed: the nominal clock where neither /proc nor sysfs says (macOS, Windows).
  const osMhz = Math.max(0, ...os.cpus().map((c) => c.speed));
  const boost = Number.isFinite(maxKhz) && maxKhz > 0;
  const maxMhz = boost ? maxKhz / 1000 : fields.maxMhz ?? (osMhz > 0 ? osMhz : null);
  return {
    ...fields,
    maxMhz,
    clock: boost ? 'max-boost' : 'reported',
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
  const torch = report?.torch;
  return { cpu: cpuDatasheetPeak(await cpuPeakFacts(report)), cpuThreads: cores, deviceNames: deviceNames(report), python: torch ? torch.interpreter : null };
}
