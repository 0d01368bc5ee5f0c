// TensorFlow.js's GPU package (@tensorflow/tfjs-node-gpu), for the tfjs-cuda-mismatch
// diagnosis: does it load, and does TensorFlow register a GPU? Loading it starts libtensorflow
// and CUDA inside the worker (seconds, and GPU memory), so it is asked only where the answer
// can matter: the package resolves (nothing is required before that) and nvidia-smi listed a
// GPU. The bench engine does the loading, so detect and a benchmark share one load (cached).
import type { TfjsFacts } from '../../../core/devices/diagnosis';
import { readNvidiaInventory } from '../../../core/devices/nvidiaFailure';
import { nativeTfInstalled } from '../../engines/tfjs/nativeTf';
import { TfjsNodeGpuEngine } from '../../engines/tfjs/tfjsNodeGpu';
import type { LogFn } from './probeContext';
import type { NvidiaSmiRuns } from './nvidiaSmi';

export const TFJS_GPU_PACKAGE = '@tensorflow/tfjs-node-gpu' as const;

export interface TfjsGpuProbeOptions {
  /** Folders whose node_modules may hold the package (the extension's global storage), searched before the bundle's own. */
  searchPaths: readonly string[];
  log: LogFn;
}

/** The request's folders; a careless client's non-list or non-string entries are dropped, not thrown on. */
export function nativeSearchPathsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === 'string' && entry !== '') : [];
}

function nvidiaGpuListed(nvidia: NvidiaSmiRuns | null): boolean {
  return nvidia !== null && readNvidiaInventory(nvidia.query).rows.length > 0;
}

/**
 * null: not asked (package absent, or no NVIDIA GPU). A package that is installed but does not
 * load is a fact (loaded: false), not a mismatch: TensorFlow never got to look for a GPU, and
 * the engines list already says why with its remedy; the log says it here.
 */
export async function probeTfjsGpu(options: TfjsGpuProbeOptions, nvidia: Promise<NvidiaSmiRuns | null>): Promise<TfjsFacts | null> {
  if (!nativeTfInstalled(TFJS_GPU_PACKAGE, options.searchPaths)) return null;
  if (!nvidiaGpuListed(await nvidia)) {
    options.log('debug', `${TFJS_GPU_PACKAGE} is installed but nvidia-smi listed no GPU: not loaded`);
    return null;
  }
  const availability = await new TfjsNodeGpuEngine({ searchPaths: options.searchPaths }).availability();
  if (availability === 'ok') return { gpuPackageLoaded: true, gpuRegistered: true };
  if (availability.status === 'tfjs-cuda-mismatch') return { gpuPackageLoaded: true, gpuRegistered: false };
  // Removed since it resolved a moment ago: as if it never was.
  if (availability.status === 'not-installed') return null;
  options.log('warn', `${TFJS_GPU_PACKAGE}: ${availability.message}`);
  return { gpuPackageLoaded: false, gpuRegistered: false };
}
