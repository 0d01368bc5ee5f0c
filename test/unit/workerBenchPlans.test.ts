// How a benchmark request becomes targets and plans, and how the runner walks them, with
// stand-in engines (no processes): the selected device against the CPU, everything
// available, one named engine/device, impossible requests, memory refusals, sweeps,
// progress steps and a cancel between engine runs; the time budget of CPU runs (refused at
// the peak, measured in between, sweeps stopped at what fits) and the runner's time limit.
import * as assert from 'assert';
import type { BenchPlan, EngineCapabilities } from '../../src/core/bench/plan';
import type { BenchProgress, EngineId, EngineOutcome, RunResult } from '../../src/core/bench/model';
import { cancelledOutcome, failedOutcome } from '../../src/core/bench/outcomes';
import { makeBenchResult } from '../../src/core/bench/result';
import type { DeviceReport } from '../../src/core/devices/report';
import type { BenchParams } from '../../src/protocol/worker';
import type { Engine, RunOptions } from '../../src/worker/engines/engine';
import { prepareBench, type PreparedBench } from '../../src/worker/bench/plans';
import { runPreparedBench } from '../../src/worker/bench/runner';
import { benchmark } from '../../src/worker/bench/benchmark';
import type { CpuThreadFacts } from '../../src/core/bench/cpuThreads';

const GIB = 1024 ** 3;

/** Answers every plan with a measurement whose median is `secondsPerGflop` × 2n³/1e9. */
class StandIn implements Engine {
  readonly capabilities: EngineCapabilities;
  readonly ran: BenchPlan[] = [];

  constructor(
    readonly id: EngineId,
    private readonly deviceList: string[],
    private readonly problem: EngineOutcome | null = null,
    dtypes: EngineCapabilities['dtypes'] = ['float32'],
    private readonly secondsPerGflop = 0.01,
  ) {
    this.capabilities = { engine: id, dtypes, devices: [/.*/] };
  }

  async devices(): Promise<string[]> {
    return this.problem ? [] : this.deviceList;
  }

  async availability(): Promise<EngineOutcome | 'ok'> {
    return this.problem ?? 'ok';
  }

  async run(plan: BenchPlan, options: RunOptions = {}): Promise<RunResult> {
    this.ran.push(plan);
    options.onProgress?.({ engine: plan.engine, device: plan.device, threads: plan.threads, dtype: plan.dtype, size: plan.size, phase: 'timing', done: 1, repeats: plan.repeats });
    const seconds = ((2 * plan.size ** 3) / 1e9) * this.secondsPerGflop;
    return { status: 'ok', result: makeBenchResult({ plan, timesSec: [seconds], maxRelError: 1e-7, checkedEntries: 64 }) };
  }
}

function notInstalled(engine: EngineId): EngineOutcome {
  return { status: 'not-installed', engine, device: null, dtype: null, size: null, message: `${engine} is not installed.`, remedy: `Install ${engine}.` };
}

function report(selected: string, freeHost = 16 * GIB, cudaFree: number | null = 8 * GIB): DeviceReport {
  return {
    // This machine's CPU: 2 cores with AVX-512, so torch's peak on it is 2 × 5 GHz × 64 = 640 GFLOP/s.
    host: { platform: 'linux', arch: 'x64', cpu: { model: 'AMD EPYC', cores: 2, flags: ['avx2', 'fma', 'avx512f'] }, memory: { totalBytes: 32 * GIB, freeBytes: freeHost } },
    accelerators: cudaFree === null ? [] : [{ id: 'cuda:0', memory: { freeBytes: cudaFree } }],
    torch: null,
    selected: { device: selected, reason: 'test' },
  } as unknown as DeviceReport;
}

function engines(options: { torch?: boolean; gpu?: boolean } = {}) {
  const torch = new StandIn('torch', options.gpu ? ['cpu', 'cuda:0'] : ['cpu'], options.torch === false ? notInstalled('torch') : null, ['float32', 'float16', 'bfloat16'], 0.001);
  const gpuTf = new StandIn('tfjs-node-gpu', [], notInstalled('tfjs-node-gpu'));
  const wasm = new StandIn('wasm', ['cpu'], null, ['float32'], 0.05);
  const js = new StandIn('js', ['cpu'], null, ['float32'], 2);
  return { torch, gpuTf, wasm, js, all: [torch, gpuTf, wasm, js] };
}

const base: BenchParams = { pythonPath: '/usr/bin/python3', pinnedDevice: null, compare: 'versus-cpu', size: 256, repeats: 2 };

/** This machine's shape, whatever machine runs the test: 2 CPUs allowed, 2 physical cores. */
const TWO_CORES: CpuThreadFacts = { availableCpus: 2, physicalCores: 2 };

async function ready(params: Partial<BenchParams>, r: DeviceReport, list: Engine[], cpus: CpuThreadFacts = TWO_CORES): Promise<PreparedBench> {
  const prepared = await prepareBench({ ...base, ...params }, r, list, undefined, cpus);
  assert.strictEqual(prepared.kind, 'ready', JSON.stringify(prepared));
  return (prepared as { bench: PreparedBench }).bench;
}

async function invalid(params: Partial<BenchParams>, r: DeviceReport, list: Engine[]): Promise<string> {
  const prepared = await prepareBench({ ...base, ...params }, r, list);
  assert.strictEqual(prepared.kind, 'invalid', JSON.stringify(prepared));
  return (prepared as { message: string }).message;
}

/** "torch cpu ×2": torch on the CPU at a set thread count, which its plans carry too. */
const targets = (bench: PreparedBench) =>
  bench.jobs.map((j) => {
    assert.ok(j.plans.every((p) => p.threads === j.threads), 'every plan of a job runs at the job\'s thread count');
    return `${j.engine.id} ${j.device}${j.threads === undefined ? '' : ` ×${j.threads}`}`;
  });

describe('worker: benchmark targets and plans', () => {
  it('compares the selected GPU with the same engine on the CPU', async () => {
    const bench = await ready({}, report('cuda:0'), engines({ gpu: true }).all);
    // The CPU baseline on all its cores: one thread of several would flatter the GPU.
    assert.deepStrictEqual(targets(bench), ['torch cuda:0', 'torch cpu ×2']);
    assert.strictEqual(bench.description, 'torch on cuda:0 compared with torch on the CPU (2 threads)');
    assert.strictEqual(bench.transfer, true);
  });

  it('without an accelerator compares torch on all threads with torch on one, and without torch runs wasm alone saying why', async () => {
    const scaling = await ready({}, report('cpu'), engines().all);
    assert.deepStrictEqual(targets(scaling), ['torch cpu ×2', 'torch cpu ×1']);
    assert.strictEqual(scaling.description, 'No accelerator selected: torch on the CPU with all 2 threads (the physical cores this process may use) compared with 1 thread');
    assert.deepStrictEqual(targets(await ready({ engine: 'torch' }, report('cpu'), engines().all)), ['torch cpu ×2', 'torch cpu ×1'], '--engine torch alone is the same question');
    const alone = await ready({}, report('cpu'), engines({ torch: false }).all);
    assert.deepStrictEqual(targets(alone), ['wasm cpu']);
    assert.strictEqual(alone.description, 'No accelerator selected and no usable PyTorch: wasm on the CPU alone');
    assert.deepStrictEqual(alone.problems.map((p) => `${p.engine} ${p.status}`), ['torch not-installed']);
  });

  it('"all threads" is the physical cores the process may use: capped by the affinity, SMT siblings not counted, one core compares nothing', async () => {
    const list = engines().all;
    assert.deepStrictEqual(targets(await ready({}, report('cpu'), list, { availableCpus: 16, physicalCores: 8 })), ['torch cpu ×8', 'torch cpu ×1']);
    assert.deepStrictEqual(targets(await ready({}, report('cpu'), list, { availableCpus: 3, physicalCores: 8 })), ['torch cpu ×3', 'torch cpu ×1']);
    const one = await ready({}, report('cpu'), list, { availableCpus: 1, physicalCores: 8 });
    assert.deepStrictEqual(targets(one), ['torch cpu ×1']);
    assert.match(one.description, /one core only, so there is no thread scaling to measure/);
  });

  it('runs another engine only when named: --engine wasm is compared with torch on all threads', async () => {
    const named = await ready({ engine: 'wasm' }, report('cpu'), engines().all);
    assert.deepStrictEqual(targets(named), ['wasm cpu', 'torch cpu ×2']);
    assert.strictEqual(named.description, 'wasm on the CPU compared with torch on the CPU (2 threads)');
    assert.deepStrictEqual(targets(await ready({ compare: 'single', engine: 'torch', device: 'cpu' }, report('cpu'), engines().all)), ['torch cpu'], 'one named torch run keeps torch\'s own thread count');
  });

  it('takes --device and --engine as explicit: a device nobody has, or an engine that cannot run, is an impossible request', async () => {
    assert.match(await invalid({ device: 'cuda:0' }, report('cpu'), engines({ torch: false }).all), /^torch is not installed\. Install torch\.$/);
    assert.match(await invalid({ device: 'cuda:3' }, report('cuda:0'), engines({ gpu: true }).all), /^The torch engine has no device cuda:3; it has cpu, cuda:0\./);
    assert.deepStrictEqual(targets(await ready({ device: 'cuda' }, report('cpu'), engines({ gpu: true }).all)), ['torch cuda:0', 'torch cpu ×2']);
    assert.match(await invalid({ compare: 'single', engine: 'wasm', device: 'cpu', dtypes: ['float16'] }, report('cpu'), engines().all), /^The wasm engine does not support float16/);
    assert.match(await invalid({ compare: 'single', engine: 'nope', device: 'cpu' }, report('cpu'), engines().all), /^Unknown engine "nope"/);
  });

  it('compares everything available: unavailable engines are problems, dtypes an engine lacks are skipped', async () => {
    const e = engines({ gpu: true });
    const bench = await ready({ compare: 'all', dtypes: ['float32', 'bfloat16'] }, report('cuda:0'), e.all);
    assert.deepStrictEqual(targets(bench), ['torch cpu ×2', 'torch cuda:0', 'wasm cpu', 'js cpu']);
    assert.deepStrictEqual(bench.jobs[0].plans.map((p) => p.dtype), ['float32', 'bfloat16']);
    assert.deepStrictEqual(bench.jobs[2].plans.map((p) => p.dtype), ['float32']);
    assert.deepStrictEqual(bench.problems.map((p) => `${p.engine} ${p.status}`), ['tfjs-node-gpu not-installed']);
    const onlyBf16 = await ready({ compare: 'all', dtypes: ['bfloat16'] }, report('cpu'), e.all);
    assert.deepStrictEqual(onlyBf16.problems.map((p) => `${p.engine} ${p.status}`), ['tfjs-node-gpu not-installed', 'wasm unsupported', 'js unsupported']);
    assert.deepStrictEqual(targets(await ready({ compare: 'all', device: 'cuda:0' }, report('cuda:0'), e.all)), ['torch cuda:0']);
    assert.match(await invalid({ compare: 'all', device: 'mps' }, report('cpu'), e.all), /^No available engine has device mps/);
    const noGpu = await ready({ compare: 'all' }, report('cpu', 16 * GIB, null), e.all);
    assert.ok(!noGpu.problems.some((p) => p.engine === 'tfjs-node-gpu'), 'no "install tfjs-node-gpu" without an NVIDIA GPU (issue 28 item 9)');
  });

  it('never plans js above n = 512 in "everything", and says why; named alone it still runs', async () => {
    const sweep = await ready({ compare: 'all', sweep: true }, report('cpu'), engines().all);
    const js = sweep.jobs.find((j) => j.engine.id === 'js');
    assert.deepStrictEqual(js?.plans.map((p) => p.size), [256, 512]);
    const skipped = sweep.problems.filter((p) => p.engine === 'js');
    assert.deepStrictEqual(skipped.map((p) => `${p.status} ${p.size} ${p.message}`), ['refused 1024 js skipped above n = 512: too slow to be worth measuring.']);
    const large = await ready({ compare: 'all', size: 2048 }, report('cpu'), engines().all);
    assert.deepStrictEqual(targets(large), ['torch cpu ×2', 'wasm cpu']);
    assert.ok(large.problems.some((p) => p.engine === 'js' && p.size === 2048 && /too slow to be worth measuring/.test(p.message)));
    const alone = await ready({ compare: 'single', engine: 'js', device: 'cpu', size: 1100 }, report('cpu'), engines().all);
    assert.deepStrictEqual(alone.jobs.map((j) => j.plans.map((p) => p.size)), [[1100]]);
    const jsEverywhere = await ready({ compare: 'all', engine: 'js', size: 1100 }, report('cpu'), engines().all);
    assert.deepStrictEqual(jsEverywhere.jobs.map((j) => j.plans.map((p) => p.size)), [[1100]], 'js on every device, named: not capped');
  });

  it('checks the numbers and names before anything else, with the core messages', async () => {
    const list = engines().all;
    assert.match(await invalid({ size: 0 }, report('cpu'), list), /^Matrix size must be a whole number from 1 to 32768, not 0\.$/);
    assert.match(await invalid({ repeats: 0 }, report('cpu'), list), /^Repeats must be a whole number/);
    assert.match(await invalid({ dtypes: ['int8'] }, report('cpu'), list), /^Unknown dtype "int8"/);
    assert.match(await invalid({ dtypes: [] }, report('cpu'), list), /at least one dtype/);
    assert.match(await invalid({ device: 'gpu' }, report('cpu'), list), /^Unknown device "gpu"/);
    assert.match(await invalid({ sweep: true, budgetSec: -1 }, report('cpu'), list), /time budget must be a positive number/);
    assert.match(await invalid({ compare: 'sideways' as never }, report('cpu'), list), /^Unknown comparison "sideways"/);
  });

  it('refuses sizes that do not fit in the free memory of the report: an explicit first size is impossible, a sweep stops before', async () => {
    const small = report('cuda:0', 16 * GIB, 200 * 1024 ** 2); // 200 MiB free on cuda:0: n = 4096 float32 needs 192 MiB
    const sweep = await ready({ compare: 'single', engine: 'torch', device: 'cuda:0', sweep: true }, small, engines({ gpu: true }).all);
    assert.deepStrictEqual(sweep.jobs[0].plans.map((p) => p.size), [256, 512, 1024, 2048, 4096]);
    assert.deepStrictEqual(sweep.problems.map((p) => `${p.status} ${p.size}`), ['refused 8192']);
    assert.match(await invalid({ compare: 'single', engine: 'torch', device: 'cuda:0', size: 8192 }, small, engines({ gpu: true }).all), /^Refused: n = 8192 float32 needs 768\.0 MiB .*, 200\.0 MiB free on cuda:0\. Choose a size up to 4180/);
    // Not named by the user: reported, and the rest still runs.
    const picked = await ready({ size: 8192 }, small, engines({ gpu: true }).all);
    assert.deepStrictEqual(targets(picked), ['torch cpu ×2']);
    assert.deepStrictEqual(picked.problems.map((p) => `${p.status} ${p.device}`), ['refused cuda:0']);
  });
});

describe('worker: running a prepared benchmark', () => {
  it('runs every job in turn with numbered progress steps and the speedups over the CPU baseline', async () => {
    const e = engines({ gpu: true });
    const steps: string[] = [];
    const run = await benchmark({ ...base, size: 128 }, report('cuda:0'), e.all, { onProgress: (p, step, of) => steps.push(`${step}/${of} ${p.engine} ${p.device}`) });
    assert.deepStrictEqual(steps, ['1/2 torch cuda:0', '2/2 torch cpu']);
    assert.deepStrictEqual(run.results.map((r) => `${r.engine} ${r.device}`), ['torch cuda:0', 'torch cpu']);
    assert.deepStrictEqual(run.speedup?.entries.map((s) => s.speedup), [1]);
    assert.deepStrictEqual([run.cancelled, run.selectedDevice, run.transfers], [false, 'cuda:0', []]);
  });

  it('sweeps an in-process engine until a size passes the budget', async () => {
    const e = engines();
    // wasm stand-in: 0.05 s per GFLOP, so n = 1024 takes 0.107 s: the first over a 0.1 s budget.
    const run = await benchmark({ ...base, compare: 'single', engine: 'wasm', device: 'cpu', sweep: true, budgetSec: 0.1, size: undefined }, report('cpu'), e.all);
    assert.deepStrictEqual(run.results.map((r) => r.size), [256, 512, 1024]);
    assert.deepStrictEqual(e.wasm.ran.map((p) => p.size), [256, 512, 1024]);
  });

  it('a sweep of compared series runs size by size, so a cancel keeps pairs to compare (issue 28 item 9)', async () => {
    const e = engines();
    const whole = await runPreparedBench(await ready({ sweep: true }, report('cpu'), e.all));
    assert.deepStrictEqual(e.torch.ran.slice(0, 4).map((p) => `${p.threads}@${p.size}`), ['2@256', '1@256', '2@512', '1@512']);
    assert.ok(whole.sweep, 'the sweep summary is kept');
    const cancel = engines();
    const controller = new AbortController();
    const onProgress = (p: BenchProgress) => p.threads === 2 && p.size === 512 && controller.abort();
    const run = await runPreparedBench(await ready({ sweep: true }, report('cpu'), cancel.all), { signal: controller.signal, onProgress });
    assert.strictEqual(run.cancelled, true);
    assert.deepStrictEqual(run.results.map((r) => `${r.threads}@${r.size}`), ['2@256', '1@256', '2@512']);
    assert.deepStrictEqual(run.speedup?.entries.map((x) => `${x.threads}@${x.size}`), ['2@256'], 'the pair at 256 is compared');
  });

  it('stops between engine runs when cancelled, with a cancelled outcome, and runs nothing more', async () => {
    const e = engines();
    const controller = new AbortController();
    const onProgress = (p: BenchProgress) => p.threads === 2 && controller.abort();
    const bench = await ready({}, report('cpu'), e.all);
    const run = await runPreparedBench(bench, { signal: controller.signal, onProgress });
    assert.strictEqual(run.cancelled, true);
    assert.deepStrictEqual(run.results.map((r) => `${r.engine} ${r.threads}`), ['torch 2']);
    assert.deepStrictEqual(run.problems.map((p) => `${p.status} ${p.engine}`), ['cancelled torch']);
    assert.deepStrictEqual(e.torch.ran.map((p) => p.threads), [2], 'the one-thread job never ran');
  });
});

/** Never finishes on its own: runs until its signal aborts, as an engine on a far too large size would. */
class Hanging extends StandIn {
  override async run(plan: BenchPlan, options: RunOptions = {}): Promise<RunResult> {
    this.ran.push(plan);
    await new Promise((resolve) => (options.signal?.aborted ? resolve(undefined) : options.signal?.addEventListener('abort', resolve, { once: true })));
    return cancelledOutcome(plan);
  }
}

/** Fails every run, as an engine whose products cannot be trusted or computed. */
class Failing extends StandIn {
  override async run(plan: BenchPlan): Promise<RunResult> {
    this.ran.push(plan);
    return failedOutcome(plan, new Error('simulated failure'));
  }
}

const sizesRun = (engine: StandIn) => engine.ran.map((p) => `${p.size}×${p.repeats}`);

describe('worker: the time budget of CPU runs', () => {
  it('refuses n = 32768 on the CPU before it runs, from small products timed on the engine (it ran 600 s+ before)', async () => {
    const e = engines(); // the torch stand-in does 1000 GFLOP/s, taken as 800 beyond twice the measured size: n = 32768 × 11 products takes 16 minutes
    for (const params of [{ device: 'cpu' }, { compare: 'single' as const, engine: 'torch', device: 'cpu' }]) {
      const message = await invalid({ ...params, size: 32768, repeats: 10 }, report('cpu', 20 * GIB), e.all);
      assert.match(
        message,
        /^Refused: n = 32768 float32 on the CPU would take about 16 minutes with the torch engine \(11 products of 2·n³ flops, est\. from 800 GFLOP\/s, measured at n = 2048 and slowed 1\.25× for this size\); the budget is 300 s\. To finish within the budget, choose n ≤ 22178, or fewer repeats\.$/,
      );
    }
    // Calibration products only, once per request: n = 128 … 2048, each under 0.05 s here.
    assert.deepStrictEqual(sizesRun(e.torch), [...['128×3', '256×3', '512×3', '1024×3', '2048×3'], ...['128×3', '256×3', '512×3', '1024×3', '2048×3']]);
  });

  it('when the engine measures nothing, refuses at this CPU peak: at least 20 minutes for n = 32768 on 2 cores', async () => {
    const e = engines();
    const broken = new Failing('torch', ['cpu'], null, ['float32'], 0.001);
    const message = await invalid({ device: 'cpu', size: 32768, repeats: 10 }, report('cpu', 20 * GIB), [broken, e.gpuTf, e.wasm, e.js]);
    assert.match(
      message,
      /^Refused: n = 32768 float32 on the CPU would take at least 20 minutes with the torch engine \(11 products of 2·n³ flops, est\. from 640 GFLOP\/s, this CPU's peak for torch \(2 cores, AVX-512\)\); the budget is 300 s\. To finish within the budget, choose n ≤ 20588, or fewer repeats\.$/,
    );
    assert.deepStrictEqual(sizesRun(broken), ['128×3'], 'calibration stops at its first failure');
  });

  it('a measured rate above the peak table wins: the run goes ahead', async () => {
    const fast = new StandIn('torch', ['cpu'], null, ['float32'], 0.0001); // 10 TFLOP/s on "2 cores"
    const bench = await ready({ compare: 'single', engine: 'torch', device: 'cpu', size: 16384, repeats: 10 }, report('cpu', 20 * GIB), [fast]);
    assert.deepStrictEqual(bench.jobs[0].plans.map((p) => p.size), [16384]);
  });

  it('between peak and floor, times small products on the engine and refuses with the measured rate', async () => {
    const e = engines(); // the js stand-in does 0.5 GFLOP/s, taken as 0.17 beyond twice the measured size: n = 2048 × 11 products takes 19 minutes
    const message = await invalid({ compare: 'single', engine: 'js', device: 'cpu', size: 2048, repeats: 10 }, report('cpu'), e.all);
    assert.match(message, /^Refused: n = 2048 float32 on the CPU would take about 19 minutes with the js engine \(11 products of 2·n³ flops, est\. from 0\.17 GFLOP\/s, measured at n = 256 and slowed 3× for this size\); the budget is 300 s\. To finish within the budget, choose n ≤ 1314, or fewer repeats\.$/);
    // Sizes grow until one median passes 0.05 s (n = 256 takes 0.067 s here).
    assert.deepStrictEqual(sizesRun(e.js), ['128×3', '256×3']);
    const fits = await ready({ compare: 'single', engine: 'js', device: 'cpu', size: 1024, repeats: 10 }, report('cpu'), engines().all);
    assert.deepStrictEqual(fits.jobs[0].plans.map((p) => p.size), [1024], '141 s at 0.17 GFLOP/s: within the budget');
  });

  it('measures nothing when even the floor rate fits (the default n = 1024 with torch), nor for an accelerator', async () => {
    const e = engines({ gpu: true });
    await ready({ size: 1024, repeats: 10 }, report('cuda:0'), e.all);
    await ready({ size: 1024, repeats: 10 }, report('cpu'), e.all);
    assert.deepStrictEqual([e.torch.ran, e.wasm.ran], [[], []]);
  });

  it('a CPU baseline the user did not name is reported as refused and the rest still runs', async () => {
    const picked = await ready({ size: 32768, repeats: 10 }, report('cuda:0', 20 * GIB, 40 * GIB), engines({ gpu: true }).all);
    assert.deepStrictEqual(targets(picked), ['torch cuda:0']);
    assert.deepStrictEqual(picked.problems.map((p) => `${p.status} ${p.engine} ${p.device} ${p.size}`), ['refused torch cpu 32768']);
    assert.match(picked.problems[0].message, /would take about 16 minutes/);
  });

  it('counts the engine and a reserve in the host memory of a CPU run, and says what fits', async () => {
    // n = 8192 float32: 768 MiB of matrices fit in 1 GiB free, with torch's process and the reserve they do not.
    const message = await invalid({ compare: 'single', engine: 'torch', device: 'cpu', size: 8192 }, report('cpu', 1 * GIB), engines().all);
    assert.match(message, /^Refused: n = 8192 float32 on the CPU needs 1\.6 GiB of host memory: 768\.0 MiB for the matrices \(3 × n² × 4 bytes\) \+ 408\.0 MiB for the torch engine's Python process and float64 checks \+ 512\.0 MiB left to the system; 1\.0 GiB is free\. Choose a size up to \d+, or close programs/);
    // Matrices alone too large: the same account, not the matrices-only one.
    assert.match(await invalid({ compare: 'single', engine: 'wasm', device: 'cpu', size: 16384 }, report('cpu', 2 * GIB), engines().all), /^Refused: n = 16384 float32 on the CPU needs .* for the wasm engine's copies of the inputs and the product/);
  });

  it('a sweep is checked at the peak only and stops before a size whose repeats would pass the budget', async () => {
    const e = engines(); // wasm stand-in: 20 GFLOP/s; its peak is 80
    const params = { compare: 'single' as const, engine: 'wasm', device: 'cpu', sweep: true, size: undefined, repeats: 1000 };
    const bench = await ready(params, report('cpu'), e.all);
    assert.deepStrictEqual(bench.jobs[0].plans.map((p) => p.size), [256, 512, 1024, 2048], 'n = 4096 × 1001 takes 29 minutes even at 80 GFLOP/s');
    assert.deepStrictEqual(bench.problems.map((p) => `${p.status} ${p.size}`), ['refused 4096']);
    assert.deepStrictEqual(e.wasm.ran, [], 'a sweep measures itself');
    const run = await runPreparedBench(bench);
    // n = 1024's median (0.107 s) × 8 × 1001 products would be 860 s at n = 2048: the sweep ends at 1024.
    assert.deepStrictEqual(run.results.map((r) => r.size), [256, 512, 1024]);
  });
});

describe('worker: the time limit of a running job', () => {
  it('stops a job that outlives its limit as a failure that says so, and goes on with the next job', async () => {
    const e = engines();
    const torch = new Hanging('torch', ['cpu'], null, ['float32'], 0.001);
    const bench = await ready({ compare: 'all' }, report('cpu'), [torch, e.wasm]);
    assert.deepStrictEqual(targets(bench), ['torch cpu ×2', 'wasm cpu']);
    const started = Date.now();
    const run = await runPreparedBench({ ...bench, runBudgetSec: 0.02, startGraceSec: 0.05 });
    assert.ok(Date.now() - started < 1_000, `took ${Date.now() - started} ms`);
    assert.strictEqual(run.cancelled, false);
    assert.deepStrictEqual(run.results.map((r) => r.engine), ['wasm']);
    assert.deepStrictEqual(run.problems.map((p) => `${p.status} ${p.engine} ${p.size}`), ['failed torch 256']);
    assert.match(run.problems[0].message, /^Stopped: the torch engine on the CPU, n = 256, ran past its time limit of 1 s \(the budget is 0\.02 s per run/);
    assert.match(run.problems[0].remedy ?? '', /smaller size or fewer repeats/);
  });

  it('a cancel within the limit is still a cancel', async () => {
    const torch = new Hanging('torch', ['cpu'], null, ['float32'], 0.001);
    const bench = await ready({}, report('cpu'), [torch, ...engines().all.slice(1)]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const run = await runPreparedBench(bench, { signal: controller.signal });
    assert.strictEqual(run.cancelled, true);
    assert.deepStrictEqual(run.problems.map((p) => `${p.status} ${p.engine}`), ['cancelled torch']);
  });
});
