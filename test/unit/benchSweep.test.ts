import * as assert from 'assert';
import type { EngineOutcome, RunResult } from '../../src/core/bench/model';
import { makeBenchResult } from '../../src/core/bench/result';
import { DEFAULT_SWEEP_BUDGET_SEC, SWEEP_SIZES, predictSeconds, runSweep, sweepSentences, sweepStopSentence, sweepStops } from '../../src/core/bench/sweep';

/** A pretend engine whose matmul takes secondsAt(n). */
function fakeEngine(secondsAt: (n: number) => number, outcomes: Record<number, EngineOutcome['status']> = {}) {
  const asked: number[] = [];
  const runSize = async (size: number): Promise<RunResult> => {
    asked.push(size);
    const status = outcomes[size];
    if (status) return { status, engine: 'wasm', device: 'cpu', dtype: 'float32', size, message: status, remedy: null };
    const t = secondsAt(size);
    return { status: 'ok', result: makeBenchResult({ plan: { engine: 'wasm', device: 'cpu', dtype: 'float32', size }, timesSec: [t, t, t], maxRelError: 0, checkedEntries: 1 }) };
  };
  return { asked, runSize };
}

/** 10 GFLOP/s: n = 1024 takes 0.21 s, 2048 takes 1.7 s. */
const tenGflops = (n: number) => (2 * n ** 3) / 10e9;

describe('bench sweep', () => {
  it('sizes double from 256 to 8192', () => {
    assert.deepStrictEqual(SWEEP_SIZES, [256, 512, 1024, 2048, 4096, 8192]);
  });

  it('runs every size when each run stays within the budget', async () => {
    const engine = fakeEngine(() => 0.001);
    const sweep = await runSweep(engine.runSize);
    assert.deepStrictEqual(engine.asked, [...SWEEP_SIZES]);
    assert.strictEqual(sweep.stoppedBy, 'completed');
    assert.strictEqual(sweep.runs.length, 6);
  });

  it('stops after the first size whose median run passes the time budget', async () => {
    const engine = fakeEngine(tenGflops);
    const sweep = await runSweep(engine.runSize, { budgetSec: DEFAULT_SWEEP_BUDGET_SEC });
    assert.deepStrictEqual(engine.asked, [256, 512, 1024, 2048]);
    assert.strictEqual(sweep.stoppedBy, 'budget');
  });

  it('does not start a size predicted to take longer than maxPredictedRunSec', async () => {
    const engine = fakeEngine(tenGflops);
    const sweep = await runSweep(engine.runSize, { maxPredictedRunSec: 1 });
    assert.deepStrictEqual(engine.asked, [256, 512, 1024], 'n = 2048 would take 1.7 s');
    assert.strictEqual(sweep.stoppedBy, 'predicted');
  });

  it('stops at the first outcome that is not a measurement (a refusal means bigger sizes fail too)', async () => {
    const engine = fakeEngine(() => 0.001, { 2048: 'refused' });
    const sweep = await runSweep(engine.runSize);
    assert.deepStrictEqual(engine.asked, [256, 512, 1024, 2048]);
    assert.strictEqual(sweep.stoppedBy, 'outcome');
    assert.strictEqual(sweep.runs[3].status, 'refused');
  });

  it('a cancelled run, or a signal aborted between sizes, ends the sweep as cancelled', async () => {
    const cancelledAt512 = await runSweep(fakeEngine(() => 0.001, { 512: 'cancelled' }).runSize);
    assert.strictEqual(cancelledAt512.stoppedBy, 'cancelled');
    assert.strictEqual(cancelledAt512.runs.length, 2);
    const controller = new AbortController();
    const engine = fakeEngine(() => 0.001);
    const sweep = await runSweep(async (n) => {
      const run = await engine.runSize(n);
      if (n === 1024) controller.abort();
      return run;
    }, { signal: controller.signal });
    assert.deepStrictEqual(engine.asked, [256, 512, 1024]);
    assert.strictEqual(sweep.stoppedBy, 'cancelled');
  });

  it('uses the sizes it is given', async () => {
    const engine = fakeEngine(() => 0.001);
    await runSweep(engine.runSize, { sizes: [64, 128] });
    assert.deepStrictEqual(engine.asked, [64, 128]);
  });

  it('predicts the next time as n³', () => {
    assert.strictEqual(predictSeconds(0.1, 512, 1024), 0.8);
    assert.strictEqual(predictSeconds(1, 1000, 500), 0.125);
  });
});

describe('bench sweep: where and why a sweep stopped', () => {
  const plan = (engine: 'torch' | 'wasm', dtype: 'float32' | 'bfloat16', size: number) => ({ engine, device: 'cpu', dtype, size });
  const ok = (engine: 'torch' | 'wasm', dtype: 'float32' | 'bfloat16', size: number, t: number): RunResult =>
    ({ status: 'ok', result: makeBenchResult({ plan: plan(engine, dtype, size), timesSec: [t], maxRelError: 0, checkedEntries: 1 }) });
  const plans = [256, 512, 1024, 2048, 4096, 8192].flatMap((n) => [plan('torch', 'float32', n), plan('torch', 'bfloat16', n)]);

  it('names the last size, its median, the limit and the sizes not run, for each series that stopped short', () => {
    const runs = [ok('torch', 'float32', 256, 0.001), ok('torch', 'float32', 512, 0.01), ok('torch', 'float32', 1024, 0.1), ok('torch', 'float32', 2048, 0.612)];
    for (const n of [256, 512, 1024, 2048, 4096, 8192]) runs.push(ok('torch', 'bfloat16', n, 0.001));
    const stops = sweepStops(plans, runs, 0.5);
    assert.deepStrictEqual(stops, [{ engine: 'torch', device: 'cpu', dtype: 'float32', lastSize: 2048, lastMedianSec: 0.612, stopSec: 0.5, reason: 'budget', skipped: [4096, 8192] }]);
    assert.strictEqual(sweepStopSentence(stops[0]!), "torch cpu float32: stopped after n = 2048 (median 612 ms, over the sweep's 500 ms limit per product); n = 4096, 8192 not run.");
    assert.deepStrictEqual(sweepSentences({ sizes: [...SWEEP_SIZES], stopSec: 0.5, stops }), [
      'Sweep n = 256…8192; it stops after a size whose median product passes 500 ms.',
      sweepStopSentence(stops[0]!),
    ]);
  });

  it('says nothing for a series whose last size ran, or whose stop an outcome explains', () => {
    const cancelled: RunResult = { status: 'cancelled', engine: 'torch', device: 'cpu', dtype: 'float32', size: 1024, message: 'Cancelled', remedy: null };
    const runs = [ok('torch', 'float32', 256, 0.001), ok('torch', 'float32', 512, 0.01), cancelled]; // cancelled at the next size
    assert.deepStrictEqual(sweepStops(plans.filter((p) => p.dtype === 'float32'), runs, 0.5), []);
    const all = [256, 512, 1024, 2048, 4096, 8192].map((n) => ok('wasm', 'float32', n, 0.001));
    assert.deepStrictEqual(sweepStops([256, 512, 1024, 2048, 4096, 8192].map((n) => plan('wasm', 'float32', n)), all, 0.5), []);
  });
});
