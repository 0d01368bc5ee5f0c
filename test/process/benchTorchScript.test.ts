// bench.py on its own, run by Debian's Python: only JSON lines on stdout, flushed as they
// come, clear error lines instead of tracebacks, the jobs and budget semantics, the
// accelerator path (synchronize, pageable and pinned transfers) through a fake CUDA shim,
// and no orphan computing on when its caller dies.
import * as assert from 'assert';
import { spawn, spawnSync } from 'child_process';
import { DEBIAN_PYTHON, isAlive, requireDebianTorch, waitFor } from './workerTestKit';
import { BENCH_PY, benchEnv, recordedEvents, recordedTf32, removeShims, runBenchPy } from './benchTorchKit';

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
    // Debian's torch calls the system OpenBLAS, whose own thread pool is named (issue 28 item 7).
    assert.match(lines[0].detail, /^torch \S+, CPU, \d+ threads?(, (OpenBLAS|MKL|BLIS) \d+ threads?)?$/);
    const result = lines[6];
    assert.deepStrictEqual(Object.keys(result), ['type', 'status', 'timesSec', 'productsPerSample', 'maxRelError', 'checksumRelError', 'checkedEntries', 'worst', 'detail', 'dtype', 'size']);
    assert.strictEqual(result.size, 32);
    assert.strictEqual(result.timesSec.length, 2);
    assert.strictEqual(result.productsPerSample, 1, 'fixed repeats: one product per sample');
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
      [JSON.stringify({ dtypes: ['int8'] }), 'bad-args', /^dtypes must be a list of float32, tf32, float16, bfloat16/],
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

  it('with a repeat budget, times blocks of products, each between two synchronizations and two clock reads, until the budget is spent', () => {
    const budget = 0.25;
    // n = 64, not smaller: every product is a recorded event, and on a quick machine a 16×16
    // product's tens of thousands of events overflowed the 1 MiB of stderr a test reads.
    const { lines, stderr } = runBenchPy({ device: 'cuda:0', sizes: [64], repeatBudgetSec: budget, blockSec: 0.02, warmup: 1 }, { shim: 'fake-cuda-recorded' });
    const result = lines.find((l) => l.type === 'result');
    assert.strictEqual(result?.status, 'ok', stderr);
    const perBlock: number = result.productsPerSample;
    const samples: number[] = result.timesSec;
    assert.ok(perBlock > 1, `a 64×64 product is far shorter than a 20 ms block, so blocks hold many (got ${perBlock})`);
    assert.ok(samples.length >= 5 && samples.length <= 100, `between the fewest and the most blocks (got ${samples.length})`);
    // Every sample is its block's time / its products: the blocks together spent about the
    // budget, or stopped at bench.py's MAX_BLOCKS first. A calibration block slowed by a busy
    // machine sizes the blocks too small, and then the hundredth block ends the run early.
    const spent = samples.reduce((sum, t) => sum + t * perBlock, 0);
    const MAX_BLOCKS = 100;
    assert.ok((spent >= budget || samples.length === MAX_BLOCKS) && spent < budget + 0.5, `the blocks spent ${spent} s of a ${budget} s budget in ${samples.length} blocks`);
    const block = ['sync', 'clock', ...Array(perBlock).fill('matmul'), 'sync', 'clock'];
    const events = recordedEvents(stderr);
    const timed = events.slice(events.length - samples.length * block.length);
    for (let i = 0; i < samples.length; i++) assert.deepStrictEqual(timed.slice(i * block.length, (i + 1) * block.length), block, `block ${i}`);
    // Before them: the dtype check, the inputs' sync, the warm-up, then calibration blocks, each synchronized the same way.
    assert.deepStrictEqual(events.slice(0, 6), ['matmul', 'sync', 'sync', 'matmul', 'sync', 'sync']);
    const calibration = events.slice(5, events.length - timed.length);
    assert.strictEqual(calibration.filter((e) => e === 'sync').length, calibration.filter((e) => e === 'clock').length);
    assert.strictEqual(calibration.at(-1), 'clock');
  });

  it('a product longer than a block is one product per block, and the calibration timing is the first sample', () => {
    const { lines, stderr } = runBenchPy({ device: 'cuda:0', sizes: [64], repeatBudgetSec: 0.1, blockSec: 1e-9 }, { shim: 'fake-cuda-recorded' });
    const result = lines.find((l) => l.type === 'result');
    assert.strictEqual(result?.productsPerSample, 1, stderr);
    assert.strictEqual(result.timesSec.length >= 5, true);
    const timed = ['sync', 'clock', 'matmul', 'sync', 'clock'];
    const events = recordedEvents(stderr);
    // check + inputs + warm-up, then exactly one timed product per sample: no calibration product is wasted.
    assert.deepStrictEqual(events, ['matmul', 'sync', 'sync', 'matmul', 'sync', ...Array(result.timesSec.length).fill(timed).flat()]);
  });

  it('tf32 allows TF32 for its own products only and restores the setting; off CUDA it is unsupported with the reason', () => {
    const { lines, stderr } = runBenchPy({ device: 'cuda:0', jobs: [{ dtype: 'float32', size: 16 }, { dtype: 'tf32', size: 16 }, { dtype: 'float32', size: 24 }], repeats: 2 }, { shim: 'fake-cuda-recorded' });
    const results = lines.filter((l) => l.type === 'result');
    assert.deepStrictEqual(results.map((r) => `${r.dtype} ${r.status}`), ['float32 ok', 'tf32 ok', 'float32 ok'], stderr);
    assert.match(results[1].detail, /TF32 allowed$/);
    assert.doesNotMatch(results[0].detail, /TF32/);
    // Per job: the dtype check (tf32's runs before it allows TF32), warm-up, 2 timed products.
    assert.deepStrictEqual(recordedTf32(stderr), [false, false, false, false, false, true, true, true, false, false, false]);
    const cpu = runBenchPy({ dtypes: ['tf32'], sizes: [16], repeats: 1 });
    const refused = cpu.lines.find((l) => l.type === 'result');
    assert.strictEqual(refused?.status, 'unsupported');
    assert.match(refused.message, /^tf32 is a CUDA matmul mode \(torch\.backends\.cuda\.matmul\.allow_tf32\); it does not apply to cpu/);
  });

  it('times the device-memory copy between synchronizations: each copy alone between two syncs and two clock reads', () => {
    const bytes = 4 * 1024 * 1024;
    const { lines, stderr } = runBenchPy({ device: 'cuda:0', sizes: [16], repeats: 1, memory: true, memoryCopyBytes: bytes }, { shim: 'fake-cuda-recorded' });
    const copies = lines.filter((l) => l.type === 'transfer');
    assert.deepStrictEqual(copies.map((t) => [t.direction, t.memory, t.status, t.bytes, t.timesSec.length]), [['deviceToDevice', 'device', 'ok', bytes, 10]], stderr);
    const events = recordedEvents(stderr);
    const fromCopies = events.slice(events.indexOf('copy'));
    const timed = ['sync', 'clock', 'copy', 'sync', 'clock'];
    // The buffers are synchronized after filling, a warm-up copy is waited for, then 10 timed copies.
    assert.deepStrictEqual(events.slice(events.indexOf('copy') - 1), ['sync', ...['copy', 'sync'], ...Array(10).fill(timed).flat()]);
    assert.strictEqual(fromCopies.filter((e) => e === 'copy').length, 11);
  });

  it('measures the host memory copy on the CPU only when asked, and with a real torch', () => {
    assert.deepStrictEqual(runBenchPy({ sizes: [16], repeats: 1 }).lines.filter((l) => l.type === 'transfer'), []);
    const { lines } = runBenchPy({ sizes: [16], repeats: 1, memory: true, memoryCopyBytes: 8 * 1024 * 1024 });
    const copy = lines.find((l) => l.type === 'transfer');
    assert.strictEqual(copy?.status, 'ok');
    assert.strictEqual(copy.direction, 'deviceToDevice');
    assert.ok(copy.timesSec.every((t: number) => t > 0));
  });

  it('answers a bad repeat budget or block with an error line', () => {
    for (const [args, message] of [
      [{ repeatBudgetSec: 0 }, /^repeatBudgetSec must be a positive number of seconds, not 0/],
      [{ blockSec: 'x' }, /^blockSec must be a positive number of seconds/],
      [{ jobs: [{ dtype: 'float32', size: 8, repeatBudgetSec: -1 }] }, /^jobs must be a list of \{dtype, size, repeatBudgetSec\?\}/],
      [{ memoryCopyBytes: 0 }, /^memoryCopyBytes must be a whole number >= 1/],
    ] as const) {
      const run = runBenchPy(args);
      assert.deepStrictEqual(types(run.lines), ['error', 'done'], JSON.stringify(args));
      assert.match(run.lines[0].message, message);
    }
  });

  it('on an accelerator, names the device and measures pageable and pinned copies both ways, then the device-memory copy', () => {
    // The fake's device memory is host memory: keep its copy buffers small.
    const { lines, stderr } = runBenchPy({ device: 'cuda:0', sizes: [64], repeats: 2, transfer: true, memoryCopyBytes: 1 << 20 }, { shim: 'fake-cuda' });
    assert.strictEqual(lines[0].device, 'cuda:0', stderr);
    assert.match(lines[0].detail, /^torch \S+, Fake CUDA GPU \(host memory\), CUDA 12\.4/);
    assert.strictEqual(lines.find((l) => l.type === 'result')?.status, 'ok');
    const transfers = lines.filter((l) => l.type === 'transfer');
    assert.deepStrictEqual(transfers.map((t) => `${t.memory} ${t.direction} ${t.status}`), [
      'pageable hostToDevice ok',
      'pageable deviceToHost ok',
      'pinned hostToDevice ok',
      'pinned deviceToHost ok',
      'device deviceToDevice ok',
    ]);
    assert.strictEqual(transfers.pop()?.bytes, 1 << 20);
    // mem_get_info says 8 GiB free: a quarter of it is more than the 256 MiB cap.
    for (const t of transfers) {
      assert.strictEqual(t.bytes, 256 * 1024 ** 2);
      assert.strictEqual(t.timesSec.length, 5);
    }
    assert.strictEqual(types(lines).pop(), 'done');
  });

  it('measures no transfers on the CPU, and reports pinned memory it cannot get as unsupported', () => {
    assert.deepStrictEqual(runBenchPy({ sizes: [16], repeats: 1, transfer: true }).lines.filter((l) => l.type === 'transfer'), []);
    const { lines } = runBenchPy({ device: 'cuda', sizes: [16], repeats: 1, transfer: true, memoryCopyBytes: 1 << 20 }, { shim: 'fake-cuda-unpinned' });
    const transfers = lines.filter((l) => l.type === 'transfer');
    assert.deepStrictEqual(transfers.map((t) => `${t.memory} ${t.direction} ${t.status}`), [
      'pageable hostToDevice ok',
      'pageable deviceToHost ok',
      'pinned hostToDevice unsupported',
      'pinned deviceToHost unsupported',
      'device deviceToDevice ok',
    ]);
    assert.match(transfers[2].message, /_pin_memory/);
    assert.ok(!transfers[2].message.includes('\n'), 'one line, not the whole dispatcher dump');
  });

  it('serves the probe, then each stdin line in turn with its own thread count, each ended by done, and exits at EOF', () => {
    const two = JSON.stringify({ device: 'cpu', sizes: [32], repeats: 1, threads: 2 });
    const own = JSON.stringify({ device: 'cpu', sizes: [32], repeats: 1 });
    const run = spawnSync(DEBIAN_PYTHON, [BENCH_PY, '{"serve": true}'], { env: benchEnv(), input: `${two}\n${own}\n`, encoding: 'utf8', timeout: 120_000 });
    assert.strictEqual(run.status, 0, run.stderr);
    const lines = run.stdout.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { type: string; detail?: string; status?: string });
    const kinds = lines.map((l) => l.type).filter((t) => t !== 'progress');
    assert.deepStrictEqual(kinds, ['probe', 'ready', 'result', 'done', 'ready', 'result', 'done']);
    const [first, second] = lines.filter((l) => l.type === 'ready').map((l) => l.detail ?? '');
    assert.match(first, /CPU, 2 threads/);
    // The second argument names no thread count: torch's own choice again, not the first one's 2.
    const ownThreads = /CPU, (\d+) threads?/.exec(runBenchPy({ device: 'cpu', sizes: [8], repeats: 1 }).lines[0].detail)?.[1];
    assert.match(second, new RegExp(`CPU, ${ownThreads} threads?`));
    assert.ok(lines.filter((l) => l.type === 'result').every((l) => l.status === 'ok'), run.stdout);
  });

  it('exits by itself when the Device Doctor process that started it dies, instead of computing for nobody', async () => {
    const args = JSON.stringify({ sizes: [1024], repeats: 1000 });
    // sh starts bench.py in the background as Device Doctor's runner does (naming itself its
    // parent), prints its pid and exits: bench.py's parent is gone.
    const shell = spawn('/bin/sh', ['-c', `DEVICE_DOCTOR_PARENT_PID=$$ "$0" "$1" "$2" >/dev/null 2>&1 & echo $!; sleep 2`, DEBIAN_PYTHON, BENCH_PY, args], { env: benchEnv() });
    let out = '';
    shell.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const pid = await waitFor('the pid of bench.py', () => (/^\d+\n/.test(out) ? Number(out.trim()) : undefined));
    assert.ok(isAlive(pid));
    await new Promise((resolve) => shell.on('exit', resolve));
    await waitFor('bench.py to exit after its parent', () => !isAlive(pid), 5_000);
  });
});
