// bench.py on its own, run by Debian's Python: only JSON lines on stdout, flushed as they
// come, clear error lines instead of tracebacks, the jobs and budget semantics, the
// accelerator path (synchronize, pageable and pinned transfers) through a fake CUDA shim,
// and no orphan computing on when its caller dies.
import * as assert from 'assert';
import { spawn } from 'child_process';
import { DEBIAN_PYTHON, isAlive, requireDebianTorch, waitFor } from './workerTestKit';
import { BENCH_PY, benchEnv, recordedEvents, removeShims, runBenchPy } from './benchTorchKit';

const types = (lines: Array<Record<string, any>>) => lines.map((l) => l.type);

describe('bench.py', function () {
  this.timeout(120_000);

  before(() => requireDebianTorch());
  after(() => removeShims());

  it('streams ready, progress and result lines per job, then done, and exits 0', () => {
    const { status, lines, stderr } = runBenchPy({ jobs: [{ dtype: 'float32', size: 32 }, { dtype: 'float32', size: 48 }], repeats: 2, warmup: 1 });
    assert.strictEqual(status, 0, stderr);
    const perJob = ['progress', 'progress', 'progress', 'progress', 'progress', 'result'];
    assert.deepStrictEqual(types(lines), ['ready', ...perJob, ...perJob, 'done']);
    assert.match(lines[0].detail, /^torch \S+, CPU, \d+ threads?$/);
    const result = lines[6];
    assert.deepStrictEqual(Object.keys(result), ['type', 'status', 'timesSec', 'maxRelError', 'checksumRelError', 'checkedEntries', 'worst', 'detail', 'dtype', 'size']);
    assert.strictEqual(result.size, 32);
    assert.strictEqual(result.timesSec.length, 2);
    assert.strictEqual(result.checkedEntries, 64);
    assert.deepStrictEqual(Object.keys(result.worst), ['row', 'col', 'expected', 'actual']);
    assert.ok(result.maxRelError < 1e-5 && result.checksumRelError < 1e-5);
  });

  it('checks every entry of a tiny product, including both corners', () => {
    const { lines } = runBenchPy({ sizes: [2], repeats: 1, samples: 64 });
    assert.strictEqual(lines.find((l) => l.type === 'result')?.checkedEntries, 4);
  });

  it('skips the rest of a dtype once a size passes the time budget, and says so', () => {
    const { lines } = runBenchPy({ sizes: [64, 96, 128], dtypes: ['float32', 'bfloat16'], repeats: 1, budgetSec: 1e-9 });
    const results = lines.filter((l) => l.type === 'result').map((l) => `${l.dtype}:${l.size}`);
    assert.deepStrictEqual(results, ['float32:64', 'bfloat16:64']);
    assert.deepStrictEqual(lines.filter((l) => l.type === 'stopped').map((l) => [l.dtype, l.size, l.reason]), [['float32', 64, 'budget'], ['bfloat16', 64, 'budget']]);
  });

  it('answers bad arguments, a missing device and a missing torch with one error line each, never a traceback', () => {
    for (const [args, code, message] of [
      ['not json', 'bad-args', /^the argument is not JSON/],
      [JSON.stringify({ sizes: [0] }), 'bad-args', /^sizes must be a list of whole numbers >= 1/],
      [JSON.stringify({ dtypes: ['int8'] }), 'bad-args', /^dtypes must be a list of float32, float16, bfloat16/],
      [JSON.stringify({ device: 'cuda:0' }), 'no-device', /cannot use CUDA or ROCm here/],
      [JSON.stringify({ device: 'mps' }), 'no-device', /cannot use MPS here/],
    ] as const) {
      const run = runBenchPy(null, { rawArg: args });
      assert.strictEqual(run.status, 0);
      assert.deepStrictEqual(types(run.lines), ['error', 'done'], args);
      assert.strictEqual(run.lines[0].code, code);
      assert.match(run.lines[0].message, message);
    }
    const missing = runBenchPy({}, { shim: 'no-torch' });
    assert.deepStrictEqual(missing.lines, [{ type: 'error', code: 'torch-missing', message: "No module named 'torch'" }, { type: 'done' }]);
  });

  it('keeps the traceback of a failing product on stderr and carries on with the next job', () => {
    const run = runBenchPy({ sizes: [128, 64], repeats: 1 }, { shim: 'matmul-raises' });
    assert.strictEqual(run.status, 0);
    const results = run.lines.filter((l) => l.type === 'result');
    assert.deepStrictEqual(results.map((l) => [l.size, l.status]), [[128, 'failed'], [64, 'ok']]);
    assert.strictEqual(results[0].message, 'ValueError: simulated failure inside matmul');
    assert.doesNotMatch(run.stdout, /Traceback/);
    assert.match(run.stderr, /Traceback \(most recent call last\)/);
  });

  it('on an accelerator, times each product between two synchronizations and two clock reads, after a synchronized warm-up', () => {
    const { lines, stderr } = runBenchPy({ device: 'cuda:0', sizes: [64], repeats: 2, warmup: 1 }, { shim: 'fake-cuda-recorded' });
    assert.strictEqual(lines.find((l) => l.type === 'result')?.status, 'ok', stderr);
    const timed = ['sync', 'clock', 'matmul', 'sync', 'clock'];
    assert.deepStrictEqual(recordedEvents(stderr), [
      'matmul', 'sync', // the dtype check's product, waited for
      'sync', // the inputs are made before the clock starts
      'matmul', 'sync', // warm-up
      ...timed, ...timed,
    ]);
  });

  it('on an accelerator, names the device and measures pageable and pinned copies both ways', () => {
    const { lines, stderr } = runBenchPy({ device: 'cuda:0', sizes: [64], repeats: 2, transfer: true }, { shim: 'fake-cuda' });
    assert.strictEqual(lines[0].device, 'cuda:0', stderr);
    assert.match(lines[0].detail, /^torch \S+, Fake CUDA GPU \(host memory\), CUDA 12\.4/);
    assert.strictEqual(lines.find((l) => l.type === 'result')?.status, 'ok');
    const transfers = lines.filter((l) => l.type === 'transfer');
    assert.deepStrictEqual(transfers.map((t) => `${t.memory} ${t.direction} ${t.status}`), [
      'pageable hostToDevice ok',
      'pageable deviceToHost ok',
      'pinned hostToDevice ok',
      'pinned deviceToHost ok',
    ]);
    // mem_get_info says 8 GiB free: a quarter of it is more than the 256 MiB cap.
    for (const t of transfers) {
      assert.strictEqual(t.bytes, 256 * 1024 ** 2);
      assert.strictEqual(t.timesSec.length, 5);
    }
    assert.strictEqual(types(lines).pop(), 'done');
  });

  it('measures no transfers on the CPU, and reports pinned memory it cannot get as unsupported', () => {
    assert.deepStrictEqual(runBenchPy({ sizes: [16], repeats: 1, transfer: true }).lines.filter((l) => l.type === 'transfer'), []);
    const { lines } = runBenchPy({ device: 'cuda', sizes: [16], repeats: 1, transfer: true }, { shim: 'fake-cuda-unpinned' });
    const transfers = lines.filter((l) => l.type === 'transfer');
    assert.deepStrictEqual(transfers.map((t) => `${t.memory} ${t.direction} ${t.status}`), [
      'pageable hostToDevice ok',
      'pageable deviceToHost ok',
      'pinned hostToDevice unsupported',
      'pinned deviceToHost unsupported',
    ]);
    assert.match(transfers[2].message, /_pin_memory/);
    assert.ok(!transfers[2].message.includes('\n'), 'one line, not the whole dispatcher dump');
  });

  it('exits by itself when its caller dies, instead of computing for nobody', async () => {
    const args = JSON.stringify({ sizes: [1024], repeats: 1000 });
    // sh starts bench.py in the background, prints its pid and exits: bench.py's parent is gone.
    const shell = spawn('/bin/sh', ['-c', `"$0" "$1" "$2" >/dev/null 2>&1 & echo $!; sleep 2`, DEBIAN_PYTHON, BENCH_PY, args], { env: benchEnv() });
    let out = '';
    shell.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const pid = await waitFor('the pid of bench.py', () => (/^\d+\n/.test(out) ? Number(out.trim()) : undefined));
    assert.ok(isAlive(pid));
    await new Promise((resolve) => shell.on('exit', resolve));
    await waitFor('bench.py to exit after its parent', () => !isAlive(pid), 5_000);
  });
});
