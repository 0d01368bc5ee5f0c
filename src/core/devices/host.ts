// The CPU and system memory. /proc/cpuinfo and os.* values are read by the worker and
// handed in here.
import type { CpuInfo, HostInfo } from './report';

/** SIMD features that decide how fast CPU tensor code runs, in the order they are reported. */
export const CPU_FLAGS_OF_INTEREST: readonly string[] = [
  'sse4_2', 'avx', 'avx2', 'fma', 'f16c',
  'avx512f', 'avx512bw', 'avx512_vnni', 'avx512_bf16', 'avx512_fp16', 'avx_vnni',
  'amx_tile', 'amx_bf16', 'amx_int8',
  'neon', 'asimd', 'asimdhp', 'asimddp', 'sve', 'sve2', 'bf16', 'i8mm', 'sme',
];

/** aarch64 kernels print no model name, only implementer and part numbers. */
const ARM_PARTS: Record<string, string> = {
  '0x41:0xd03': 'ARM Cortex-A53',
  '0x41:0xd08': 'ARM Cortex-A72',
  '0x41:0xd0b': 'ARM Cortex-A76',
  '0x41:0xd0c': 'ARM Neoverse-N1',
  '0x41:0xd40': 'ARM Neoverse-V1',
  '0x41:0xd49': 'ARM Neoverse-N2',
  '0x41:0xd4f': 'ARM Neoverse-V2',
  '0xc0:0xac3': 'AmpereOne',
};

function cpuinfoFields(text: string): Array<[string, string]> {
  const fields: Array<[string, string]> = [];
  for (const line of text.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) fields.push([line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()]);
  }
  return fields;
}

function firstValue(fields: Array<[string, string]>, key: string): string | null {
  return fields.find(([name, value]) => name === key && value !== '')?.[1] ?? null;
}

function armModel(fields: Array<[string, string]>): string | null {
  const implementer = firstValue(fields, 'cpu implementer')?.toLowerCase();
  const part = firstValue(fields, 'cpu part')?.toLowerCase();
  if (!implementer || !part) return null;
  return ARM_PARTS[`${implementer}:${part}`] ?? `ARM CPU (implementer ${implementer}, part ${part})`;
}

/** Flags of interest present in `flags` (x86) or `Features` (ARM), in CPU_FLAGS_OF_INTEREST's order. */
function interestingFlags(fields: Array<[string, string]>): string[] {
  const present = new Set<string>();
  for (const [name, value] of fields) {
    if (name === 'flags' || name === 'features') value.split(/\s+/).forEach((flag) => present.add(flag.toLowerCase()));
  }
  return CPU_FLAGS_OF_INTEREST.filter((flag) => present.has(flag));
}

/** /proc/cpuinfo: model, logical processor count and SIMD flags. */
export function parseProcCpuinfo(text: string): CpuInfo {
  const fields = cpuinfoFields(text);
  const processors = fields.filter(([name]) => name === 'processor').length;
  return {
    model: firstValue(fields, 'model name') ?? armModel(fields),
    cores: processors > 0 ? processors : null,
    flags: interestingFlags(fields),
  };
}

/** What the worker reads from Node's os module (and /proc/cpuinfo on Linux). */
export interface HostFacts {
  platform: string;
  arch: string;
  /** os.cpus() models, one per logical core (may be empty, or "" on some ARM machines). */
  cpuModels: string[];
  /** os.availableParallelism() where it exists. */
  logicalCores?: number;
  totalMemoryBytes: number | null;
  freeMemoryBytes: number | null;
  /** The text of /proc/cpuinfo on Linux (possibly cut short on many-core machines). */
  procCpuinfo?: string;
}

function defaultFlags(facts: HostFacts): string[] {
  // Every Apple silicon and every arm64 CPU has Advanced SIMD; macOS has no /proc/cpuinfo to say so.
  return facts.arch === 'arm64' ? ['asimd'] : [];
}

function integerBytes(value: number | null): number | null {
  return value === null || !Number.isFinite(value) || value < 0 ? null : Math.round(value);
}

export function buildHostInfo(facts: HostFacts): HostInfo {
  const parsed = facts.procCpuinfo !== undefined ? parseProcCpuinfo(facts.procCpuinfo) : null;
  const osModel = facts.cpuModels.find((model) => model.trim() !== '')?.trim() ?? null;
  const cores = facts.logicalCores ?? parsed?.cores ?? (facts.cpuModels.length || null);
  return {
    platform: facts.platform,
    arch: facts.arch,
    cpu: {
      model: parsed?.model ?? osModel,
      cores,
      flags: parsed && parsed.flags.length > 0 ? parsed.flags : defaultFlags(facts),
    },
    memory: { totalBytes: integerBytes(facts.totalMemoryBytes), freeBytes: integerBytes(facts.freeMemoryBytes) },
  };
}
