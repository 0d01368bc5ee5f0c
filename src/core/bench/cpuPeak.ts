// The CPU's theoretical matmul peak, for "% of peak": physical cores × max clock × the
// FLOP per cycle of one core's SIMD FMA units, per microarchitecture. Unlike peaks.ts (a
// deliberately generous bound for the time budget), this is the figure a vendor would quote,
// so a result can be judged against it: BLAS on one core reaches 70–90 % of it.
//
// FLOP per cycle per core = FMA units × lanes × 2 (a fused multiply-add is two FLOP):
//   2 × 256-bit FMA (8 fp32 lanes)                 → 32   Haswell…Alder Lake P, Zen 2, Zen 3
//   AVX-512 on two 256-bit halves (Zen 4 "double-pumped": one 512-bit op per cycle per pipe
//   pair, no more FLOP than AVX2)                  → 32   Zen 4 (Genoa, Raphael, Phoenix)
//   2 × 512-bit FMA (16 lanes)                     → 64   Skylake-SP…Sapphire Rapids, Zen 5
//   2 × 128-bit FMA (Zen 1, Neoverse N1/N2, A7x)   → 16
//   4 × 128-bit FMA (Neoverse V1/V2)               → 32
// bf16: AVX512_BF16's VDPBF16PS multiplies pairs into each fp32 lane (×2 the fp32 rate);
// AMX tiles do 1024 bf16 FMAs per core per cycle, 2048 FLOP (Intel's optimization manual for
// Sapphire Rapids);
// Arm's BFMMLA (the bf16 flag) also doubles the fp32 rate. Without those, bf16 runs at the fp32
// rate at best (converted), so its peak is the fp32 peak.
// Apple silicon is left out: PyTorch's CPU matmul there runs on the AMX coprocessor through
// Accelerate, whose rate Apple does not publish, so no honest peak can be given.

/** What the peak needs, from /proc/cpuinfo and sysfs (worker/bench/cpuFacts.ts reads them). */
export interface CpuPeakFacts {
  arch: string;
  platform: string;
  /** "AuthenticAMD", "GenuineIntel", or null (ARM, unknown). */
  vendor: string | null;
  /** x86 `cpu family` and `model` numbers; null elsewhere. */
  family: number | null;
  model: number | null;
  /** ARM "implementer:part", e.g. "0x41:0xd0c"; null elsewhere. */
  armPart: string | null;
  /** Physical cores (SMT siblings share the FMA units, so they add no FLOP). */
  physicalCores: number | null;
  /** The highest clock the CPU runs at (sysfs cpuinfo_max_freq, else the highest `cpu MHz`), MHz. */
  maxMhz: number | null;
  /**
   * What maxMhz is: the maximum boost clock (sysfs cpuinfo_max_freq, which lscpu's "CPU max
   * MHz" also reads), or a clock the CPU reports running at (/proc/cpuinfo `cpu MHz`, the OS's
   * nominal speed), which in a VM is often the base clock that boost exceeds. Absent: reported.
   */
  clock?: 'max-boost' | 'reported';
  flags: readonly string[];
}

export interface CpuPeak {
  /** Physical cores counted. */
  cores: number;
  float32: number;
  /** "2 cores × 3.70 GHz maximum boost clock × 32 FLOP/cycle (AMD Zen 4: AVX-512 on 2 × 256-bit FMA)". */
  basis: string;
  /** null where the ISA has no bf16 arithmetic (then bf16 runs at best at the fp32 rate). */
  bfloat16: number | null;
  bfloat16Basis: string | null;
}

interface Microarchitecture {
  name: string;
  /** fp32 FLOP per cycle per core, and why. */
  fp32: number;
  units: string;
}

function amd(family: number, model: number, has: (flag: string) => boolean): Microarchitecture | null {
  if (family === 0x1a) return { name: 'AMD Zen 5', fp32: 64, units: '2 × 512-bit FMA' };
  if (family === 0x19) {
    const zen4 = (model >= 0x10 && model <= 0x1f) || (model >= 0x60 && model <= 0x7f) || (model >= 0xa0 && model <= 0xaf) || has('avx512f');
    return zen4 ? { name: 'AMD Zen 4', fp32: 32, units: 'AVX-512 on 2 × 256-bit FMA' } : { name: 'AMD Zen 3', fp32: 32, units: '2 × 256-bit FMA' };
  }
  if (family === 0x17) return model >= 0x30 ? { name: 'AMD Zen 2', fp32: 32, units: '2 × 256-bit FMA' } : { name: 'AMD Zen / Zen+', fp32: 16, units: '2 × 128-bit FMA' };
  return null;
}

/** Intel by ISA: the flags tell the FMA width; every AVX-512 server core since Skylake-SP has two 512-bit FMA units. */
function intel(has: (flag: string) => boolean): Microarchitecture {
  if (has('avx512f')) return { name: 'Intel with AVX-512', fp32: 64, units: '2 × 512-bit FMA' };
  if (has('avx2') && has('fma')) return { name: 'Intel with AVX2', fp32: 32, units: '2 × 256-bit FMA' };
  if (has('avx')) return { name: 'Intel with AVX', fp32: 16, units: '256-bit add + multiply' };
  return { name: 'x86 with SSE', fp32: 8, units: '128-bit add + multiply' };
}

const ARM_CORES: Readonly<Record<string, Microarchitecture>> = {
  '0x41:0xd0c': { name: 'Arm Neoverse N1', fp32: 16, units: '2 × 128-bit NEON FMA' },
  '0x41:0xd49': { name: 'Arm Neoverse N2', fp32: 16, units: '2 × 128-bit NEON/SVE2 FMA' },
  '0x41:0xd40': { name: 'Arm Neoverse V1', fp32: 32, units: '4 × 128-bit NEON FMA (2 × 256-bit SVE)' },
  '0x41:0xd4f': { name: 'Arm Neoverse V2', fp32: 32, units: '4 × 128-bit NEON/SVE2 FMA' },
  '0x41:0xd0b': { name: 'Arm Cortex-A76', fp32: 16, units: '2 × 128-bit NEON FMA' },
  '0x41:0xd08': { name: 'Arm Cortex-A72', fp32: 16, units: '2 × 128-bit NEON FMA' },
};

function microarchitecture(facts: CpuPeakFacts): Microarchitecture | null {
  const has = (flag: string) => facts.flags.includes(flag);
  if (facts.arch === 'x64' || facts.arch === 'ia32') {
    if (facts.vendor === 'AuthenticAMD' && facts.family !== null && facts.model !== null) {
      const found = amd(facts.family, facts.model, has);
      if (found) return found;
    }
    return intel(has);
  }
  if (facts.arch === 'arm64' && facts.platform !== 'darwin' && facts.armPart) return ARM_CORES[facts.armPart.toLowerCase()] ?? null;
  return null;
}

/** bf16 FLOP per cycle per core, where the ISA has bf16 arithmetic. */
function bf16PerCycle(facts: CpuPeakFacts, fp32: number): { flop: number; how: string } | null {
  const has = (flag: string) => facts.flags.includes(flag);
  if (has('amx_bf16')) return { flop: AMX_BF16_FLOP_PER_CYCLE, how: 'AMX tiles' };
  if (has('avx512_bf16')) return { flop: 2 * fp32, how: 'AVX512_BF16 dot products, 2× fp32' };
  if (facts.arch === 'arm64' && has('bf16')) return { flop: 2 * fp32, how: 'BFMMLA, 2× fp32' };
  return null;
}

const AMX_BF16_FLOP_PER_CYCLE = 2048;

/** The peak in GFLOP/s, or null when the microarchitecture, the cores or the clock are unknown. */
export function cpuDatasheetPeak(facts: CpuPeakFacts): CpuPeak | null {
  const arch = microarchitecture(facts);
  if (!arch || !facts.physicalCores || facts.physicalCores < 1 || !facts.maxMhz || !(facts.maxMhz > 0)) return null;
  const ghz = facts.maxMhz / 1000;
  const cores = facts.physicalCores;
  const boost = facts.clock === 'max-boost';
  // Which clock, said with the figure: a peak from a reported clock is a low estimate (issue 28 item 6:
  // a VM reporting its 2.6 GHz base clock gave a "peak" that torch beat by 9 %).
  const clock = boost ? 'maximum boost clock' : 'reported clock, which boost may exceed';
  const of = (flop: number, how: string) => `${cores} core${cores === 1 ? '' : 's'} × ${ghz.toFixed(2)} GHz (${clock}) × ${flop} FLOP/cycle (${arch.name}: ${how})`;
  const bf16 = bf16PerCycle(facts, arch.fp32);
  return {
    cores,
    float32: cores * ghz * arch.fp32,
    basis: of(arch.fp32, arch.units),
    bfloat16: bf16 ? cores * ghz * bf16.flop : null,
    bfloat16Basis: bf16 ? of(bf16.flop, bf16.how) : null,
  };
}

/** /proc/cpuinfo's x86 numbers, ARM part and physical cores (the pure half of worker/bench/cpuFacts.ts). */
export function parseCpuPeakFields(procCpuinfo: string): Pick<CpuPeakFacts, 'vendor' | 'family' | 'model' | 'armPart' | 'physicalCores' | 'maxMhz'> {
  let vendor: string | null = null;
  let family: number | null = null;
  let model: number | null = null;
  let implementer: string | null = null;
  let part: string | null = null;
  let maxMhz: number | null = null;
  let physical: string | null = null;
  let processors = 0;
  const cores = new Set<string>();
  let sawCoreId = false;
  for (const line of procCpuinfo.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (key === 'processor') {
      processors++;
      physical = null;
    } else if (key === 'vendor_id') vendor ??= value;
    else if (key === 'cpu family') family ??= Number.parseInt(value, 10);
    else if (key === 'model' && /^\d+$/.test(value)) model ??= Number.parseInt(value, 10);
    else if (key === 'cpu implementer') implementer ??= value.toLowerCase();
    else if (key === 'cpu part') part ??= value.toLowerCase();
    else if (key === 'cpu mhz') {
      const mhz = Number.parseFloat(value);
      if (Number.isFinite(mhz) && mhz > 0) maxMhz = Math.max(maxMhz ?? 0, mhz);
    } else if (key === 'physical id') physical = value;
    else if (key === 'core id') {
      sawCoreId = true;
      cores.add(`${physical ?? '0'}:${value}`);
    }
  }
  return {
    vendor,
    family: Number.isFinite(family) ? family : null,
    model: Number.isFinite(model) ? model : null,
    armPart: implementer && part ? `${implementer}:${part}` : null,
    physicalCores: sawCoreId ? cores.size : processors > 0 ? processors : null,
    maxMhz,
  };
}
