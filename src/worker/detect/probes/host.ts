// The CPU and system memory from Node's os module, plus /proc/cpuinfo on Linux for the
// SIMD flags that os.cpus() does not give.
import { promises as fsp } from 'fs';
import * as os from 'os';
import type { HostFacts } from '../../../core/devices/host';

const PROC_CPUINFO = '/proc/cpuinfo';

async function readCpuinfo(): Promise<string | undefined> {
  try {
    // A many-core machine repeats every core's block; the first few are enough for the flags.
    return (await fsp.readFile(PROC_CPUINFO, 'utf8')).slice(0, 256 * 1024);
  } catch {
    return undefined;
  }
}

export async function probeHost(platform: NodeJS.Platform = process.platform): Promise<HostFacts> {
  const cpus = os.cpus();
  const facts: HostFacts = {
    platform,
    arch: os.arch(),
    cpuModels: cpus.map((cpu) => cpu.model.trim()),
    logicalCores: typeof os.availableParallelism === 'function' ? os.availableParallelism() : cpus.length,
    totalMemoryBytes: os.totalmem(),
    freeMemoryBytes: os.freemem(),
  };
  if (platform === 'linux') {
    const text = await readCpuinfo();
    if (text !== undefined) facts.procCpuinfo = text;
  }
  return facts;
}
