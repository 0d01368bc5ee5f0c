// `device-doctor bench`: its arguments, what it asks the benchmark code, the built
// dist/cli.js with Debian's PyTorch (--json exactly in README.md's shape, the text table,
// exit statuses, impossible requests refused before any interpreter runs, Ctrl-C), and
// doctor's closing quick benchmark.
import * as assert from 'assert';
import { spawn, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parseArgs, type BenchOptions } from '../../src/cli/args';
import { benchJsonText, benchParamsOf, exitStatusOf, quickBenchSection } from '../../src/cli/commands/bench';
import { formatBenchText } from '../../src/cli/formats/benchText';
import { buildRun } from '../../src/core/bench/compare';
import { makeBenchResult } from '../../src/core/bench/result';
import type { BenchRunResponse, TransferResult } from '../../src/protocol/worker';
import { runDoctorCommand, type MachineFacts } from '../../src/cli/commands/doctor';
import { memoryIo } from '../../src/cli/io';
import type { DeviceReport } from '../../src/core/devices/report';
import { isRunning, parentOf, processesMatching } from './benchTorchKit';
import { buildDist, CLI_JS, DEBIAN_PYTHON, requireDebianTorch, scenarioEnv, tempDir, waitFor } from './workerTestKit';

function cli(args: string[], env = scenarioEnv(undefined)): { status: number | null; out: string; err: string; ms: number } {
  const started = Date.now();
  const result = spawnSync(process.execPath, [CLI_JS, ...args], { env: { ...env, PYTHONDONTWRITEBYTECODE: '1' }, encoding: 'utf8', timeout: 120_000 });
  return { status: result.status, out: result.stdout, err: result.stderr, ms: Date.now() - started };
}

/** An interpreter that leaves a mark when run, then is Debian's Python. */
function markingPython(dir: string): { python: string; marker: string } {
  const marker = path.join(dir, 'ran');
  const python = path.join(dir, 'python3');
  fs.writeFileSync(python, `#!/bin/sh\ntouch '${marker}'\nexec ${DEBIAN_PYTHON} "$@"\n`, { mode: 0o755 });
  return { python, marker };
}

describe('cli: bench arguments', () => {
  it('reads every option, with separate or = values', () => {
    const parsed = parseArgs(['bench', '--engine', 'torch', '--device=cuda:1', '--size', '2048', '--repeats=5', '--dtype', 'float32,bfloat16', '--python', '/p/python', '--json']);
    assert.deepStrictEqual(parsed, {
      command: 'bench',
      options: { sweep: false, json: true, engine: 'torch', device: 'cuda:1', size: 2048, repeats: 5, dtypes: ['float32', 'bfloat16'], python: '/p/python' },
    });
    assert.deepStrictEqual(parseArgs(['bench', '--sweep', '--dtype', 'all']), { command: 'bench', options: { sweep: true, json: false, dtypes: ['float32', 'float16', 'bfloat16'] } });
    assert.deepStrictEqual(parseArgs(['bench', '-h']), { command: 'help', topic: 'bench' });
  });

  it('rejects unknown options, positionals, missing values, non-numbers, and --size with --sweep', () => {
    const errors = [['--fast'], ['now'], ['--size'], ['--size', 'big'], ['--repeats', ''], ['--size', '512', '--sweep']].map((argv) => {
      const parsed = parseArgs(['bench', ...argv]);
      assert.strictEqual(parsed.command, 'usage-error', argv.join(' '));
      assert.strictEqual((parsed as { topic?: string }).topic, 'bench', argv.join(' '));
      return (parsed as { message: string }).message;
    });
    assert.deepStrictEqual(errors, [
      "unknown option '--fast'",
      "'bench' takes no arguments (got 'now')",
      "option '--size' needs a value",
      "--size needs a number (got 'big')",
      "--repeats needs a number (got '')",
      'use either --size or --sweep, not both',
    ]);
    // Out-of-range numbers parse: the core's validation judges them (and says why).
    assert.deepStrictEqual(parseArgs(['bench', '--size', '0']), { command: 'bench', options: { sweep: false, json: false, size: 0 } });
  });

  it('asks for all engines, one engine on one device, or a device against the CPU', () => {
    const of = (options: Partial<BenchOptions>) => benchParamsOf({ sweep: false, json: false, ...options }, '/py');
    assert.deepStrictEqual(of({ engine: 'all', device: 'cpu' }), { pythonPath: '/py', pinnedDevice: null, compare: 'all', engine: undefined, device: 'cpu', size: undefined, sweep: false, repeats: undefined, dtypes: undefined });
    assert.strictEqual(of({ engine: 'torch', device: 'cpu' }).compare, 'single');
    assert.strictEqual(of({ engine: 'torch' }).compare, 'versus-cpu');
    assert.strictEqual(of({ device: 'cuda:0' }).compare, 'versus-cpu');
    assert.strictEqual(of({ sweep: true, size: 512 }).size, undefined);
  });
});

describe('cli: bench text and exit status', () => {
  const result = (engine: 'torch' | 'wasm', device: string, size: number, seconds: number) => ({
    status: 'ok' as const,
    result: makeBenchResult({ plan: { engine, device, dtype: 'float32', size }, timesSec: [seconds, seconds * 1.05, seconds * 0.95], maxRelError: 2.5e-7, checkedEntries: 64 }),
  });
  const transfer = (memory: 'pageable' | 'pinned', gbPerSec: number | null): TransferResult => ({
    device: 'cuda:0', direction: 'hostToDevice', memory, bytes: 256 * 1024 ** 2, status: gbPerSec === null ? 'unsupported' : 'ok',
    timesSec: [], medianSec: null, gbPerSec, message: gbPerSec === null ? 'no pinned memory here' : null,
  });
  const response = (runs: Parameters<typeof buildRun>[0], extra: Partial<BenchRunResponse> = {}): BenchRunResponse => ({
    ...buildRun(runs), transfers: [], cancelled: false, selectedDevice: 'cuda:0', description: 'torch on cuda:0 compared with torch on the CPU', ...extra,
  });

  it('prints what was compared, the table with the baseline and speedups, transfers and problems with their fixes', () => {
    const refused = { status: 'refused' as const, engine: 'torch' as const, device: 'cuda:0', dtype: 'float32' as const, size: 8192, message: 'Refused: too big.', remedy: 'Choose a size up to 4180.' };
    const text = formatBenchText(response([result('torch', 'cuda:0', 1024, 0.001), result('torch', 'cpu', 1024, 0.04), refused], { transfers: [transfer('pageable', 12.34), transfer('pinned', null)] }));
    assert.strictEqual(text, [
      'torch on cuda:0 compared with torch on the CPU',
      '',
      'ENGINE  DEVICE  DTYPE       N  MEDIAN ms  ±IQR ms  GFLOP/s  % PEAK  MAX REL ERR   SPEEDUP',
      'torch   cuda:0  float32  1024          1     0.05   2147.5               2.5e-7       40×',
      'torch   cpu     float32  1024         40        2     53.7               2.5e-7  baseline',
      '',
      'torch on cuda:0 is 40× faster than torch on the CPU (n = 1024, float32)',
      '',
      'Host ↔ cuda:0 copies (torch)',
      '  host → device, pageable: 12.3 GB/s (256 MiB copies)',
      '  host → device, pinned: not measured (no pinned memory here)',
      '',
      'Not measured',
      '  torch cuda:0 float32 n = 8192 (refused): Refused: too big.',
      '    fix: Choose a size up to 4180.',
      '',
    ].join('\n'));
  });

  it('does not call a lone engine the baseline, and marks a cancelled run', () => {
    const text = formatBenchText(response([result('torch', 'cpu', 256, 0.001), result('torch', 'cpu', 512, 0.008)], { cancelled: true, description: 'torch on cpu' }));
    assert.match(text, /^torch on cpu \(cancelled\)\n/);
    assert.doesNotMatch(text, /baseline/);
  });

  it('adds transfers to --json only when there are any, and exits by what happened', () => {
    const plain = response([result('torch', 'cpu', 64, 0.001)]);
    assert.deepStrictEqual(Object.keys(JSON.parse(benchJsonText(plain))), ['schemaVersion', 'results', 'speedup', 'problems']);
    assert.deepStrictEqual(Object.keys(JSON.parse(benchJsonText({ ...plain, transfers: [transfer('pinned', 20)] }))), ['schemaVersion', 'results', 'speedup', 'problems', 'transfers']);
    const wrong = { status: 'wrong-result' as const, engine: 'torch' as const, device: 'cpu', dtype: 'float32' as const, size: 64, message: 'Wrong product', remedy: null };
    assert.deepStrictEqual(
      [exitStatusOf(plain), exitStatusOf(response([result('torch', 'cpu', 64, 0.001), wrong])), exitStatusOf(response([])), exitStatusOf({ ...plain, cancelled: true })],
      [0, 1, 1, 130],
    );
  });
});

describe('cli: bench (dist/cli.js)', function () {
  this.timeout(120_000);
  let tmp: string;

  before(() => {
    requireDebianTorch();
    buildDist();
  });
  beforeEach(() => (tmp = tempDir('dd-cli-bench-')));
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('--json prints exactly the documented shape (README.md) through the core serializer', () => {
    const { status, out, err } = cli(['bench', '--engine', 'torch', '--device', 'cpu', '--size', '128', '--repeats', '3', '--json', '--python', DEBIAN_PYTHON]);
    assert.strictEqual(status, 0, err);
    const json = JSON.parse(out);
    assert.deepStrictEqual(Object.keys(json), ['schemaVersion', 'results', 'speedup', 'problems']);
    assert.strictEqual(json.schemaVersion, 1);
    assert.strictEqual(json.results.length, 1);
    const [r] = json.results;
    assert.deepStrictEqual(Object.keys(r), ['engine', 'device', 'threads', 'dtype', 'size', 'repeats', 'timesSec', 'medianSec', 'iqrSec', 'gflops', 'peakGflops', 'percentOfPeak', 'peakBasis', 'noisy', 'noiseReason', 'maxRelError']);
    assert.deepStrictEqual([r.engine, r.device, r.dtype, r.size, r.repeats, r.timesSec.length], ['torch', 'cpu', 'float32', 128, 3, 3]);
    assert.strictEqual(r.medianSec, [...r.timesSec].sort((a: number, b: number) => a - b)[1]);
    assert.ok(Math.abs(r.gflops - (2 * 128 ** 3) / r.medianSec / 1e9) < 1e-6);
    assert.ok(r.maxRelError >= 0 && r.maxRelError < 1e-5);
    // One named torch run keeps torch's own thread count (threads null) and compares nothing.
    assert.strictEqual(r.threads, null);
    assert.deepStrictEqual(json.speedup, { kind: 'versus-baseline', baseline: { engine: 'torch', device: 'cpu' }, entries: [] });
    // The peak of this CPU (core/bench/cpuPeak.ts) and the result as a percent of it.
    assert.ok(r.peakGflops > 0, out);
    assert.ok(Math.abs(r.percentOfPeak - (100 * r.gflops) / r.peakGflops) < 1e-9);
    // An estimate from a named clock, or the measured rate where a result beat it (issue 28 item 6).
    assert.match(r.peakBasis, /^float32 peak( \(an estimate\) of \d+ cores? × [\d.]+ GHz \((maximum boost clock|reported clock, which boost may exceed)\) × \d+ FLOP\/cycle|: the best measured here)/);
    assert.ok(r.percentOfPeak <= 100, `${r.percentOfPeak} % of peak`);
    assert.strictEqual(typeof r.noisy, 'boolean');
    // n = 128 is too small for a below-peak diagnosis; torch on one thread of several cores is said whatever the size.
    assert.deepStrictEqual(json.problems.map((p: { code: string }) => p.code).filter((c: string) => c !== 'one-thread'), []);
    assert.match(err, /^\[1\/1\] torch cpu float32 n=128: 3 repeats timed\n$/, 'progress goes to stderr, never into the JSON');
  });

  it('the CPU peak is cores × max clock × FLOP/cycle of this CPU (AMD Zen 4: 32, Zen 5: 64; within 15 %), and a run with one thread is diagnosed', () => {
    const cpuinfo = fs.readFileSync('/proc/cpuinfo', 'utf8');
    const maxMhz = Math.max(...[...cpuinfo.matchAll(/cpu MHz\s*: ([\d.]+)/g)].map((m) => Number(m[1])));
    const cores = new Set([...cpuinfo.matchAll(/core id\s*: (\d+)/g)].map((m) => m[1])).size || 1;
    const env = { ...scenarioEnv(undefined), OMP_NUM_THREADS: '1' };
    const { status, out, err } = cli(['bench', '--engine', 'torch', '--device', 'cpu', '--size', '512', '--repeats', '3', '--json', '--python', DEBIAN_PYTHON], env);
    assert.strictEqual(status, 0, err);
    const json = JSON.parse(out);
    const r = json.results[0];
    // The basis names its factors; they must be this machine's and multiply to the peak.
    const basis = /float32 peak \(an estimate\) of (\d+) cores? × ([\d.]+) GHz \([^)]*\) × (\d+) FLOP\/cycle/.exec(r.peakBasis);
    assert.ok(basis, r.peakBasis);
    const [, basisCores, basisGhz, flopPerCycle] = basis.map(Number);
    assert.strictEqual(basisCores, cores, r.peakBasis);
    assert.ok(Math.abs(basisGhz * 1000 - maxMhz) / maxMhz < 0.15, `${r.peakBasis} vs ${maxMhz} MHz`);
    assert.ok(Math.abs(r.peakGflops - basisCores * basisGhz * flopPerCycle) / r.peakGflops < 0.01, `${r.peakGflops} vs ${r.peakBasis}`);
    // AMD's datasheets: Zen 4 runs AVX-512 on two 256-bit FMA pipes (32 float32 FLOP/cycle), Zen 5 on two 512-bit ones (64).
    const family = Number(/cpu family\s*: (\d+)/.exec(cpuinfo)?.[1]);
    const amd = /vendor_id\s*: AuthenticAMD/.test(cpuinfo);
    if (amd && family === 25) assert.strictEqual(flopPerCycle, 32, r.peakBasis);
    if (amd && family === 26) assert.strictEqual(flopPerCycle, 64, r.peakBasis);
    assert.ok([8, 16, 32, 64].includes(flopPerCycle), r.peakBasis);
    const oneThread = json.problems.find((p: { code: string }) => p.code === 'one-thread');
    if (cores >= 2) {
      assert.ok(oneThread, out);
      assert.strictEqual(oneThread.status, 'below-peak');
      assert.match(oneThread.remedy, /torch\.set_num_threads/);
    } else {
      assert.strictEqual(oneThread, undefined, out);
    }
  });

  it('prints the table and the thread scaling of the default comparison (torch on all threads against one here)', () => {
    const all = Math.min(os.availableParallelism(), new Set([...fs.readFileSync('/proc/cpuinfo', 'utf8').matchAll(/core id\s*: (\d+)/g)].map((m) => m[1])).size || os.availableParallelism());
    const { status, out } = cli(['bench', '--size', '64', '--repeats', '2', '--python', DEBIAN_PYTHON]);
    assert.strictEqual(status, 0);
    const lines = out.split('\n');
    // One core (not these machines): nothing to scale, and it says so.
    if (all < 2) return assert.match(lines[0], /one core only, so there is no thread scaling to measure\)$/);
    assert.strictEqual(lines[0], `No accelerator selected: torch on the CPU with all ${all} threads (the physical cores this process may use) compared with 1 thread`);
    assert.match(lines[2], /^ENGINE +DEVICE +DTYPE +N +MEDIAN ms +±IQR ms +GFLOP\/s +% PEAK +MAX REL ERR +SPEEDUP$/);
    // Both rows are torch, told apart by their thread count, each with its % of this CPU's peak; no wasm.
    assert.match(lines[3], new RegExp(`^torch +cpu ×${all} +float32 +64 +[\\d.]+ +[\\d.]+( noisy)? +[\\d.]+ +[\\d.]+ % +\\d\\.\\de-\\d+ +[\\d.]+×$`));
    assert.match(lines[4], /^torch +cpu ×1 +float32 +64 +[\d.]+ +[\d.]+( noisy)? +[\d.]+ +[\d.]+ % +\d\.\de-\d+ +baseline$/);
    assert.doesNotMatch(out, /wasm/);
    // A speedup, or (noise, the host's load, or Debian's OpenBLAS ignoring set_num_threads) no clear comparison and why (issue 28 item 8).
    assert.match(out, new RegExp(`\\ntorch cpu ${all} threads (is ([\\d.]+× (faster|slower) than|about as fast as) 1 thread \\(n = 64, float32\\)|against torch cpu 1 thread: no clear comparison, .+ \\(n = 64\\))\\n`));
  });

  it('exits 2 at once for an impossible size or dtype, before any interpreter runs', () => {
    const { python, marker } = markingPython(tmp);
    for (const [args, message] of [
      [['--size', '0'], 'error: Matrix size must be a whole number from 1 to 32768, not 0.\n'],
      [['--size', '100000'], 'error: Matrix size must be a whole number from 1 to 32768, not 100000.\n'],
      [['--dtype', 'int8'], 'error: Unknown dtype "int8": use float32, tf32 (CUDA), float16 or bfloat16.\n'],
      [['--engine', 'cuda'], 'error: Unknown engine "cuda": use torch, tfjs-node-gpu, tfjs-node, wasm or js.\n'],
      [['--device', 'gpu'], 'error: Unknown device "gpu": use cpu, cuda, cuda:N or mps.\n'],
    ] as const) {
      const result = cli(['bench', ...args, '--python', python]);
      assert.deepStrictEqual([result.status, result.out, result.err], [2, '', message], args.join(' '));
    }
    assert.ok(!fs.existsSync(marker), 'no interpreter was run');
  });

  it('exits 2 for a device this machine does not have, once detect has said what it has', () => {
    for (const args of [['--device', 'cuda:7'], ['--engine', 'torch', '--device', 'cuda:7']]) {
      const result = cli(['bench', ...args, '--json', '--python', DEBIAN_PYTHON]);
      assert.deepStrictEqual([result.status, result.out], [2, ''], args.join(' '));
      assert.match(result.err, /^error: The torch engine has no device cuda:7; it has cpu\. Pick one of the devices/);
    }
  });

  it('exits 2 for a CPU size that cannot finish within the time budget (n = 32768 ran 600 s+ at 12.6 GB), saying how long and what fits', () => {
    const { status, out, err, ms } = cli(['bench', '--size', '32768', '--device', 'cpu', '--python', DEBIAN_PYTHON]);
    assert.deepStrictEqual([status, out], [2, ''], err);
    // Measured on this machine's torch (a few small products), or, without room for the matrices, the host memory account.
    assert.match(
      err,
      /^error: Refused: n = 32768 float32 on the CPU (would take about [\d.]+ (minutes|hours|days) with the torch engine \(\d+ products of 2·n³ flops, est\. from [\d.]+ GFLOP\/s, measured at n = \d+[^)]*\); the budget is 300 s\. To finish within the budget, choose n ≤ \d+, or fewer repeats\.|needs [\d.]+ GiB of host memory: .*)\n$/,
    );
    assert.ok(ms < 60_000, `took ${ms} ms`);
  });

  it('times a few small products when the bounds cannot tell, and exits 2 with the measured estimate', () => {
    const { status, out, err, ms } = cli(['bench', '--engine', 'js', '--device', 'cpu', '--size', '2048', '--repeats', '100', '--python', DEBIAN_PYTHON]);
    assert.deepStrictEqual([status, out], [2, ''], err);
    assert.match(err, /^error: Refused: n = 2048 float32 on the CPU would take about [\d.]+ (minutes|hours) with the js engine \(101 products of 2·n³ flops, est\. from [\d.]+ GFLOP\/s, measured at n = \d+ and slowed 3× for this size\); the budget is 300 s\. To finish within the budget, choose n ≤ \d+, or fewer repeats\.\n$/);
    assert.ok(ms < 30_000, `took ${ms} ms`);
  });

  it('a sweep stops at what fits and reports the sizes it refused for time in --json, with the estimate and the budget', () => {
    const { status, out, err } = cli(['bench', '--engine', 'js', '--device', 'cpu', '--sweep', '--repeats', '5', '--json', '--python', DEBIAN_PYTHON]);
    assert.strictEqual(status, 0, err);
    const json = JSON.parse(out);
    assert.ok(json.results.length >= 1 && json.results.every((r: { size: number }) => r.size <= 1024), out);
    // js does at most 20 GFLOP/s (one thread): n = 8192 × 6 products takes at least 329 s.
    const refused = json.problems.filter((p: { status: string }) => p.status === 'refused');
    assert.deepStrictEqual(refused.map((p: { size: number; budgetSec: number }) => [p.size, p.budgetSec]), [[8192, 300]]);
    assert.ok(refused[0].estimatedSec > 300, out);
    // The sizes between the last measured and the refused one are not silently dropped: the sweep says where it stopped and why.
    const last = Math.max(...json.results.map((r: { size: number }) => r.size));
    assert.strictEqual(json.sweep.stopSec > 0, true, out);
    assert.deepStrictEqual(json.sweep.stops.map((s: { engine: string; lastSize: number; reason: string; skipped: number[] }) => [s.engine, s.lastSize, s.reason, s.skipped]),
      [['js', last, 'budget', [256, 512, 1024, 2048, 4096].filter((n) => n > last)]], out);
  });

  it('exits 1 when nothing could be measured, and says why with a remedy', () => {
    const fp16 = cli(['bench', '--engine', 'torch', '--device', 'cpu', '--dtype', 'float16', '--size', '64', '--python', DEBIAN_PYTHON]);
    // Debian's torch 1.13 has no float16 matmul on the CPU; a newer torch measures it (exit 0).
    if (fp16.status === 0) assert.match(fp16.out, /float16/);
    else {
      assert.strictEqual(fp16.status, 1);
      assert.match(fp16.out, /Nothing was measured\.\n\nNot measured\n {2}torch cpu float16 n = 64 \(unsupported\): This PyTorch cannot multiply float16 matrices on cpu/);
      assert.match(fp16.out, /\n {4}fix: /);
    }
    const noTorch = cli(['bench', '--engine', 'torch', '--device', 'cpu', '--python', path.join(tmp, 'missing-python')]);
    assert.strictEqual(noTorch.status, 2);
    assert.match(noTorch.err, /^error: PyTorch is not usable with .*missing-python/);
  });

  it('Ctrl-C stops a long run at once and takes bench.py with it', async () => {
    const child = spawn(process.execPath, [CLI_JS, 'bench', '--engine', 'torch', '--device', 'cpu', '--size', '1024', '--repeats', '999', '--python', DEBIAN_PYTHON], { env: scenarioEnv(undefined) });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    // The bench.py that answered detect's probe runs the product too (its argument on stdin).
    const pid = await waitFor('bench.py', () => processesMatching('bench.py', '"serve"').find((p) => parentOf(p) === child.pid), 60_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const interrupted = Date.now();
    child.kill('SIGINT');
    assert.strictEqual(await exited, 130);
    await waitFor('bench.py to be gone', () => !isRunning(pid), 1_000);
    assert.ok(Date.now() - interrupted < 1_000, `took ${Date.now() - interrupted} ms`);
  });
});

describe('cli: doctor quick benchmark', function () {
  this.timeout(120_000);

  const machine: MachineFacts = {
    nodeVersion: 'v20.1.0', platform: 'linux', arch: 'x64', release: '6.1.0',
    cpuModel: 'Example CPU', logicalCores: 2, totalMemoryBytes: 8 * 1024 ** 3, freeMemoryBytes: 4 * 1024 ** 3,
  };

  function cpuReport(python: string | null): DeviceReport {
    const torch = python && { interpreter: python, version: '1.13', cuda: { built: false, available: false, version: null, deviceCount: 0 }, mps: { built: false, available: false } };
    return { schemaVersion: 1, host: { memory: { totalBytes: null, freeBytes: null } }, accelerators: [], torch, selected: { device: 'cpu', reason: 'test' }, problems: [] } as unknown as DeviceReport;
  }

  it('compares torch on all threads with torch on one when there is no accelerator, and says what it compared', async () => {
    requireDebianTorch();
    const lines = await quickBenchSection(cpuReport(DEBIAN_PYTHON), DEBIAN_PYTHON);
    assert.strictEqual(lines[0], 'Quick benchmark (matmul n = 512, float32, median of 5)');
    assert.match(lines[1], /^ {2}No accelerator selected: torch on the CPU with all (\d+) threads \(the physical cores this process may use\) compared with 1 thread$/);
    const all = /all (\d+) threads/.exec(lines[1])![1];
    assert.match(lines[2], new RegExp(`^ {2}torch cpu ${all} threads +[\\d.]+ GFLOP/s {2}\\(median [\\d.]+ ms\\) {2}[\\d.]+× the speed of 1 thread$`));
    assert.match(lines[3], /^ {2}torch cpu 1 thread +[\d.]+ GFLOP\/s {2}\(median [\d.]+ ms\)$/);
    // Then the diagnoses (torch on one thread of two, a BLAS far below the peak), if any, and the pointer to bench.
    for (const line of lines.slice(4, -1)) assert.match(line, /^ {2}torch cpu: /);
    assert.match(lines[lines.length - 1]!, /^ {2}Run 'device-doctor bench'/);
  });

  it('runs wasm alone without PyTorch, and ends doctor with the section using the same report', async () => {
    const report = cpuReport(null);
    const alone = await quickBenchSection(report, null);
    assert.strictEqual(alone[1], '  No accelerator selected and no usable PyTorch: wasm on the CPU alone');
    const folder = tempDir('dd-doctor-bench-');
    try {
      const io = memoryIo(folder);
      let seen: DeviceReport | null = null;
      await runDoctorCommand(io, {}, {
        machine,
        detect: async () => ({ report, interpreters: [] }),
        quickBench: async (r) => {
          seen = r;
          return ['Quick benchmark', '  stand-in'];
        },
      });
      assert.strictEqual(seen, report, 'one detect serves the summary and the benchmark');
      assert.ok(io.out.endsWith('\nQuick benchmark\n  stand-in\n'), io.out);
      const failed = memoryIo(folder);
      await runDoctorCommand(failed, {}, { machine, detect: async () => Promise.reject(new Error('probe exploded')) });
      assert.ok(failed.out.endsWith('Quick benchmark\n  Skipped: the devices could not be detected.\n'), failed.out);
      assert.strictEqual(failed.err, '');
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });
});
