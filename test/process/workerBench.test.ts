// The worker's benchmark methods through JSON-RPC, against the real dist/worker.js and
// Debian's PyTorch: EnginesRequest, BenchRequest with progress notifications, impossible
// requests rejected at once (a CPU run over its time budget too), one benchmark at a time,
// and cancellation through the client's CancellationTokenSource (within a second; the
// worker stays usable).
import * as assert from 'assert';
import { CancellationTokenSource, ResponseError } from 'vscode-jsonrpc/node';
import {
  BENCH_BUSY,
  BENCH_INVALID,
  BenchProgressNotification,
  BenchRequest,
  DetectRequest,
  EnginesRequest,
  type BenchParams,
  type BenchProgressParams,
} from '../../src/protocol/worker';
import { parentOf, processesMatching, removeShims, shimDir } from './benchTorchKit';
import { buildDist, DEBIAN_PYTHON, isAlive, requireDebianTorch, scenarioEnv, waitFor, WorkerUnderTest } from './workerTestKit';

const base: BenchParams = { pythonPath: DEBIAN_PYTHON, pinnedDevice: null, compare: 'versus-cpu' };

async function rejection(promise: Promise<unknown>): Promise<ResponseError<unknown>> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ResponseError, String(error));
    return error;
  }
  return assert.fail('expected the request to be rejected');
}

describe('worker: benchmarks over JSON-RPC', function () {
  this.timeout(120_000);
  let worker: WorkerUnderTest;
  let progress: BenchProgressParams[];

  function start(pythonPath?: string): void {
    worker = new WorkerUnderTest(scenarioEnv(undefined, { PYTHONDONTWRITEBYTECODE: '1', ...(pythonPath ? { PYTHONPATH: pythonPath } : {}) }));
    progress = [];
    worker.connection.onNotification(BenchProgressNotification, (p) => {
      progress.push(p);
    });
  }

  before(() => {
    requireDebianTorch();
    buildDist();
  });
  beforeEach(() => start());
  afterEach(async () => worker.stop());
  after(() => removeShims());

  it('lists the engines, their devices and why the native ones cannot run', async () => {
    const answer = await worker.connection.sendRequest(EnginesRequest, { pythonPath: DEBIAN_PYTHON, pinnedDevice: null });
    assert.strictEqual(answer.selectedDevice, 'cpu');
    const summary = answer.engines.map((e) => `${e.engine}:${e.devices.join(',')}:${e.problem?.status ?? 'ok'}`);
    assert.deepStrictEqual(summary, ['torch:cpu:ok', 'tfjs-node-gpu::not-installed', 'tfjs-node::not-installed', 'wasm:cpu:ok', 'js:cpu:ok']);
    assert.deepStrictEqual(answer.engines[0].dtypes, ['float32', 'tf32', 'float16', 'bfloat16']);
    assert.match(answer.engines[1].problem?.remedy ?? '', /Install Native TensorFlow Backend/);
  });

  it('runs one engine on one device, with progress notifications carrying the run id', async () => {
    const run = await worker.connection.sendRequest(BenchRequest, { ...base, compare: 'single', engine: 'torch', device: 'cpu', size: 128, repeats: 3, runId: 'run-1' });
    assert.deepStrictEqual(run.results.map((r) => [r.engine, r.device, r.dtype, r.size, r.repeats]), [['torch', 'cpu', 'float32', 128, 3]]);
    // n = 128 gets no below-peak diagnosis; torch on one thread of several cores would (a diagnosis, not a problem of the run).
    const failures = run.problems.filter((p) => !(p.status === 'below-peak' && p.code === 'one-thread'));
    assert.deepStrictEqual([run.cancelled, failures, run.transfers, run.description], [false, [], [], 'torch on cpu']);
    await waitFor('the last progress notification', () => progress.some((p) => p.progress.phase === 'checking'));
    assert.ok(progress.every((p) => p.runId === 'run-1' && p.step === 1 && p.steps === 1));
    assert.deepStrictEqual(progress.map((p) => p.progress.phase).filter((phase, i, all) => all[i - 1] !== phase), ['preparing', 'warmup', 'timing', 'checking']);
  });

  it('compares the selected device with the CPU by default: here torch on all threads against torch on one, through bench.py\'s thread count', async () => {
    const run = await worker.connection.sendRequest(BenchRequest, { ...base, size: 128, repeats: 3 });
    const all = run.results[0]?.threads ?? 0;
    assert.ok(all >= 2, 'these machines have 2 cores');
    assert.deepStrictEqual(run.results.map((r) => `${r.engine} ${r.device} ${r.threads}`), [`torch cpu ${all}`, 'torch cpu 1']);
    // bench.py really ran with those counts: its detail is torch.get_num_threads() after set_num_threads.
    assert.deepStrictEqual(run.results.map((r) => /CPU, (\d+) threads?/.exec(r.detail ?? '')?.[1]), [String(all), '1']);
    assert.deepStrictEqual(run.speedup?.baseline, { engine: 'torch', device: 'cpu', threads: 1 });
    assert.deepStrictEqual(run.speedup?.entries.map((e) => `${e.engine} ${e.device} ${e.threads} ${e.size}`), [`torch cpu ${all} 128`]);
    assert.strictEqual(run.selectedDevice, 'cpu');
    assert.strictEqual(run.description, `No accelerator selected: torch on the CPU with all ${all} threads (the physical cores this process may use) compared with 1 thread`);
  });

  it('rejects impossible requests at once with the core message', async () => {
    const cases: Array<[Partial<BenchParams>, RegExp]> = [
      [{ size: 0 }, /^Matrix size must be a whole number from 1 to 32768, not 0\.$/],
      [{ size: 100_000 }, /not 100000\.$/],
      [{ dtypes: ['int8'] }, /^Unknown dtype "int8"/],
      [{ compare: 'single', engine: 'torch', device: 'cuda:7' }, /^The torch engine has no device cuda:7; it has cpu\./],
      [{ compare: 'single', engine: 'wasm', device: 'cpu', dtypes: ['bfloat16'] }, /^The wasm engine does not support bfloat16/],
      [{ compare: 'single', engine: 'torch' }, /needs both an engine and a device/],
    ];
    // Outcome, not time (a 5 s limit failed under load): each is refused before any run starts,
    // so no run reports progress, not even its 'preparing' step.
    for (const [params, message] of cases) {
      const error = await rejection(worker.connection.sendRequest(BenchRequest, { ...base, ...params }));
      assert.strictEqual(error.code, BENCH_INVALID, JSON.stringify(params));
      assert.match(error.message, message);
      assert.deepStrictEqual(progress, [], `nothing ran for ${JSON.stringify(params)}`);
    }
  });

  it('rejects a CPU run that cannot finish within its time budget, from small products timed on the engine, before it runs', async () => {
    const started = Date.now();
    const error = await rejection(worker.connection.sendRequest(BenchRequest, { ...base, compare: 'single', engine: 'js', device: 'cpu', size: 4096 }));
    assert.strictEqual(error.code, BENCH_INVALID);
    assert.match(
      error.message,
      /^Refused: n = 4096 float32 on the CPU would take about [\d.]+ (minutes|hours) with the js engine \(11 products of 2·n³ flops, est\. from [\d.]+ GFLOP\/s, measured at n = \d+ and slowed 3× for this size\); the budget is 300 s\. To finish within the budget, choose n ≤ \d+, or fewer repeats\.$/,
    );
    assert.ok(Date.now() - started < 20_000, `took ${Date.now() - started} ms`);
    assert.deepStrictEqual(progress, [], 'the calibration products report no progress, and the run never started');
  });

  it('runs one benchmark at a time, cancels within a second through the token, and stays usable', async () => {
    const marker = '"repeats":1000';
    const source = new CancellationTokenSource();
    const long = worker.connection.sendRequest(BenchRequest, { ...base, compare: 'single', engine: 'torch', device: 'cpu', size: 1024, repeats: 1000 }, source.token);
    await waitFor('timed products', () => progress.filter((p) => p.progress.phase === 'timing').length >= 2, 60_000);
    const busy = await rejection(worker.connection.sendRequest(BenchRequest, { ...base, size: 64, repeats: 1 }));
    assert.strictEqual(busy.code, BENCH_BUSY);
    assert.match(busy.message, /^A benchmark is already running \(single torch on cpu, since .+\): cancel it or wait until it finishes\.$/);
    // The worker had to detect first, so one bench.py answered its probe and took the run on
    // stdin (`bench.py {"serve": true}`); a bench.py of its own would carry the marker.
    const [pid] = [...processesMatching('bench.py', marker), ...processesMatching('bench.py', '"serve"').filter((p) => parentOf(p) === worker.child.pid)];
    assert.ok(pid, 'bench.py runs');
    const cancelledAt = Date.now();
    source.cancel();
    const run = await long;
    const latency = Date.now() - cancelledAt;
    assert.ok(latency < 1000, `cancel took ${latency} ms`);
    assert.strictEqual(run.cancelled, true);
    assert.deepStrictEqual(run.problems.map((p) => p.status), ['cancelled']);
    assert.ok(!isAlive(pid), 'bench.py was killed');
    const next = await worker.connection.sendRequest(BenchRequest, { ...base, compare: 'single', engine: 'torch', device: 'cpu', size: 64, repeats: 2 });
    assert.strictEqual(next.results.length, 1);
  });

  it('lets a request sent right after a cancel wait for the cancelled run to stop, then runs it', async () => {
    const source = new CancellationTokenSource();
    // torch stops by a SIGKILL and a wait for the exit: a few ms in which the next request arrives.
    const long = worker.connection.sendRequest(BenchRequest, { ...base, compare: 'single', engine: 'torch', device: 'cpu', size: 1024, repeats: 1000 }, source.token);
    await waitFor('timed products', () => progress.some((p) => p.progress.phase === 'timing'), 60_000);
    source.cancel();
    const next = worker.connection.sendRequest(BenchRequest, { ...base, compare: 'single', engine: 'wasm', device: 'cpu', size: 64, repeats: 2 });
    const [cancelled, measured] = await Promise.all([long, next]);
    assert.strictEqual(cancelled.cancelled, true);
    assert.deepStrictEqual(measured.results.map((r) => `${r.engine} ${r.size}`), ['wasm 64']);
  });

  it('on a CUDA machine (a shim over the real torch) compares cuda:0 with torch on the CPU on all its threads and measures transfers', async () => {
    await worker.stop();
    start(shimDir('fake-cuda'));
    const report = await worker.connection.sendRequest(DetectRequest, { pythonPath: DEBIAN_PYTHON, pinnedDevice: null });
    assert.strictEqual(report.selected.device, 'cuda:0');
    const run = await worker.connection.sendRequest(BenchRequest, { ...base, size: 128, repeats: 2 });
    assert.deepStrictEqual(run.results.map((r) => `${r.engine} ${r.device}`), ['torch cuda:0', 'torch cpu']);
    assert.match(run.results[0].detail ?? '', /Fake CUDA GPU/);
    const cpuThreads = run.results[1].threads ?? 0;
    assert.ok(cpuThreads >= 2, 'the CPU baseline runs on all threads, not torch\'s default of one here');
    assert.match(run.results[1].detail ?? '', new RegExp(`CPU, ${cpuThreads} threads`));
    assert.strictEqual(run.results[0].threads, undefined, 'a thread count is the CPU\'s only');
    assert.deepStrictEqual(run.speedup?.entries.map((e) => `${e.engine} ${e.device}`), ['torch cuda:0']);
    assert.deepStrictEqual(run.transfers.map((t) => `${t.device} ${t.memory} ${t.direction} ${t.status}`), [
      'cuda:0 pageable hostToDevice ok',
      'cuda:0 pageable deviceToHost ok',
      'cuda:0 pinned hostToDevice ok',
      'cuda:0 pinned deviceToHost ok',
      'cuda:0 device deviceToDevice ok',
    ]);
    assert.ok(run.transfers.every((t) => (t.gbPerSec ?? 0) > 0));
    assert.strictEqual(run.description, `torch on cuda:0 compared with torch on the CPU (${cpuThreads} threads)`);
  });
});
