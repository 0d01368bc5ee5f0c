// The `tfjs-node-gpu` engine: native TensorFlow on an NVIDIA GPU (@tensorflow/tfjs-node-gpu,
// optional). Its libtensorflow 2.x needs CUDA 11.2 and cuDNN 8.1; with other versions it
// loads anyway and silently computes on the CPU, which must not be reported as a GPU result.
import type { EngineCapabilities, BenchPlan } from '../../../core/bench/plan';
import type { EngineOutcome } from '../../../core/bench/model';
import { NativeTfEngine } from './nativeEngine';
import type { NativeTf } from './nativeTf';

/** PROBES.md's diagnosis hint for `tfjs-cuda-mismatch`. */
export const TFJS_CUDA_HINT =
  'TensorFlow.js GPU needs CUDA 11.2 and cuDNN 8.1 (libcudart.so.11.0 and libcudnn.so.8 on the library path, e.g. LD_LIBRARY_PATH); install them beside your current CUDA, or use the torch engine for this GPU.';

/** The backend object of tfjs-node exposes these (NodeJSKernelBackend). */
interface NativeBackend {
  isGPUPackage?: boolean;
  isUsingGpuDevice?: boolean;
}

export class TfjsNodeGpuEngine extends NativeTfEngine {
  readonly id = 'tfjs-node-gpu' as const;
  /** TensorFlow places ops on its first visible GPU: that is cuda:0 (CUDA_VISIBLE_DEVICES applies). */
  readonly capabilities: EngineCapabilities = { engine: 'tfjs-node-gpu', dtypes: ['float32'], devices: [/^cuda(:0)?$/] };
  protected readonly packageName = '@tensorflow/tfjs-node-gpu' as const;

  async devices(): Promise<string[]> {
    return (await this.availability()) === 'ok' ? ['cuda:0'] : [];
  }

  protected checkLoaded(native: NativeTf): EngineOutcome | null {
    const backend = native.tf.backend() as unknown as NativeBackend;
    if (backend.isUsingGpuDevice === true) return null;
    return {
      status: 'tfjs-cuda-mismatch',
      engine: this.id,
      device: 'cuda:0',
      dtype: null,
      size: null,
      message: `${this.packageName} ${native.version} loaded, but TensorFlow registered no GPU: it would run on the CPU.`,
      remedy: TFJS_CUDA_HINT,
    };
  }

  /** GPU memory comes from the device report; without it the check is skipped (TensorFlow reports OOM as a failure). */
  protected withFreeMemory(plan: BenchPlan): BenchPlan {
    return plan;
  }
}
