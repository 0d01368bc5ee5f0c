// The torch engine with Debian's real PyTorch at small sizes: measurements built with the
// core's statistics, dtypes this torch lacks as 'unsupported', the correctness check
// catching an injected wrong product, the memory check refusing before anything spawns,
// clear outcomes for a missing torch, interpreter or device, and cancel within a second.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { isMeasured, type BenchProgress, type RunResult } from '../../src/core/bench/model';
import { planBenchmark, type BenchPlan } from '../../src/core/bench/plan';
import { TorchEngine, type TorchEngineOptions } from '../../src/worker/engines/torch/engine';
import { benchEnv, processesMatching, removeShims, type Shim } from './benchTorchKit';
import { DEBIAN_PYTHON, isAlive, requireDebianTorch, tempDir, waitFor } from './workerTestKit';

function engine(options: Partial<TorchEngineOptions> = {}, shim?: Shim): TorchEngine {
  return new TorchEngine({ python: DEBIAN_PYTHON, env: benchEnv(shim), ...options });
}

function plan(size: number, extra: { dtype?: string; repeats?: number; device?: string; seed?: number } = {}): BenchPlan {
  const planned = planBenchmark({ engine: 'torch', device: extra.device ?? 'cpu', size, dtype: extra.dtype, repeats: extra.repeats ?? 3, seed: extra.seed }, new TorchEngine({ python: null }).capabilities);
  assert.strictEqual(planned.kind, 'plan', JSON.stringify(planned));
  return (planned as { plan: BenchPlan }).plan;
}

function measured(run: RunResult) {
  assert.ok(isMeasured(run), `expected a measurement, got ${JSON.stringify(run)}`);
  return run.result;
}

function versionAtLeast(version: string, major: number, minor: number): boolean {
  const [a, b] = version.split('.').map((part) => parseInt(part, 10));
  return a > major || (a === major && b >= minor);
}

describe('torch engine (Debian PyTorch)', function () {
  this.timeout(120_000);
  let version: string;

  before(() => {
    version = requireDebianTorch();
  });
  after(() => removeShims());

  it('measures float32 at n = 64, 128 and 256 in one process, with the core statistics and a checked product', async () => {
    const progress: BenchProgress[] = [];
    const { runs, transfers } = await engine().runBatch({ plans: [plan(64), plan(128), plan(256)] }, { onProgress: (p) => progress.push(p) });
    assert.strictEqual(runs.length, 3);
    runs.forEach((run, i) => {
      const r = measured(run);
      assert.deepStrictEqual([r.engine, r.device, r.dtype, r.size, r.repeats, r.timesSec.length], ['torch', 'cpu', 'float32', [64, 128, 256][i], 3, 3]);
      const sorted = [...r.timesSec].sort((x, y) => x - y);
      assert.strictEqual(r.medianSec, sorted[1]);
      assert.ok(Math.abs(r.gflops - (2 * r.size ** 3) / r.medianSec / 1e9) < 1e-9 * r.gflops);
      assert.ok(r.maxRelError < 1e-5, `float32 error ${r.maxRelError}`);
      assert.strictEqual(r.checkedEntries, 64);
      assert.match(r.detail ?? '', new RegExp(`^torch ${version.replace(/[.+]/g, '\\$&')}, CPU, \\d+ threads?(, (OpenBLAS|MKL|BLIS) \\d+ threads?)?$`));
    });
    assert.deepStrictEqual(transfers, [], 'no transfers on the CPU');
    const phases = progress.filter((p) => p.size === 128).map((p) => `${p.phase}${p.phase === 'timing' ? p.done : ''}`);
    assert.deepStrictEqual(phases, ['preparing', 'warmup', 'timing1', 'timing2', 'timing3', 'checking']);
    assert.strictEqual(progress[0].phase, 'preparing', 'preparing is reported before torch is imported');
  });

  it('runs bfloat16 on the CPU where this torch supports it, and reports float16 as unsupported where it does not', async () => {
    const { runs } = await engine().runBatch({ plans: [plan(128, { dtype: 'bfloat16' }), plan(128, { dtype: 'float16' })] });
    const [bf16, fp16] = runs;
    if (versionAtLeast(version, 1, 10)) {
      const r = measured(bf16);
      assert.strictEqual(r.dtype, 'bfloat16');
      assert.ok(r.maxRelError > 1e-4 && r.maxRelError < 5e-2, `bfloat16 rounds to 8 bits: ${r.maxRelError}`);
    } else {
      assert.strictEqual(bf16.status, 'unsupported');
    }
    if (fp16.status === 'ok') {
      assert.ok(fp16.result.maxRelError < 1e-2);
    } else {
      assert.strictEqual(fp16.status, 'unsupported');
      assert.match((fp16 as { message: string }).message, /^This PyTorch cannot multiply float16 matrices on cpu: .*Half/);
      assert.match((fp16 as { remedy: string }).remedy, /bfloat16/);
    }
  });

  it('fails the run loudly when the product is wrong (test hook: bench.py corrupts entry [0, 0])', async () => {
    const run = await engine().run(plan(64), { corruptProduct: () => undefined });
    assert.strictEqual(run.status, 'wrong-result', JSON.stringify(run));
    const outcome = run as Exclude<RunResult, { status: 'ok' }>;
    assert.match(outcome.message, /^Wrong product: entry \[0, 0\] is [\d.]+, the float64 reference is [\d.]+ \(relative error/);
    assert.ok((outcome.maxRelError ?? 0) > 0.5);
    assert.strictEqual(outcome.threshold, 1e-3);
  });

  it('refuses a size that does not fit in the free memory of the device report before spawning anything', async () => {
    const dir = tempDir('dd-torch-refuse-');
    const marker = path.join(dir, 'ran');
    const python = path.join(dir, 'python');
    fs.writeFileSync(python, `#!/bin/sh\ntouch '${marker}'\nexec ${DEBIAN_PYTHON} "$@"\n`, { mode: 0o755 });
    const report = { host: { memory: { freeBytes: 64 * 1024 ** 2 } } } as never;
    const run = await new TorchEngine({ python, report, env: benchEnv() }).run(plan(4096));
    assert.strictEqual(run.status, 'refused', JSON.stringify(run));
    assert.match((run as { message: string }).message, /^Refused: n = 4096 float32 needs 192\.0 MiB \(3 × n² × 4 bytes\), 64\.0 MiB free on cpu\.$/);
    assert.strictEqual((run as { neededBytes: number }).neededBytes, 3 * 4096 * 4096 * 4);
    assert.ok(!fs.existsSync(marker), 'the interpreter must not have been started');
    // The plan's own free memory (from the planner) is checked too.
    assert.strictEqual((await engine({ python }).run({ ...plan(4096), freeBytes: 1024 })).status, 'refused');
    assert.ok(!fs.existsSync(marker));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('does not advise reinstalling PyTorch when its import hung in the probe', async () => {
    const report = { torch: { interpreter: DEBIAN_PYTHON, error: 'importing torch did not finish within 120 s; the probe was stopped' } } as never;
    const hung = await new TorchEngine({ python: DEBIAN_PYTHON, report, env: benchEnv() }).run(plan(64));
    assert.strictEqual(hung.status, 'not-installed');
    const remedy = (hung as { remedy: string }).remedy;
    assert.doesNotMatch(remedy, /pip install/);
    assert.match(remedy, /-c "import torch"` in a terminal/);
  });

  it('says torch is not installed when the interpreter cannot import it, or does not exist, with a remedy', async () => {
    const missing = await engine({}, 'no-torch').run(plan(64));
    assert.strictEqual(missing.status, 'not-installed');
    assert.match((missing as { message: string }).message, /^PyTorch is not usable with \/usr\/bin\/python3: No module named 'torch'$/);
    assert.match((missing as { remedy: string }).remedy, /-m pip install torch/);
    const absent = await engine({ python: '/nonexistent/python3' }).run(plan(64));
    assert.strictEqual(absent.status, 'not-installed');
    assert.match((absent as { message: string }).message, /could not be started \(ENOENT/);
    const none = await engine({ python: null }).run(plan(64));
    assert.strictEqual(none.status, 'not-installed');
    assert.deepStrictEqual(await engine({ python: null }).devices(), []);
  });

  it('reports a CUDA device this torch cannot use as no-device, and lists only cpu from the real report', async () => {
    const run = await engine().run(plan(64, { device: 'cuda:1' }));
    assert.strictEqual(run.status, 'no-device');
    assert.match((run as { message: string }).message, /cannot use CUDA or ROCm here/);
    const report = { torch: { interpreter: DEBIAN_PYTHON, version, cuda: { built: false, available: false, version: null, deviceCount: 0 }, mps: { built: false, available: false } } } as never;
    assert.deepStrictEqual(await engine({ report }).devices(), ['cpu']);
  });

  it('turns an out-of-memory error into a clean failure with a remedy, and an unexpected error into a failure without a trace', async () => {
    const [small, oom] = (await engine({}, 'out-of-memory').runBatch({ plans: [plan(64), plan(128)] })).runs;
    measured(small);
    assert.strictEqual(oom.status, 'failed');
    assert.match((oom as { message: string }).message, /^Out of memory on cpu at n = 128 \(float32\), although the three matrices seemed to fit: CUDA out of memory\./);
    assert.match((oom as { remedy: string }).remedy, /smaller size/);
    const broken = await engine({}, 'matmul-raises').run(plan(128));
    assert.strictEqual(broken.status, 'failed');
    assert.strictEqual((broken as { message: string }).message, 'The torch engine failed on cpu, n = 128: ValueError: simulated failure inside matmul');
  });

  it('cancels a long run within a second: bench.py is killed, and the next run succeeds', async () => {
    const seed = 100_000 + Math.floor(Math.random() * 800_000);
    const controller = new AbortController();
    let timing = 0;
    const running = engine().run(plan(1024, { repeats: 1000, seed }), { signal: controller.signal, onProgress: (p) => (timing += p.phase === 'timing' ? 1 : 0) });
    await waitFor('the first timed product', () => timing >= 2, 60_000);
    const [pid] = processesMatching('bench.py', `"seed":${seed}`);
    assert.ok(pid, 'bench.py is running');
    const aborted = Date.now();
    controller.abort();
    const run = await running;
    const latency = Date.now() - aborted;
    assert.ok(latency < 1000, `cancel took ${latency} ms`);
    if (process.env.DD_BENCH_VERBOSE) console.log(`      cancel latency: ${latency} ms`);
    assert.strictEqual(run.status, 'cancelled');
    assert.ok(!isAlive(pid), `bench.py (pid ${pid}) must be gone when the run settles`);
    measured(await engine().run(plan(64)));
  });
});
