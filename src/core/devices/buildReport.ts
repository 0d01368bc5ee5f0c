// From the tools' raw runs to the device report: the one call the worker needs.
import type { SysfsDrmCard } from './amd';
import { assembleReport } from './assemble';
import type { TfjsFacts } from './diagnosis';
import { buildHostInfo, type HostFacts } from './host';
import type { DeviceReport } from './report';
import type { ToolRun } from './toolRun';

/** Everything the worker ran; a tool that was not run (wrong platform) is null or absent. */
export interface ProbeRuns {
  host: HostFacts;
  /** nvidia-smi: the inventory query (NVIDIA_QUERY_ARGS), `-q` and `-L` (skip those two when the query failed). */
  nvidia?: { query: ToolRun; details?: ToolRun | null; list?: ToolRun | null } | null;
  /** rocm-smi with ROCM_SMI_ARGS. */
  rocmSmi?: ToolRun | null;
  /** amd-smi with AMD_SMI_STATIC_ARGS and AMD_SMI_METRIC_ARGS. */
  amdSmi?: { static: ToolRun; metric?: ToolRun | null } | null;
  /** /sys/class/drm/card*\/device/ files, read without any tool. */
  sysfsCards?: SysfsDrmCard[];
  /** system_profiler with SYSTEM_PROFILER_ARGS (macOS). */
  systemProfiler?: ToolRun | null;
  /** probe.py run by the user's interpreter; null when no interpreter may be run. */
  torch?: { interpreter: string; run: ToolRun } | null;
  /** deviceDoctor.device, e.g. "cuda:1". */
  pinnedDevice: string | null;
  /** The worker's CUDA_VISIBLE_DEVICES (probe.py reports the interpreter's own). */
  cudaVisibleDevices?: string | null;
  tfjs?: TfjsFacts | null;
}

export function buildDeviceReport(runs: ProbeRuns): DeviceReport {
  return assembleReport({
    host: buildHostInfo(runs.host),
    accelerators: [],
    torch: null,
    selected: { device: 'cpu', reason: 'no accelerator is available to PyTorch' },
    problems: [],
  });
}
