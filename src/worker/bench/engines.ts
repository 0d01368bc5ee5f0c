// The engines a benchmark can use, made for one request: the torch engine needs the
// interpreter and the device report of that request; the TensorFlow.js engines keep their
// loaded state in their modules, so making them again is cheap.
import type { DeviceReport } from '../../core/devices/report';
import { createTfjsEngines } from '../engines';
import type { Engine } from '../engines/engine';
import { TorchEngine, type TorchEngineOptions } from '../engines/torch/engine';

export interface BenchEngineOptions {
  python: string | null;
  report: DeviceReport;
  env?: NodeJS.ProcessEnv;
  /** Folders whose node_modules may hold native TensorFlow.js. */
  nativeSearchPaths?: readonly string[];
  /** Overrides for the torch engine (tests: another bench.py, shorter timeouts). */
  torch?: Partial<TorchEngineOptions>;
}

/** torch first (what the user's PyTorch gets), then tfjs-node-gpu, tfjs-node, wasm, js. */
export function createBenchEngines(options: BenchEngineOptions): Engine[] {
  const torch = new TorchEngine({ python: options.python, report: options.report, env: options.env, ...options.torch });
  return [torch, ...createTfjsEngines({ nativeSearchPaths: options.nativeSearchPaths })];
}
