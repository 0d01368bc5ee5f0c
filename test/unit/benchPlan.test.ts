import * as assert from 'assert';
import {
  EngineCapabilities,
  MAX_SIZE,
  checkMemory,
  formatBytes,
  largestFittingSize,
  matmulBytes,
  planBenchmark,
} from '../../src/core/bench/plan';

const GIB = 1024 ** 3;
const cpuOnly: EngineCapabilities = { engine: 'wasm', dtypes: ['float32'], devices: ['cpu'], maxBytes: 4 * GIB };
const torchCaps: EngineCapabilities = { engine: 'torch', dtypes: ['float32', 'float16', 'bfloat16'], devices: ['cpu', /^cuda(:\d+)?$/, 'mps'] };

function invalid(request: Parameters<typeof planBenchmark>[0], caps = torchCaps): string {
  const result = planBenchmark(request, caps);
  assert.strictEqual(result.kind, 'invalid', JSON.stringify(result));
  return (result as { message: string }).message;
}

describe('bench plan: validating a request', () => {
  it('a good request becomes a plan with defaults filled in', () => {
    const result = planBenchmark({ engine: 'torch', device: 'cuda:1', size: 2048 }, torchCaps);
    assert.strictEqual(result.kind, 'plan');
    if (result.kind !== 'plan') return;
    assert.deepStrictEqual(result.plan, {
      engine: 'torch',
      device: 'cuda:1',
      size: 2048,
      dtype: 'float32',
      // torch adapts its samples to a budget by default: at least 5 blocks in about 2 s at n = 2048.
      repeats: 5,
      repeatBudgetSec: 2,
      warmups: 1,
      neededBytes: 3 * 2048 * 2048 * 4,
      freeBytes: null,
      seed: 1,
      samples: 64,
    });
  });

  it('sizes must be whole numbers from 1 to MAX_SIZE', () => {
    for (const size of [0, -1, 1.5, NaN, MAX_SIZE + 1, 1e6]) {
      assert.match(invalid({ engine: 'torch', device: 'cpu', size }), /Matrix size must be a whole number from 1 to 32768/);
    }
    assert.strictEqual(planBenchmark({ engine: 'torch', device: 'cpu', size: MAX_SIZE }, torchCaps).kind, 'plan');
    assert.strictEqual(planBenchmark({ engine: 'torch', device: 'cpu', size: 1 }, torchCaps).kind, 'plan');
  });

  it('repeats must be 1 to 1000', () => {
    for (const repeats of [0, 1001, 2.5, -3]) {
      assert.match(invalid({ engine: 'torch', device: 'cpu', size: 64, repeats }), /Repeats must be a whole number from 1 to 1000, not/);
    }
    for (const repeats of [1, 1000]) assert.strictEqual(planBenchmark({ engine: 'torch', device: 'cpu', size: 64, repeats }, torchCaps).kind, 'plan');
  });

  it('an unknown dtype, engine or device name is an impossible request', () => {
    assert.match(invalid({ engine: 'torch', device: 'cpu', size: 64, dtype: 'float64' }), /Unknown dtype "float64": use float32, tf32 \(CUDA\), float16 or bfloat16/);
    assert.match(invalid({ engine: 'tpu', device: 'cpu', size: 64 }), /Unknown engine "tpu"/);
    assert.match(invalid({ engine: 'torch', device: 'gpu', size: 64 }), /Unknown device "gpu"/);
    assert.match(invalid({ engine: 'torch', device: 'cpu', size: 64, freeBytes: -5 }), /Free memory/);
  });

  it('a dtype the engine lacks is an "unsupported" outcome, not an error', () => {
    const result = planBenchmark({ engine: 'wasm', device: 'cpu', size: 256, dtype: 'float16' }, cpuOnly);
    assert.strictEqual(result.kind, 'outcome');
    if (result.kind !== 'outcome') return;
    assert.strictEqual(result.outcome.status, 'unsupported');
    assert.strictEqual(result.outcome.dtype, 'float16');
    assert.match(result.outcome.message, /wasm engine does not support float16; it runs float32/);
    assert.ok(result.outcome.remedy);
  });

  it('a device the engine does not serve, or that is not present, is a "no-device" outcome listing what is there', () => {
    const wrongKind = planBenchmark({ engine: 'wasm', device: 'cuda:0', size: 256 }, cpuOnly);
    assert.strictEqual(wrongKind.kind === 'outcome' && wrongKind.outcome.status, 'no-device');
    const absent = planBenchmark({ engine: 'torch', device: 'cuda:3', size: 256, availableDevices: ['cpu', 'cuda:0'] }, torchCaps);
    assert.strictEqual(absent.kind, 'outcome');
    if (absent.kind !== 'outcome') return;
    assert.strictEqual(absent.outcome.status, 'no-device');
    assert.match(absent.outcome.message, /no device cuda:3; it has cpu, cuda:0/);
  });
});

describe('bench plan: the memory check', () => {
  it('needs 3·n²·bytes per element', () => {
    assert.strictEqual(matmulBytes(1024, 'float32'), 12 * 1024 * 1024);
    assert.strictEqual(matmulBytes(1024, 'float16'), 6 * 1024 * 1024);
    assert.strictEqual(matmulBytes(1024, 'bfloat16'), 6 * 1024 * 1024);
  });

  it('refuses n = 1e6 on a 16 GiB device before anything is allocated, with the numbers', () => {
    const refusal = checkMemory({ engine: 'torch', device: 'cuda:0', dtype: 'float32', size: 1e6, freeBytes: 16 * GIB });
    assert.ok(refusal);
    assert.strictEqual(refusal.status, 'refused');
    assert.strictEqual(refusal.neededBytes, 3 * 1e12 * 4);
    assert.strictEqual(refusal.freeBytes, 16 * GIB);
    assert.match(refusal.message, /^Refused: n = 1000000 float32 needs 10\.9 TiB \(3 × n² × 4 bytes\), 16\.0 GiB free on cuda:0\.$/);
    assert.match(refusal.remedy ?? '', /up to 37837\b/);
  });

  it('a plan that does not fit becomes a refusal outcome', () => {
    const result = planBenchmark({ engine: 'torch', device: 'cuda:0', size: 32768, freeBytes: 8 * GIB }, torchCaps);
    assert.strictEqual(result.kind, 'outcome');
    if (result.kind !== 'outcome') return;
    assert.strictEqual(result.outcome.status, 'refused');
    assert.strictEqual(result.outcome.neededBytes, 12 * GIB);
  });

  it('exactly fitting is allowed; one byte short is refused', () => {
    const need = matmulBytes(4096, 'float16');
    assert.strictEqual(checkMemory({ engine: 'torch', device: 'mps', dtype: 'float16', size: 4096, freeBytes: need }), null);
    assert.strictEqual(checkMemory({ engine: 'torch', device: 'mps', dtype: 'float16', size: 4096, freeBytes: need - 1 })?.status, 'refused');
  });

  it('unknown free memory is not a refusal', () => {
    assert.strictEqual(checkMemory({ engine: 'torch', device: 'cuda:0', dtype: 'float32', size: 30000, freeBytes: null }), null);
  });

  it("the engine's own ceiling counts too, and the message names it", () => {
    const refusal = checkMemory({ engine: 'wasm', device: 'cpu', dtype: 'float32', size: 20000, freeBytes: 64 * GIB }, 4 * GIB);
    assert.strictEqual(refusal?.freeBytes, 4 * GIB);
    assert.match(refusal?.message ?? '', /free on the wasm engine's limit/);
    assert.strictEqual(planBenchmark({ engine: 'wasm', device: 'cpu', size: 20000 }, cpuOnly).kind, 'outcome');
  });

  it('largestFittingSize is the largest n that passes the check', () => {
    for (const bytes of [1e6, 16 * GIB, 123456789]) {
      const n = largestFittingSize(bytes, 'float32');
      assert.ok(matmulBytes(n, 'float32') <= bytes);
      assert.ok(matmulBytes(n + 1, 'float32') > bytes);
    }
  });

  it('formats bytes for people', () => {
    assert.strictEqual(formatBytes(512), '512 bytes');
    assert.strictEqual(formatBytes(1536), '1.5 KiB');
    assert.strictEqual(formatBytes(12 * GIB), '12.0 GiB');
  });
});
