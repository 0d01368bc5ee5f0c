// What the diagnosis rules look at, apart from diagnosis.ts so the rules (diagnosisRules.ts)
// and the function that runs them do not import each other.
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
