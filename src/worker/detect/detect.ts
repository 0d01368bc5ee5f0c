// One detect: every probe for this platform at once, then the core turns the raw runs
// into the device report. Used by the worker's `detect` method and, in-process, by the
// CLI. A probe that throws becomes a failed run in the report, never a failed detect;
// only cancellation ends a detect early.
import { buildDeviceReport, type DeviceReport, type ProbeRuns, type ToolRun } from '../../core/devices';
import type { ProbeOptions } from '../../protocol/worker';
import { probeAmdSmi } from './probes/amdSmi';
import { timedOut, unwrapGated, type LogFn, type ProbeContext } from './probes/probeContext';
import { probeHost } from './probes/host';
import { probeNvidiaSmi, type NvidiaSmiRuns } from './probes/nvidiaSmi';
import { CancelledError, type ProbeGate } from './probes/probeGate';
import { probeRocmSmi, probeRocmTopology } from './probes/rocmSmi';
import { parseRocmSmiJson } from '../../core/devices/amd';
import { succeeded } from '../../core/devices/toolRun';
import { probePciDisplayDevices, SYSFS_PCI_ROOT } from './probes/pci';
import { probeSysfs, SYSFS_DRM_ROOT } from './probes/sysfs';
import { probeSystemProfiler } from './probes/systemProfiler';
import { nativeSearchPathsOf, probeTfjsGpu } from './probes/tfjsGpu';
import { probeTorch, probeScriptPath, type TorchProbeRun } from './probes/torch';
import { interpreterStamp, type TorchProbeCache } from '../interpreters/probeCache';

export interface DetectEnvironment {
  gate: ProbeGate;
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  log: LogFn;
  /** Where the DRM cards are; tests point it at a fixture. */
  sysfsDrmRoot?: string;
  /** Test hook: a fake /sys/bus/pci/devices. */
  sysfsPciRoot?: string;
  probeScript?: string;
  /** The probe's run from a process already started for this interpreter (a bench's TorchHost: torch imported once). */
  torchProbeRun?: (interpreter: string) => Promise<ToolRun> | null;
  /** Earlier probe runs by interpreter; consulted unless the options ask for a refresh. */
  torchProbes?: TorchProbeCache;
}

/** A tool that hung (killed after its timeout) or is still backing off after a hang. */
export interface Hang {
  kind: string;
  /** When the tool will be run again. */
  retryAt: number | undefined;
  /** true: it hung during this detect; false: this detect reused the hung run. */
  fresh: boolean;
}

export interface DetectOutcome {
  report: DeviceReport;
  runs: ProbeRuns;
  hangs: Hang[];
}

function failedRun(err: unknown): ToolRun {
  const message = err instanceof Error ? err.message : String(err);
  return { exitCode: null, stdout: '', stderr: message, errorCode: 'ERROR' };
}

/** Runs one probe; an unexpected exception is logged and becomes `fallback(err)`. Cancellation passes through. */
async function guarded<T>(name: string, log: LogFn, probe: () => Promise<T>, fallback: (err: unknown) => T): Promise<T> {
  try {
    return await probe();
  } catch (err) {
    if (err instanceof CancelledError) throw err;
    log('error', `the ${name} probe failed unexpectedly: ${err instanceof Error ? err.message : String(err)}`);
    return fallback(err);
  }
}

function nvidiaForPlatform(ctx: ProbeContext): Promise<NvidiaSmiRuns | null> {
  // nvidia-smi exists on Linux and Windows; macOS has had no NVIDIA driver for years.
  return ctx.platform === 'darwin' ? Promise.resolve(null) : probeNvidiaSmi(ctx);
}

async function torchFor(ctx: ProbeContext, options: ProbeOptions, script: string, environment: DetectEnvironment): Promise<TorchProbeRun | null> {
  // null (or, from a careless client, missing or empty): no interpreter may be run.
  const interpreter = options.pythonPath;
  if (!interpreter) return null;
  const cache = environment.torchProbes;
  const cached = options.refresh ? undefined : cache?.run(interpreter);
  if (cached) {
    ctx.log('debug', `PyTorch probe (${interpreter}): reusing the last answer, nothing changed in the interpreter or its packages`);
    return { interpreter, run: cached };
  }
  const stamp = cache && interpreterStamp(interpreter);
  const served = environment.torchProbeRun?.(interpreter);
  const probed = served ? await servedThroughGate(ctx, interpreter, served) : await probeTorch(ctx, interpreter, script);
  if (cache && stamp !== undefined && probed.retryAt === undefined) cache.remember(interpreter, probed.run, stamp);
  return probed;
}

/**
 * Under the probe's own gate kind, so that a probe of the same interpreter asked for meanwhile
 * (interpreter discovery beside detect) waits for this process instead of importing torch again.
 */
async function servedThroughGate(ctx: ProbeContext, interpreter: string, served: Promise<ToolRun>): Promise<TorchProbeRun> {
  const gated = await ctx.gate.run(`torch:${interpreter}`, () => served, timedOut, ctx.signal);
  const run = unwrapGated(ctx, `PyTorch probe (${interpreter})`, gated);
  return gated.status === 'backing-off' ? { interpreter, run, retryAt: gated.retryAt } : { interpreter, run };
}

function hangOf(kind: string, gateKind: string, runs: ToolRun[], retryAt: number | undefined, gate: ProbeGate): Hang | null {
  if (!runs.some((run) => run.errorCode === 'TIMEOUT')) return null;
  return { kind, retryAt: retryAt ?? gate.retryAt(gateKind), fresh: retryAt === undefined };
}

function collectHangs(nvidia: NvidiaSmiRuns | null, torch: TorchProbeRun | null, gate: ProbeGate): Hang[] {
  const hangs = [
    nvidia && hangOf('nvidia-smi', 'nvidia-smi', [nvidia.query, nvidia.details, nvidia.list].filter((r): r is ToolRun => r !== null), nvidia.retryAt, gate),
    torch && hangOf(`the PyTorch probe (${torch.interpreter})`, `torch:${torch.interpreter}`, [torch.run], torch.retryAt, gate),
  ];
  return hangs.filter((hang): hang is Hang => hang !== null);
}

export async function detectDevices(options: ProbeOptions, environment: DetectEnvironment, signal?: AbortSignal): Promise<DetectOutcome> {
  const { log, platform } = environment;
  const ctx: ProbeContext = { gate: environment.gate, timeoutMs: options.timeoutMs, env: environment.env, platform, signal, log };
  const script = environment.probeScript ?? probeScriptPath();
  const nvidiaRuns = guarded('nvidia-smi', log, () => nvidiaForPlatform(ctx), (err): NvidiaSmiRuns => ({ query: failedRun(err), details: null, list: null }));
  const [host, nvidia, rocmSmi, amdSmi, sysfsCards, systemProfiler, torch, pciDisplayDevices, tfjs] = await Promise.all([
    probeHost(platform),
    nvidiaRuns,
    guarded('rocm-smi', log, () => probeRocmSmi(ctx), failedRun),
    guarded('amd-smi', log, () => probeAmdSmi(ctx), (err) => ({ static: failedRun(err), metric: null })),
    guarded('sysfs', log, () => probeSysfs(platform, environment.sysfsDrmRoot ?? SYSFS_DRM_ROOT), () => []),
    guarded('system_profiler', log, () => probeSystemProfiler(ctx), failedRun),
    guarded('PyTorch', log, () => torchFor(ctx, options, script, environment), (err) => ({ interpreter: options.pythonPath ?? '', run: failedRun(err) })),
    guarded('PCI bus', log, () => probePciDisplayDevices(platform, environment.sysfsPciRoot ?? SYSFS_PCI_ROOT), () => null),
    // Waits for nvidia-smi's inventory (it loads only beside an NVIDIA GPU), while PyTorch's import runs.
    guarded('TensorFlow.js GPU', log, () => probeTfjsGpu({ searchPaths: nativeSearchPathsOf(options.nativeSearchPaths), log }, nvidiaRuns), () => null),
  ]);
  if (signal?.aborted) throw new CancelledError();
  // Two AMD GPUs or more: how they are linked (one GPU has no links).
  const rocmTopology = rocmSmi && succeeded(rocmSmi) && parseRocmSmiJson(rocmSmi.stdout).gpus.length >= 2
    ? await guarded('rocm-smi --showtopo', log, () => probeRocmTopology(ctx), failedRun)
    : null;
  const runs: ProbeRuns = {
    host,
    nvidia,
    rocmSmi,
    rocmTopology,
    amdSmi,
    sysfsCards,
    pciDisplayDevices,
    systemProfiler,
    torch: torch && { interpreter: torch.interpreter, run: torch.run },
    pinnedDevice: options.pinnedDevice,
    cudaVisibleDevices: environment.env.CUDA_VISIBLE_DEVICES ?? null,
    tfjs,
  };
  return { report: buildDeviceReport(runs), runs, hangs: collectHangs(nvidia, torch, environment.gate) };
}
