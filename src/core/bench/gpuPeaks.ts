// Datasheet peaks of common accelerators, for "% of peak": dense (not the 2:4-sparse figures
// datasheets print beside them) TFLOP/s for fp32 (CUDA cores / vector ALUs; AMD's matrix
// fp32 where MFMA runs it, since torch.matmul uses it), tf32, bf16 and fp16 tensor/matrix
// cores, and memory bandwidth in GB/s. null: the part has no such unit (V100 and T4 have no
// tf32 or bf16 tensor cores). GeForce cards are given with fp32 accumulation, which PyTorch
// uses for fp16/bf16 matmuls (half the fp16-accumulate figure on those cards).
//
// Sources (vendor datasheets and whitepapers):
//   NVIDIA H200: "NVIDIA H200 Tensor Core GPU" datasheet (2024), SXM and NVL columns (dense: half
//     the with-sparsity tensor figures it prints). torch names the SXM part "NVIDIA H200"; the
//     NVL part (600 W) is matched first by its suffix.
//   NVIDIA H100: "NVIDIA H100 Tensor Core GPU" datasheet (2023), SXM / PCIe / NVL columns.
//   NVIDIA A100: "NVIDIA A100 Tensor Core GPU" datasheet (2021); 40 GB parts: 1555 GB/s.
//   NVIDIA A10, L4, L40, L40S, T4, V100: their product datasheets.
//   NVIDIA RTX A6000: "NVIDIA RTX A6000" datasheet.
//   GeForce RTX 3080/3090: "NVIDIA Ampere GA102 GPU Architecture" whitepaper, appendix A.
//   GeForce RTX 4080/4090: "NVIDIA Ada GPU Architecture" whitepaper, appendix A.
//   GeForce RTX 5090: "NVIDIA RTX Blackwell GPU Architecture" whitepaper, appendix.
//   AMD Instinct MI100, MI210, MI250, MI250X, MI300X, MI325X: amd.com product pages / datasheets.
//   Apple M1–M4 (GPU of the largest configuration of each chip): Apple's announcements;
//     Apple publishes fp32 only; its GPUs run fp16 at the fp32 rate and have no tf32.

export interface GpuPeak {
  /** What it matched, e.g. "NVIDIA H100 SXM". */
  name: string;
  fp32: number;
  tf32: number | null;
  bf16: number | null;
  fp16: number | null;
  /** Device memory bandwidth, GB/s. */
  bandwidthGBs: number;
}

interface Entry extends GpuPeak {
  /** Tested against the device name (torch.cuda.get_device_name, nvidia-smi, system_profiler). */
  match: RegExp;
}

/** Most specific first: "H100 NVL" and "H100 PCIe" before "H100". */
const GPU_PEAKS: readonly Entry[] = [
  { match: /\bH200\b.*\bNVL\b/i, name: 'NVIDIA H200 NVL', fp32: 60, tf32: 417.5, bf16: 835.5, fp16: 835.5, bandwidthGBs: 4800 },
  { match: /\bH200\b/i, name: 'NVIDIA H200 SXM', fp32: 67, tf32: 494.7, bf16: 989.5, fp16: 989.5, bandwidthGBs: 4800 },
  { match: /\bH100\b.*\bNVL\b/i, name: 'NVIDIA H100 NVL', fp32: 60, tf32: 417.5, bf16: 835.5, fp16: 835.5, bandwidthGBs: 3900 },
  { match: /\bH100\b.*\bPCIe\b/i, name: 'NVIDIA H100 PCIe', fp32: 51, tf32: 378, bf16: 756, fp16: 756, bandwidthGBs: 2000 },
  { match: /\bH100\b/i, name: 'NVIDIA H100 SXM', fp32: 67, tf32: 494.7, bf16: 989.4, fp16: 989.4, bandwidthGBs: 3350 },
  { match: /\bA100\b.*\b40\s?GB\b/i, name: 'NVIDIA A100 40GB', fp32: 19.5, tf32: 156, bf16: 312, fp16: 312, bandwidthGBs: 1555 },
  { match: /\bA100\b.*\bPCIe\b/i, name: 'NVIDIA A100 80GB PCIe', fp32: 19.5, tf32: 156, bf16: 312, fp16: 312, bandwidthGBs: 1935 },
  { match: /\bA100\b/i, name: 'NVIDIA A100 80GB SXM', fp32: 19.5, tf32: 156, bf16: 312, fp16: 312, bandwidthGBs: 2039 },
  { match: /\bL40S\b/i, name: 'NVIDIA L40S', fp32: 91.6, tf32: 183, bf16: 362.05, fp16: 362.05, bandwidthGBs: 864 },
  { match: /\bL40\b/i, name: 'NVIDIA L40', fp32: 90.5, tf32: 90.5, bf16: 181.05, fp16: 181.05, bandwidthGBs: 864 },
  { match: /\bL4\b/i, name: 'NVIDIA L4', fp32: 30.3, tf32: 60, bf16: 121, fp16: 121, bandwidthGBs: 300 },
  { match: /\bA10\b(?!0)/i, name: 'NVIDIA A10', fp32: 31.2, tf32: 62.5, bf16: 125, fp16: 125, bandwidthGBs: 600 },
  { match: /\bV100\b.*\bPCIe\b/i, name: 'NVIDIA V100 PCIe', fp32: 14, tf32: null, bf16: null, fp16: 112, bandwidthGBs: 900 },
  { match: /\bV100\b/i, name: 'NVIDIA V100 SXM2', fp32: 15.7, tf32: null, bf16: null, fp16: 125, bandwidthGBs: 900 },
  { match: /\bT4\b/i, name: 'NVIDIA T4', fp32: 8.1, tf32: null, bf16: null, fp16: 65, bandwidthGBs: 320 },
  { match: /\bRTX A6000\b/i, name: 'NVIDIA RTX A6000', fp32: 38.7, tf32: 77.4, bf16: 154.8, fp16: 154.8, bandwidthGBs: 768 },
  { match: /\bRTX 5090\b/i, name: 'GeForce RTX 5090', fp32: 104.8, tf32: 104.8, bf16: 209.5, fp16: 209.5, bandwidthGBs: 1792 },
  { match: /\bRTX 4090\b/i, name: 'GeForce RTX 4090', fp32: 82.6, tf32: 82.6, bf16: 165.2, fp16: 165.2, bandwidthGBs: 1008 },
  { match: /\bRTX 4080\b/i, name: 'GeForce RTX 4080', fp32: 48.7, tf32: 48.7, bf16: 97.5, fp16: 97.5, bandwidthGBs: 716.8 },
  { match: /\bRTX 3090\b/i, name: 'GeForce RTX 3090', fp32: 35.6, tf32: 35.6, bf16: 71, fp16: 71, bandwidthGBs: 936 },
  { match: /\bRTX 3080\b/i, name: 'GeForce RTX 3080', fp32: 29.8, tf32: 29.8, bf16: 59.5, fp16: 59.5, bandwidthGBs: 760 },
  { match: /\bMI325X\b/i, name: 'AMD Instinct MI325X', fp32: 163.4, tf32: 653.7, bf16: 1307.4, fp16: 1307.4, bandwidthGBs: 6000 },
  { match: /\bMI300X\b/i, name: 'AMD Instinct MI300X', fp32: 163.4, tf32: 653.7, bf16: 1307.4, fp16: 1307.4, bandwidthGBs: 5300 },
  { match: /\bMI250X\b/i, name: 'AMD Instinct MI250X', fp32: 95.7, tf32: null, bf16: 383, fp16: 383, bandwidthGBs: 3277 },
  { match: /\bMI250\b/i, name: 'AMD Instinct MI250', fp32: 90.5, tf32: null, bf16: 362.1, fp16: 362.1, bandwidthGBs: 3277 },
  { match: /\bMI210\b/i, name: 'AMD Instinct MI210', fp32: 45.3, tf32: null, bf16: 181, fp16: 181, bandwidthGBs: 1638 },
  { match: /\bMI100\b/i, name: 'AMD Instinct MI100', fp32: 46.1, tf32: null, bf16: 92.3, fp16: 184.6, bandwidthGBs: 1228 },
  { match: /\bM4 Max\b/i, name: 'Apple M4 Max (40-core GPU)', fp32: 18.4, tf32: null, bf16: 18.4, fp16: 18.4, bandwidthGBs: 546 },
  { match: /\bM4 Pro\b/i, name: 'Apple M4 Pro (20-core GPU)', fp32: 9.2, tf32: null, bf16: 9.2, fp16: 9.2, bandwidthGBs: 273 },
  { match: /\bM4\b/i, name: 'Apple M4 (10-core GPU)', fp32: 4.3, tf32: null, bf16: 4.3, fp16: 4.3, bandwidthGBs: 120 },
  { match: /\bM3 Max\b/i, name: 'Apple M3 Max (40-core GPU)', fp32: 16.4, tf32: null, bf16: 16.4, fp16: 16.4, bandwidthGBs: 400 },
  { match: /\bM3 Pro\b/i, name: 'Apple M3 Pro (18-core GPU)', fp32: 7.4, tf32: null, bf16: 7.4, fp16: 7.4, bandwidthGBs: 150 },
  { match: /\bM3\b/i, name: 'Apple M3 (10-core GPU)', fp32: 4.1, tf32: null, bf16: 4.1, fp16: 4.1, bandwidthGBs: 100 },
  { match: /\bM2 Ultra\b/i, name: 'Apple M2 Ultra (76-core GPU)', fp32: 27.2, tf32: null, bf16: 27.2, fp16: 27.2, bandwidthGBs: 800 },
  { match: /\bM2 Max\b/i, name: 'Apple M2 Max (38-core GPU)', fp32: 13.6, tf32: null, bf16: 13.6, fp16: 13.6, bandwidthGBs: 400 },
  { match: /\bM2 Pro\b/i, name: 'Apple M2 Pro (19-core GPU)', fp32: 6.8, tf32: null, bf16: 6.8, fp16: 6.8, bandwidthGBs: 200 },
  { match: /\bM2\b/i, name: 'Apple M2 (10-core GPU)', fp32: 3.6, tf32: null, bf16: 3.6, fp16: 3.6, bandwidthGBs: 100 },
  // M1 GPUs have no bf16 (MPS runs it from macOS 14 on M2 and later only).
  { match: /\bM1 Ultra\b/i, name: 'Apple M1 Ultra (64-core GPU)', fp32: 21, tf32: null, bf16: null, fp16: 21, bandwidthGBs: 800 },
  { match: /\bM1 Max\b/i, name: 'Apple M1 Max (32-core GPU)', fp32: 10.4, tf32: null, bf16: null, fp16: 10.4, bandwidthGBs: 400 },
  { match: /\bM1 Pro\b/i, name: 'Apple M1 Pro (16-core GPU)', fp32: 5.2, tf32: null, bf16: null, fp16: 5.2, bandwidthGBs: 200 },
  { match: /\bM1\b/i, name: 'Apple M1 (8-core GPU)', fp32: 2.6, tf32: null, bf16: null, fp16: 2.6, bandwidthGBs: 68.25 },
];

/** The datasheet peaks of the part whose name this is, or null when it is not in the table. */
export function gpuPeakByName(deviceName: string): GpuPeak | null {
  const entry = GPU_PEAKS.find((e) => e.match.test(deviceName));
  if (!entry) return null;
  const { match: _match, ...peak } = entry;
  return peak;
}

/** Every part in the table (for tests and documentation). */
export function knownGpuNames(): string[] {
  return GPU_PEAKS.map((e) => e.name);
}
