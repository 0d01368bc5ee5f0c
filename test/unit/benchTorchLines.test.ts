// bench.py's lines on the TypeScript side, without Python: parsing, the correctness
// verdict by the core's thresholds, outcomes with remedies, transfer bandwidth, and how a
// session turns what it saw (or did not see) into one result per plan.
import * as assert from 'assert';
import { planBenchmark, type BenchPlan } from '../../src/core/bench/plan';
import type { BenchProgress, RunResult } from '../../src/core/bench/model';
import { TorchEngine } from '../../src/worker/engines/torch/engine';
import { parseBenchLine, productCheckOf, runFromLine, transferFromLine, type ResultLine } from '../../src/worker/engines/torch/lines';
import { TorchSession } from '../../src/worker/engines/torch/session';
import type { LineProcessEnd } from '../../src/node/lineProcess';

const CAPS = new TorchEngine({ python: null }).capabilities;

function plan(size: number, dtype = 'float32'): BenchPlan {
  const planned = planBenchmark({ engine: 'torch', device: 'cpu', size, dtype, repeats: 3 }, CAPS);
  assert.strictEqual(planned.kind, 'plan');
  return (planned as { plan: BenchPlan }).plan;
}

function okLine(size: number, extra: Partial<ResultLine> = {}): ResultLine {
  return {
    type: 'result', dtype: 'float32', size, status: 'ok', timesSec: [0.003, 0.001, 0.002], maxRelError: 2e-7, checksumRelError: 3e-8,
    checkedEntries: 64, worst: { row: 1, col: 2, expected: 3, actual: 3.0000001 }, detail: 'torch 9.9, CPU, 2 threads', ...extra,
  };
}

const exited: LineProcessEnd = { reason: 'exited', exitCode: 0, signal: null, stderrTail: '' };

describe('torch engine: bench.py lines', () => {
  it('parses its JSON lines and ignores anything else', () => {
    assert.deepStrictEqual(parseBenchLine('{"type": "done"}'), { type: 'done' });
    assert.strictEqual(parseBenchLine('fake torch: loading CUDA plugins'), null);
    assert.strictEqual(parseBenchLine('{"type": "surprise"}'), null);
    assert.strictEqual(parseBenchLine('[1, 2]'), null);
    assert.strictEqual(parseBenchLine('null'), null);
  });

  it('builds a measurement with the core statistics from an ok line', () => {
    const run = runFromLine(plan(256), okLine(256));
    assert.strictEqual(run.status, 'ok');
    const { result } = run as Extract<RunResult, { status: 'ok' }>;
    assert.deepStrictEqual([result.medianSec, result.minSec, result.maxSec, result.q1Sec, result.q3Sec], [0.002, 0.001, 0.003, 0.0015, 0.0025]);
    assert.strictEqual(result.gflops, (2 * 256 ** 3) / 0.002 / 1e9);
    assert.deepStrictEqual([result.maxRelError, result.checkedEntries, result.detail], [2e-7, 64, 'torch 9.9, CPU, 2 threads']);
  });

  it('judges the product by the core thresholds: a sampled entry, a checksum, or a non-finite error fails it', () => {
    assert.strictEqual(productCheckOf(plan(64), okLine(64)).passed, true);
    const entry = productCheckOf(plan(64), okLine(64, { maxRelError: 0.5, worst: { row: 0, col: 0, expected: 16, actual: 33 } }));
    assert.strictEqual(entry.failure, 'Wrong product: entry [0, 0] is 33, the float64 reference is 16 (relative error 5.00e-1, allowed 1.0e-3).');
    const checksum = productCheckOf(plan(64), okLine(64, { checksumRelError: 0.01 }));
    assert.match(checksum.failure ?? '', /^Wrong product: a row checksum is off by 1\.00e-2 relative/);
    const nan = productCheckOf(plan(64), okLine(64, { maxRelError: null, worst: { row: 3, col: 4, expected: 16, actual: null } }));
    assert.strictEqual(nan.passed, false);
    assert.strictEqual(nan.maxRelError, Infinity);
    assert.match(nan.failure ?? '', /entry \[3, 4\] is NaN/);
    // bfloat16 keeps 8 significant bits: 3e-3 passes there, not in float32.
    assert.strictEqual(productCheckOf(plan(64, 'bfloat16'), okLine(64, { dtype: 'bfloat16', maxRelError: 3e-3 })).passed, true);
    assert.strictEqual(runFromLine(plan(64), okLine(64, { maxRelError: 3e-3 })).status, 'wrong-result');
  });

  it('turns malformed times into a failure, and a product faster than the clock into a tiny positive time', () => {
    for (const timesSec of [[], [NaN], [-1], 'soon' as never]) {
      const run = runFromLine(plan(64), okLine(64, { timesSec }));
      assert.strictEqual(run.status, 'failed', JSON.stringify(timesSec));
      assert.match((run as { message: string }).message, /bench\.py sent a result without valid times$/);
    }
    const fast = runFromLine(plan(8), okLine(8, { timesSec: [0, 0, 0] }));
    assert.strictEqual(fast.status, 'ok');
  });

  it('words unsupported, out-of-memory and failed results with remedies', () => {
    const fp16 = runFromLine(plan(64, 'float16'), { type: 'result', dtype: 'float16', size: 64, status: 'unsupported', message: '"addmm_impl_cpu_" not implemented for \'Half\'' });
    assert.strictEqual(fp16.status, 'unsupported');
    assert.match((fp16 as { remedy: string }).remedy, /^Older PyTorch releases have no float16 matmul on the CPU/);
    const oom = runFromLine(plan(64), { type: 'result', dtype: 'float32', size: 64, status: 'oom', message: 'CUDA out of memory.' });
    assert.deepStrictEqual([oom.status, (oom as { message: string }).message], ['failed', 'Out of memory on cpu at n = 64 (float32), although the three matrices seemed to fit: CUDA out of memory.']);
    const failed = runFromLine(plan(64), { type: 'result', dtype: 'float32', size: 64, status: 'failed', message: 'ValueError: x' });
    assert.strictEqual((failed as { message: string }).message, 'The torch engine failed on cpu, n = 64: ValueError: x');
  });

  it('computes transfer bandwidth from the median copy, and keeps why a copy was not measured', () => {
    const ok = transferFromLine('cuda:0', { type: 'transfer', status: 'ok', direction: 'hostToDevice', memory: 'pinned', bytes: 2e9, timesSec: [0.1, 0.08, 0.12] });
    assert.deepStrictEqual(ok, { device: 'cuda:0', direction: 'hostToDevice', memory: 'pinned', bytes: 2e9, status: 'ok', timesSec: [0.1, 0.08, 0.12], medianSec: 0.1, gbPerSec: 20, message: null });
    const no = transferFromLine('mps', { type: 'transfer', status: 'unsupported', direction: 'deviceToHost', memory: 'pinned', bytes: 1024, message: 'no pinned memory' });
    assert.deepStrictEqual([no.status, no.gbPerSec, no.message], ['unsupported', null, 'no pinned memory']);
    assert.strictEqual(transferFromLine('cuda:0', { type: 'transfer', status: 'ok', bytes: 1, timesSec: [] }).status, 'failed');
  });
});

describe('torch engine: a session of one bench.py', () => {
  const plans = [plan(64), plan(128), plan(256)];

  function session(progress?: BenchProgress[]) {
    const fatal = (p: BenchPlan) => ({ status: 'no-device' as const, engine: 'torch' as const, device: p.device, dtype: p.dtype, size: p.size, message: 'gone', remedy: null });
    return new TorchSession(plans, progress && ((p) => progress.push(p)), fatal);
  }

  it('passes progress on for its plans, collects results, and answers in plan order', () => {
    const progress: BenchProgress[] = [];
    const s = session(progress);
    s.accept(JSON.stringify({ type: 'progress', dtype: 'float32', size: 128, phase: 'timing', done: 2, repeats: 3, lastSec: 0.5 }));
    s.accept(JSON.stringify({ type: 'progress', dtype: 'float32', size: 999, phase: 'timing', done: 1, repeats: 3 }));
    s.accept('stray output');
    for (const n of [256, 64, 128]) s.accept(JSON.stringify(okLine(n)));
    assert.deepStrictEqual(progress, [{ engine: 'torch', device: 'cpu', dtype: 'float32', size: 128, phase: 'timing', done: 2, repeats: 3, lastSec: 0.5 }]);
    assert.deepStrictEqual(s.strayLines, ['stray output']);
    const runs = s.finish(plans, new Map(), exited, '');
    assert.deepStrictEqual(runs.map((r) => (r.status === 'ok' ? r.result.size : r.status)), [64, 128, 256]);
  });

  it('leaves out sizes a budget skipped, keeps refusals decided before the spawn in their place', () => {
    const s = session();
    s.accept(JSON.stringify(okLine(128)));
    s.accept(JSON.stringify({ type: 'stopped', dtype: 'float32', size: 128, reason: 'budget' }));
    const refusal = { status: 'refused' as const, engine: 'torch' as const, device: 'cpu', dtype: 'float32' as const, size: 64, message: 'Refused', remedy: null };
    const runs = s.finish(plans, new Map([[plans[0], refusal]]), exited, '');
    assert.deepStrictEqual(runs.map((r) => r.status), ['refused', 'ok']);
  });

  it('gives every plan the fatal error when bench.py could not start measuring', () => {
    const s = session();
    s.accept(JSON.stringify({ type: 'error', code: 'no-device', message: 'no cuda' }));
    assert.deepStrictEqual(s.finish(plans, new Map(), exited, '').map((r) => r.status), ['no-device', 'no-device', 'no-device']);
  });

  it('after a cancel or an early end, answers for the plan in flight only', () => {
    const cancelled = session();
    cancelled.accept(JSON.stringify(okLine(64)));
    const runs = cancelled.finish(plans, new Map(), { ...exited, reason: 'cancelled', exitCode: null, signal: 'SIGKILL' }, '');
    assert.deepStrictEqual(runs.map((r) => `${r.status}:${r.status === 'ok' ? r.result.size : (r as { size: number }).size}`), ['ok:64', 'cancelled:128']);
    const crashed = session().finish(plans, new Map(), { ...exited, exitCode: null, signal: 'SIGSEGV' }, 'bench.py ended early (killed by SIGSEGV)');
    assert.deepStrictEqual(crashed.map((r) => r.status), ['failed']);
    assert.strictEqual((crashed[0] as { message: string }).message, 'The torch engine failed on cpu, n = 64: bench.py ended early (killed by SIGSEGV)');
  });
});
