// From the tools' raw runs to the device report: the one call the worker needs.
import { amdAccelerators, appleAccelerators, nvidiaAccelerators, torchOnlyAccelerators, type NvidiaInventory } from './accelerators';
import { parseRocmSmiJson, parseSysfsDrmCard, type AmdGpuRow, type SysfsDrmCard } from './amd';
import { parseAmdSmiJson } from './amdSmi';
import { parseSystemProfilerDisplays } from './apple';
import { assembleReport } from './assemble';
import { diagnose, type DiagnosisFacts, type TfjsFacts } from './diagnosis';
import { buildHostInfo, type HostFacts } from './host';
import { readNvidiaInventory, type NvidiaSmiOutcome } from './nvidiaFailure';
import { parseNvidiaCudaVersion, parseNvidiaMigList } from './nvidiaSmi';
import type { Accelerator, DeviceReport, HostInfo, Problem, TorchStatus } from './report';
import { selectDevice } from './select';
import { isTimeout, secondsText, succeeded, type ToolRun } from './toolRun';
import { torchStatusFromRun } from './torchProbe';
import { parseNvidiaTopology, parseRocmTopology, type ParsedTopology, type Topology } from './topology';

/** Everything the worker ran; a tool that was not run (wrong platform) is null or absent. */
export interface ProbeRuns {
  host: HostFacts;
  /** nvidia-smi: the inventory query (NVIDIA_QUERY_ARGS), `-q` and `-L` (skip those two when the query failed). */
  nvidia?: { query: ToolRun; details?: ToolRun | null; list?: ToolRun | null; topology?: ToolRun | null } | null;
  /** rocm-smi with ROCM_SMI_ARGS. */
  rocmSmi?: ToolRun | null;
  /** rocm-smi --showtopo, asked with two AMD GPUs or more. */
  rocmTopology?: ToolRun | null;
  /** amd-smi with AMD_SMI_STATIC_ARGS and AMD_SMI_METRIC_ARGS. */
  amdSmi?: { static: ToolRun; metric?: ToolRun | null } | null;
  /** /sys/class/drm/card*\/device/ files, read without any tool. */
  sysfsCards?: SysfsDrmCard[];
  /** PCI display and 3D controllers from /sys/bus/pci/devices (Linux); null when unknown. */
  pciDisplayDevices?: Array<{ busId: string; vendor: string }> | null;
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

interface NvidiaFindings extends NvidiaInventory {
  outcome: NvidiaSmiOutcome;
  problems: Problem[];
}

function nvidiaFindings(runs: NonNullable<ProbeRuns['nvidia']>): NvidiaFindings {
  const { kind, rows, problems } = readNvidiaInventory(runs.query);
  const ok = (run: ToolRun | null | undefined): run is ToolRun => run !== null && run !== undefined && succeeded(run);
  return {
    outcome: kind,
    problems,
    rows,
    cudaVersion: ok(runs.details) ? parseNvidiaCudaVersion(runs.details.stdout) : null,
    listed: ok(runs.list) ? parseNvidiaMigList(runs.list.stdout) : [],
  };
}

/** A hung tool is worth saying; a missing or failing AMD/Apple tool is not (sysfs or nothing stands in). */
function timeoutProblem(source: Problem['source'], run: ToolRun | null | undefined): Problem[] {
  if (!run || !isTimeout(run)) return [];
  return [{ source, code: `${source}-timeout`, message: `${source} did not answer within ${secondsText(run.timeoutMs)} and was stopped`, hint: 'the GPU driver may be stuck; Device Doctor will try again later' }];
}

/** amd-smi, else rocm-smi, else sysfs: the first source that names any AMD GPU. */
function amdRows(runs: ProbeRuns): AmdGpuRow[] {
  const amdSmi = runs.amdSmi;
  if (amdSmi && succeeded(amdSmi.static)) {
    const metric = amdSmi.metric && succeeded(amdSmi.metric) ? [amdSmi.metric.stdout] : [];
    const { gpus } = parseAmdSmiJson(amdSmi.static.stdout, ...metric);
    if (gpus.length > 0) return gpus;
  }
  if (runs.rocmSmi && succeeded(runs.rocmSmi)) {
    const { gpus } = parseRocmSmiJson(runs.rocmSmi.stdout);
    if (gpus.length > 0) return gpus;
  }
  return (runs.sysfsCards ?? []).map(parseSysfsDrmCard).filter((row): row is AmdGpuRow => row !== null);
}

function appleAcceleratorsFrom(run: ToolRun | null | undefined, host: HostInfo): Accelerator[] {
  return run && succeeded(run) ? appleAccelerators(parseSystemProfilerDisplays(run.stdout).gpus, host) : [];
}

function allAccelerators(nvidia: NvidiaFindings | null, amd: AmdGpuRow[], runs: ProbeRuns, host: HostInfo, torch: TorchStatus | null): Accelerator[] {
  const fromTools = [
    ...(nvidia ? nvidiaAccelerators(nvidia, torch) : []),
    ...amdAccelerators(amd, torch),
    ...appleAcceleratorsFrom(runs.systemProfiler, host),
  ];
  const seenByTools = fromTools.some((accelerator) => accelerator.api !== 'mps');
  if (seenByTools || !torch || 'error' in torch || !torch.cuda.available) return fromTools;
  return [...torchOnlyAccelerators(torch), ...fromTools];
}

/** The topology when nvidia-smi's topo -m (or rocm-smi --showtopo) answered one we can read (a failure there is no problem of the GPUs). */
function readTopology(run: ToolRun | null | undefined, parse: (text: string) => ParsedTopology): Topology | null {
  if (!run || !succeeded(run)) return null;
  const parsed = parse(run.stdout);
  return parsed.ok && parsed.topology.devices.filter((d) => d.kind === 'gpu').length >= 2 ? parsed.topology : null;
}

export function buildDeviceReport(runs: ProbeRuns): DeviceReport {
  const host = buildHostInfo(runs.host);
  const torch = runs.torch ? torchStatusFromRun(runs.torch.run, runs.torch.interpreter) : null;
  const nvidia = runs.nvidia ? nvidiaFindings(runs.nvidia) : null;
  const amd = amdRows(runs);
  const accelerators = allAccelerators(nvidia, amd, runs, host, torch);
  const toolProblems = [
    ...(nvidia?.problems ?? []),
    ...timeoutProblem('rocm-smi', runs.rocmSmi),
    ...timeoutProblem('amd-smi', runs.amdSmi?.static),
    ...timeoutProblem('system_profiler', runs.systemProfiler),
  ];
  const facts: DiagnosisFacts = {
    platform: host.platform,
    torch,
    nvidia: nvidia && { outcome: nvidia.outcome, gpuCount: nvidia.rows.length, cudaVersion: nvidia.cudaVersion },
    amdGpuCount: amd.length,
    nvidiaPciDevices: runs.pciDisplayDevices ? runs.pciDisplayDevices.filter((d) => d.vendor.toLowerCase() === '0x10de').length : null,
    toolProblems,
    cudaVisibleDevices: runs.cudaVisibleDevices,
    tfjs: runs.tfjs,
  };
  const topology = readTopology(runs.nvidia?.topology, parseNvidiaTopology) ?? readTopology(runs.rocmTopology, parseRocmTopology);
  return assembleReport({ host, accelerators, torch, selected: selectDevice(torch, accelerators, runs.pinnedDevice), problems: diagnose(facts), topology });
}
