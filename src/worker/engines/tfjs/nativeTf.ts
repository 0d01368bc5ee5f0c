// Loads native TensorFlow.js (@tensorflow/tfjs-node or -gpu) at run time. Both are
// optionalDependencies that download libtensorflow when installed, so they are often
// absent; the extension can also install them later into its global storage, whose folder
// is passed in searchPaths. Absent or broken is a result with a remedy, never a crash.
import * as path from 'path';
import type { Tf } from './tfjsRuntime';

export type NativePackage = '@tensorflow/tfjs-node' | '@tensorflow/tfjs-node-gpu';

/** The version the extension installs: tfjs-node must match the bundled tfjs-core (4.22.0). */
export const NATIVE_TF_VERSION = '4.22.0';

export interface NativeTf {
  tf: Tf;
  /** Folder of the loaded package. */
  packageDir: string;
  version: string;
}

export type NativeLoad =
  | { kind: 'loaded'; native: NativeTf }
  /** Not found in searchPaths nor next to this module. */
  | { kind: 'not-installed'; message: string }
  /** Found, but requiring it threw (libtensorflow missing, wrong platform, ABI). */
  | { kind: 'broken'; packageDir: string; message: string };

const loaded = new Map<NativePackage, NativeLoad & { kind: 'loaded' }>();

/**
 * Finds and requires the package: first in each of searchPaths (a folder whose
 * node_modules holds it, as `npm install --prefix <folder>` leaves it), then from here.
 * searchPathsOnly: not from here (tests, and callers that want only the extension's copy).
 * Only a successful load is cached, so an install made meanwhile is found by the next call.
 */
export function loadNativeTf(packageName: NativePackage, searchPaths: readonly string[] = [], searchPathsOnly = false): NativeLoad {
  const cached = loaded.get(packageName);
  if (cached) return cached;
  const entry = resolvePackage(packageName, searchPaths, searchPathsOnly);
  if (!entry) return { kind: 'not-installed', message: `${packageName} is not installed.` };
  const packageDir = packageRoot(entry, packageName);
  quietTensorFlow(packageName);
  try {
    const tf = require(entry) as Tf & { version?: Record<string, string> };
    const version = tf.version?.['tfjs-node'] ?? tf.version?.['tfjs-core'] ?? 'unknown';
    const result = { kind: 'loaded' as const, native: { tf, packageDir, version } };
    loaded.set(packageName, result);
    return result;
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    return { kind: 'broken', packageDir, message: `${packageName} is installed in ${packageDir} but does not load: ${text.split('\n')[0]}` };
  }
}

/**
 * Whether the package resolves from searchPaths (or from here), without requiring it: loading
 * starts libtensorflow, so a caller that only needs it when installed asks this first.
 */
export function nativeTfInstalled(packageName: NativePackage, searchPaths: readonly string[] = [], searchPathsOnly = false): boolean {
  return loaded.has(packageName) || resolvePackage(packageName, searchPaths, searchPathsOnly) !== null;
}

function resolvePackage(packageName: NativePackage, searchPaths: readonly string[], searchPathsOnly: boolean): string | null {
  const places = searchPaths.map((p): string[] | undefined => [p]);
  if (!searchPathsOnly) places.push(undefined);
  for (const paths of places) {
    try {
      return require.resolve(packageName, paths ? { paths } : undefined);
    } catch {
      // not in this place; try the next
    }
  }
  return null;
}

/** .../node_modules/@tensorflow/tfjs-node/dist/index.js → .../node_modules/@tensorflow/tfjs-node */
function packageRoot(entry: string, packageName: string): string {
  const marker = path.join('node_modules', ...packageName.split('/'));
  const at = entry.lastIndexOf(marker);
  return at >= 0 ? entry.slice(0, at + marker.length) : path.dirname(entry);
}

/**
 * Before TensorFlow starts: keep its C++ info lines off our stderr, and let the GPU build
 * take GPU memory as needed instead of nearly all of it up front, which would starve the
 * user's PyTorch. The user's own settings of these variables win.
 */
function quietTensorFlow(packageName: NativePackage): void {
  process.env.TF_CPP_MIN_LOG_LEVEL ??= '2';
  if (packageName === '@tensorflow/tfjs-node-gpu') process.env.TF_FORCE_GPU_ALLOW_GROWTH ??= 'true';
}

/** Forget cached loads (tests). */
export function resetNativeTfCache(): void {
  loaded.clear();
}
