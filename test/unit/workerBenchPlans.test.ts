// How a benchmark request becomes targets and plans, and how the runner walks them, with
// stand-in engines (no processes): the selected device against the CPU, everything
// available, one named engine/device, impossible requests, memory refusals, sweeps,
// progress steps and a cancel between engine runs.
import * as assert from 'assert';
import type { BenchPlan, EngineCapabilities } from '../../src/core/bench/plan';
import type { BenchProgress, EngineId, EngineOutcome, RunResult } from '../../src/core/bench/model';
import { makeBenchResult } from '../../src/core/bench/result';
import type { DeviceReport } from '../../src/core/devices/report';
import type { BenchParams } from '../../src/protocol/worker';
import type { Engine, RunOptions } from '../../src/worker/engines/engine';
import { prepareBench, type PreparedBench } from '../../src/worker/bench/plans';
import { runPreparedBench } from '../../src/worker/bench/runner';
import { benchmark } from '../../src/worker/bench/benchmark';

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
    options.onProgress?.({ engine: plan.engine, device: plan.device, dtype: plan.dtype, size: plan.size, phase: 'timing', done: 1, repeats: plan.repeats });
    const seconds = ((2 * plan.size ** 3) / 1e9) * this.secondsPerGflop;
    return { status: 'ok', result: makeBenchResult({ plan, timesSec: [seconds], maxRelError: 1e-7, checkedEntries: 64 }) };
  }
}

function notInstalled(engine: EngineId): EngineOutcome {
  return { status: 'not-installed', engine, device: null, dtype: null, size: null, message: `${engine} is not installed.`, remedy: `Install ${engine}.` };
}

function report(selected: string, freeHost = 16 * GIB, cudaFree: number | null = 8 * GIB): DeviceReport {
  return {
    host: { memory: { totalBytes: 32 * GIB, freeBytes: freeHost } },
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

async function ready(params: Partial<BenchParams>, r: DeviceReport, list: Engine[]): Promise<PreparedBench> {
  const prepared = await prepareBench({ ...base, ...params }, r, list);
  assert.strictEqual(prepared.kind, 'ready', JSON.stringify(prepared));
  return (prepared as { bench: PreparedBench }).bench;
}

async function invalid(params: Partial<BenchParams>, r: DeviceReport, list: Engine[]): Promise<string> {
  const prepared = await prepareBench({ ...base, ...params }, r, list);
  assert.strictEqual(prepared.kind, 'invalid', JSON.stringify(prepared));
  return (prepared as { message: string }).message;
}

const targets = (bench: PreparedBench) => bench.jobs.map((j) => `${j.engine.id} ${j.device}`);

describe('worker: benchmark targets and plans', () => {
  it('compares the selected GPU with the same engine on the CPU', async () => {
    const bench = await ready({}, report('cuda:0'), engines({ gpu: true }).all);
    assert.deepStrictEqual(targets(bench), ['torch cuda:0', 'torch cpu']);
    assert.strictEqual(bench.description, 'torch on cuda:0 compared with torch on the CPU');
    assert.strictEqual(bench.transfer, true);
  });

  it('without an accelerator compares torch on the CPU with wasm, and without torch runs wasm alone', async () => {
    assert.deepStrictEqual(targets(await ready({}, report('cpu'), engines().all)), ['torch cpu', 'wasm cpu']);
    const alone = await ready({}, report('cpu'), engines({ torch: false }).all);
    assert.deepStrictEqual(targets(alone), ['wasm cpu']);
    assert.match(alone.description, /^No accelerator selected: wasm on the CPU only/);
  });

  it('takes --device and --engine as explicit: a device nobody has, or an engine that cannot run, is an impossible request', async () => {
    assert.match(await invalid({ device: 'cuda:0' }, report('cpu'), engines({ torch: false }).all), /^torch is not installed\. Install torch\.$/);
    assert.match(await invalid({ device: 'cuda:3' }, report('cuda:0'), engines({ gpu: true }).all), /^The torch engine has no device cuda:3; it has cpu, cuda:0\./);
    assert.deepStrictEqual(targets(await ready({ device: 'cuda' }, report('cpu'), engines({ gpu: true }).all)), ['torch cuda:0', 'torch cpu']);
    assert.match(await invalid({ compare: 'single', engine: 'wasm', device: 'cpu', dtypes: ['float16'] }, report('cpu'), engines().all), /^The wasm engine does not support float16/);
    assert.match(await invalid({ compare: 'single', engine: 'nope', device: 'cpu' }, report('cpu'), engines().all), /^Unknown engine "nope"/);
  });

  it('compares everything available: unavailable engines are problems, dtypes an engine lacks are skipped', async () => {
    const e = engines({ gpu: true });
    const bench = await ready({ compare: 'all', dtypes: ['float32', 'bfloat16'] }, report('cuda:0'), e.all);
    assert.deepStrictEqual(targets(bench), ['torch cpu', 'torch cuda:0', 'wasm cpu', 'js cpu']);
    assert.deepStrictEqual(bench.jobs[0].plans.map((p) => p.dtype), ['float32', 'bfloat16']);
    assert.deepStrictEqual(bench.jobs[2].plans.map((p) => p.dtype), ['float32']);
    assert.deepStrictEqual(bench.problems.map((p) => `${p.engine} ${p.status}`), ['tfjs-node-gpu not-installed']);
    const onlyBf16 = await ready({ compare: 'all', dtypes: ['bfloat16'] }, report('cpu'), e.all);
    assert.deepStrictEqual(onlyBf16.problems.map((p) => `${p.engine} ${p.status}`), ['tfjs-node-gpu not-installed', 'wasm unsupported', 'js unsupported']);
    assert.deepStrictEqual(targets(await ready({ compare: 'all', device: 'cuda:0' }, report('cuda:0'), e.all)), ['torch cuda:0']);
    assert.match(await invalid({ compare: 'all', device: 'mps' }, report('cpu'), e.all), /^No available engine has device mps/);
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
    assert.deepStrictEqual(targets(picked), ['torch cpu']);
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

  it('stops between engine runs when cancelled, with a cancelled outcome, and runs nothing more', async () => {
    const e = engines();
    const controller = new AbortController();
    const onProgress = (p: BenchProgress) => p.engine === 'torch' && controller.abort();
    const bench = await ready({}, report('cpu'), e.all);
    const run = await runPreparedBench(bench, { signal: controller.signal, onProgress });
    assert.strictEqual(run.cancelled, true);
    assert.deepStrictEqual(run.results.map((r) => r.engine), ['torch']);
    assert.deepStrictEqual(run.problems.map((p) => `${p.status} ${p.engine}`), ['cancelled wasm']);
    assert.deepStrictEqual(e.wasm.ran, []);
  });
});
