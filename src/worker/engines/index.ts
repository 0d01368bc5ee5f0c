// The TensorFlow.js engines, for the worker to pick from; the torch engine (a Python
// subprocess) joins them there.
import type { Engine } from './engine';
import { JsEngine } from './js';
import { TfjsNodeEngine } from './tfjs/tfjsNode';
import { TfjsNodeGpuEngine } from './tfjs/tfjsNodeGpu';
import { WasmEngine } from './wasm';

export type { Engine, RunOptions } from './engine';
export { JsEngine } from './js';
export { WasmEngine, findWasmDir, WASM_FILES } from './wasm';
export { TfjsNodeEngine } from './tfjs/tfjsNode';
export { TfjsNodeGpuEngine, TFJS_CUDA_HINT } from './tfjs/tfjsNodeGpu';
export { loadNativeTf, NATIVE_TF_VERSION } from './tfjs/nativeTf';
export type { NativeLoad, NativePackage } from './tfjs/nativeTf';

export interface TfjsEngineOptions {
  /** Folders with the tfjs wasm binaries, searched before the bundle's folder. */
  wasmDirs?: readonly string[];
  /** Folders whose node_modules may hold @tensorflow/tfjs-node(-gpu), e.g. the extension's global storage. */
  nativeSearchPaths?: readonly string[];
}

/** Every TensorFlow.js engine, fastest first: tfjs-node-gpu, tfjs-node, wasm, js. */
export function createTfjsEngines(options: TfjsEngineOptions = {}): Engine[] {
  const native = { searchPaths: options.nativeSearchPaths };
  return [new TfjsNodeGpuEngine(native), new TfjsNodeEngine(native), new WasmEngine({ wasmDirs: options.wasmDirs }), new JsEngine()];
}
