// The `wasm` engine: tfjs-backend-wasm (XNNPACK) with SIMD. Bundled, so always
// available: its .wasm files are copied next to the bundle (esbuild.js) and found at run
// time; from source (tests) they come from node_modules.
//
// Threads: tfjs-backend-wasm 4.22 reports no multithread support under Node.js (it would
// need its pthread worker as a Blob URL, which Node cannot start), so this engine runs on one
// thread and says so in its detail; SIMD works wherever WebAssembly SIMD validates (Node ≥ 16).
import * as fs from 'fs';
import * as path from 'path';
import { setWasmPaths, getThreadsCount } from '@tensorflow/tfjs-backend-wasm';
import type { EngineCapabilities, BenchPlan } from '../../core/bench/plan';
import type { EngineOutcome, RunResult } from '../../core/bench/model';
import type { Engine, RunOptions } from './engine';
import { withHostFreeMemory } from './hostMemory';
import { planMismatch } from './planGuard';
import { runTfjsMatmul } from './tfjs/tfjsRunner';
import { bundledTf, serialized, useBackend } from './tfjs/tfjsRuntime';

/** The binaries tfjs-backend-wasm may load in Node.js: with SIMD, and the fallback without. */
export const WASM_FILES = ['tfjs-backend-wasm-simd.wasm', 'tfjs-backend-wasm.wasm'] as const;
/** wasm32's heap is 4 GiB; keep 256 MiB for the slices, the runtime and fragmentation. */
export const WASM_MAX_BYTES = 4 * 1024 ** 3 - 256 * 1024 ** 2;
/** A timed matmul longer than this is split into row slices so that cancel lands within a second. */
export const WASM_SLICE_SEC = 0.25;

export interface WasmEngineOptions {
  /** Folders to look for the .wasm files in, before the bundle's own folder and node_modules. */
  wasmDirs?: readonly string[];
  /** Longest one timed matmul may take before it is timed in row slices (default WASM_SLICE_SEC). */
  sliceSec?: number;
}

/** The first folder holding the wasm binaries: the given ones, the bundle's (dist/), then the package's. */
export function findWasmDir(candidates: readonly string[] = []): string | null {
  const all = [...candidates, __dirname, packageWasmDir()].filter((d): d is string => !!d);
  return all.find((dir) => WASM_FILES.every((file) => fs.existsSync(path.join(dir, file)))) ?? null;
}

function packageWasmDir(): string | null {
  try {
    return path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm'));
  } catch {
    return null; // bundled: the package is not on disk, its files are next to the bundle
  }
}

interface WasmState {
  ok: boolean;
  detail: string;
  outcome?: EngineOutcome;
}

/** The wasm module is a process-wide singleton: located and started once. */
let started: Promise<WasmState> | null = null;

function startWasm(dirs: readonly string[]): Promise<WasmState> {
  started ??= serialized(async () => {
    const dir = findWasmDir(dirs);
    if (!dir) return { ok: false, detail: '', outcome: missingFiles(dirs) };
    try {
      setWasmPaths(dir + path.sep);
      const tf = bundledTf();
      await useBackend(tf, 'wasm');
      const simd = (await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT')) === true;
      const threads = getThreadsCount();
      const detail = `tfjs-backend-wasm ${tf.version_core}, ${simd ? 'SIMD' : 'no SIMD'}, ${threads} thread${threads === 1 ? '' : 's'}`;
      return { ok: true, detail };
    } catch (error) {
      return { ok: false, detail: '', outcome: startFailure(error) };
    }
  });
  return started;
}

function missingFiles(dirs: readonly string[]): EngineOutcome {
  return {
    status: 'failed',
    engine: 'wasm',
    device: 'cpu',
    dtype: null,
    size: null,
    message: `The wasm engine's binaries (${WASM_FILES.join(', ')}) are missing from ${[...dirs, __dirname].join(', ')}.`,
    remedy: 'Reinstall the extension (or run `npm run build` in a source checkout).',
  };
}

function startFailure(error: unknown): EngineOutcome {
  const text = error instanceof Error ? error.message : String((error as { message?: unknown })?.message ?? error);
  return {
    status: 'failed',
    engine: 'wasm',
    device: 'cpu',
    dtype: null,
    size: null,
    message: `The wasm engine did not start: ${text.split('\n')[0]}`,
    remedy: 'Reinstall the extension; the js engine still works meanwhile.',
  };
}

export class WasmEngine implements Engine {
  readonly id = 'wasm' as const;
  readonly capabilities: EngineCapabilities = { engine: 'wasm', dtypes: ['float32'], devices: ['cpu'], maxBytes: WASM_MAX_BYTES };

  constructor(private readonly options: WasmEngineOptions = {}) {}

  async devices(): Promise<string[]> {
    return (await this.availability()) === 'ok' ? ['cpu'] : [];
  }

  async availability(): Promise<EngineOutcome | 'ok'> {
    const state = await startWasm(this.options.wasmDirs ?? []);
    return state.ok ? 'ok' : state.outcome!;
  }

  async run(plan: BenchPlan, options?: RunOptions): Promise<RunResult> {
    const mismatch = planMismatch(plan, this.capabilities);
    if (mismatch) return mismatch;
    const state = await startWasm(this.options.wasmDirs ?? []);
    if (!state.ok) return { ...state.outcome!, dtype: plan.dtype, size: plan.size };
    const settings = { backend: 'wasm', detail: state.detail, sliceSec: this.options.sliceSec ?? WASM_SLICE_SEC, maxBytes: WASM_MAX_BYTES };
    return runTfjsMatmul(bundledTf(), withHostFreeMemory(plan), settings, options);
  }
}
