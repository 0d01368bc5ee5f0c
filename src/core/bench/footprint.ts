// What a benchmark on the CPU takes of the host's memory: its three matrices, what the
// engine needs on top of them, and a reserve left to the rest of the machine. The engine
// overheads were measured (peak RSS, /proc/self/status VmHWM and process.memoryUsage) on a
// 2-core x86-64 Linux host with Debian's torch 1.13 and tfjs 4.22:
// - torch: `import torch` brings the interpreter to 237 MB; a product of n = 1024…4096
//   then peaked 40–118 MB above its three matrices: the float64 row checksum copies blocks
//   of up to 4 M entries to float64 and takes their absolute values (2 × 32 MiB), the
//   sampled rows and columns are float64 copies (samples·n each), and BLAS has its buffers.
// - wasm and js (in this process): the inputs are made as JavaScript arrays and copied
//   into the backend, the product is read back and each block copied once more: the peak
//   was 2.6–2.75× the three matrices at n = 2048 and 3072, plus tens of MiB at small n.
import { BYTES_PER_ELEMENT, type Dtype, type EngineId } from './model';

const MIB = 1024 ** 2;

/** The interpreter with torch imported (237 MB measured), before any tensor. */
export const TORCH_PROCESS_BYTES = 256 * MIB;
/** bench.py's float64 checks (two 32 MiB blocks) and BLAS buffers, beyond the samples: at most 118 MB measured. */
export const TORCH_CHECK_BYTES = 128 * MIB;
/** float64 copies per sampled entry and matrix order n (rows of A, columns of B, their products, with slack). */
export const TORCH_SAMPLE_COPIES = 6;
/** n² float32 arrays an in-process engine holds besides the backend's three matrices (inputs, read-back, a block copy, heap growth). */
export const IN_PROCESS_COPIES = 5;
/** A tfjs backend's own allocations at small n (44 MiB measured at n = 1024, with its matrices). */
export const IN_PROCESS_BASE_BYTES = 64 * MIB;
/** Left to the editor, the system and the page cache: a benchmark that took the last of it would stall the machine. */
export const HOST_RESERVE_BYTES = 512 * MIB;

export interface HostFootprint {
  /** 3·n²·bytes: A, B and the product. */
  matricesBytes: number;
  /** What the engine needs on top (its process, copies, checks). */
  engineBytes: number;
  reserveBytes: number;
  totalBytes: number;
}

export function hostFootprint(engine: EngineId, size: number, dtype: Dtype, samples: number): HostFootprint {
  const matricesBytes = 3 * size * size * BYTES_PER_ELEMENT[dtype];
  const engineBytes =
    engine === 'torch'
      ? TORCH_PROCESS_BYTES + TORCH_CHECK_BYTES + TORCH_SAMPLE_COPIES * Math.min(samples, size * size) * 8 * size
      : IN_PROCESS_BASE_BYTES + IN_PROCESS_COPIES * size * size * 4;
  return { matricesBytes, engineBytes, reserveBytes: HOST_RESERVE_BYTES, totalBytes: matricesBytes + engineBytes + HOST_RESERVE_BYTES };
}

/** What the engine's share is, in words, for a refusal. */
export function engineShareWords(engine: EngineId): string {
  return engine === 'torch' ? "the torch engine's Python process and float64 checks" : `the ${engine} engine's copies of the inputs and the product`;
}
