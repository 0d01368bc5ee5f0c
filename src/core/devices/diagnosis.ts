// PROBES.md's diagnosis table: why PyTorch cannot use the GPU. The rows live in
// diagnosisRules.ts; this joins them with the problems of failed tools.
import { DIAGNOSIS_RULES } from './diagnosisRules';
import type { NvidiaSmiOutcome } from './nvidiaFailure';
import type { Problem, TorchStatus } from './report';

/** TensorFlow.js's GPU package, when the benchmark engines report on it (absent until then). */
export interface TfjsFacts {
  gpuPackageLoaded: boolean;
  gpuRegistered: boolean;
}

export interface DiagnosisFacts {
  /** process.platform of the machine ("linux", "darwin", "win32"). */
  platform: string;
  torch: TorchStatus | null;
  /** What nvidia-smi said; null when it was not run. */
  nvidia: { outcome: NvidiaSmiOutcome; gpuCount: number; cudaVersion: string | null } | null;
  amdGpuCount: number;
  /** NVIDIA display/3D controllers on the PCI bus (Linux sysfs); null when unknown. */
  nvidiaPciDevices?: number | null;
  /** Problems from failed tools (classifyNvidiaSmiFailure, AMD and Apple tools); reported first. */
  toolProblems: Problem[];
  /** The worker's own CUDA_VISIBLE_DEVICES, when torch's is unknown. */
  cudaVisibleDevices?: string | null;
  tfjs?: TfjsFacts | null;
}

/** Tool problems first, then the table's rows in order; one problem per code. */
export function diagnose(facts: DiagnosisFacts): Problem[] {
  const found = [...facts.toolProblems];
  for (const rule of DIAGNOSIS_RULES) {
    const problem = rule(facts);
    if (problem) found.push(problem);
  }
  return uniqueByCode(found);
}

function uniqueByCode(problems: Problem[]): Problem[] {
  const byCode = new Map<string, Problem>();
  for (const problem of problems) if (!byCode.has(problem.code)) byCode.set(problem.code, problem);
  return [...byCode.values()];
}
