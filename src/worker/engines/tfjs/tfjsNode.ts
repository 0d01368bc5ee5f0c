// The `tfjs-node` engine: native TensorFlow on the CPU (@tensorflow/tfjs-node, optional).
import type { EngineCapabilities, BenchPlan } from '../../../core/bench/plan';
import type { EngineOutcome } from '../../../core/bench/model';
import { withHostFreeMemory } from '../hostMemory';
import { NativeTfEngine } from './nativeEngine';
import type { NativeTf } from './nativeTf';

export class TfjsNodeEngine extends NativeTfEngine {
  readonly id = 'tfjs-node' as const;
  readonly capabilities: EngineCapabilities = { engine: 'tfjs-node', dtypes: ['float32'], devices: ['cpu'] };
  protected readonly packageName = '@tensorflow/tfjs-node' as const;

  async devices(): Promise<string[]> {
    return (await this.availability()) === 'ok' ? ['cpu'] : [];
  }

  protected checkLoaded(_native: NativeTf): EngineOutcome | null {
    return null;
  }

  protected withFreeMemory(plan: BenchPlan): BenchPlan {
    return withHostFreeMemory(plan);
  }
}
