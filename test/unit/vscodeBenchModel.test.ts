// The benchmark command's pure decisions: quick-pick choices → BenchParams, the engine/device
// list with unavailable engines, progress text and bar, history (trimming, per machine, stored
// shape), how worker errors read, and what each export button writes (the core's texts).
import * as assert from 'assert';
import { ResponseError } from 'vscode-jsonrpc';
import { buildRun } from '../../src/core/bench/compare';
import { formatBenchJson, toCsv, toMarkdown } from '../../src/core/bench/export';
import { makeBenchResult } from '../../src/core/bench/result';
import type { BenchProgress, RunResult } from '../../src/core/bench/model';
import { BENCH_BUSY, BENCH_INVALID } from '../../src/protocol/worker';
import type { BenchProgressParams, BenchRunResponse, EnginesResponse } from '../../src/protocol/worker';
import { exportFile, isExportFormat } from '../../src/vscode/benchmark/benchExport';
import { formatGflops, formatMs, formatSpeedup } from '../../src/vscode/benchmark/benchFormat';
import { addToHistory, BenchHistory, HISTORY_LIMIT, historyKey, makeHistoryEntry, readHistory, runToRestore } from '../../src/vscode/benchmark/benchHistory';
import type { MementoLike } from '../../src/vscode/benchmark/benchHistory';
import { progressMessage, progressPercent, ProgressTracker } from '../../src/vscode/benchmark/benchProgress';
import { BENCH_BUSY_MESSAGE, classifyBenchError } from '../../src/vscode/benchmark/runBenchmarkErrors';
import { COMPARE_PICKS, describeChoice, dtypePicks, SIZE_PICKS, targetPicks, toBenchParams } from '../../src/vscode/benchmark/runBenchmarkPicks';
import { cancelledError, crashedError, failedError, timeoutError } from '../../src/vscode/worker/workerErrors';

const CONTEXT = { pythonPath: '/usr/bin/python3', pinnedDevice: null, runId: 'run-7' };

function run(results = 2): BenchRunResponse {
  const runs: RunResult[] = [
    { status: 'ok' as const, result: makeBenchResult({ plan: { engine: 'wasm', device: 'cpu', dtype: 'float32', size: 256 }, timesSec: [0.002, 0.0021, 0.0019], maxRelError: 1e-6, checkedEntries: 64, detail: 'wasm, SIMD, 1 thread' }) },
    { status: 'ok' as const, result: makeBenchResult({ plan: { engine: 'js', device: 'cpu', dtype: 'float32', size: 256 }, timesSec: [0.01, 0.011, 0.012], maxRelError: 0, checkedEntries: 64, detail: 'tfjs-backend-cpu, "quoted", comma' }) },
  ].slice(0, results);
  return { ...buildRun(runs), transfers: [], cancelled: false, selectedDevice: 'cpu', description: 'wasm against js' };
}

function progress(extra: Partial<BenchProgress>, step = 1, steps = 2): BenchProgressParams {
  return { runId: 'run-7', step, steps, progress: { engine: 'wasm', device: 'cpu', dtype: 'float32', size: 256, phase: 'timing', done: 0, repeats: 10, ...extra } };
}

class MemoryMemento implements MementoLike {
  readonly values = new Map<string, unknown>();
  get<T>(key: string): T | undefined {
    return this.values.get(key) as T | undefined;
  }
  async update(key: string, value: unknown): Promise<void> {
    this.values.set(key, JSON.parse(JSON.stringify(value)));
  }
}

describe('vscode: benchmark choices, progress, history and export', () => {
  describe('quick picks → BenchParams', () => {
    it('offers the three comparisons, "Selected device vs CPU" first, and sizes with 1024 first', () => {
      assert.deepStrictEqual(COMPARE_PICKS.map((p) => [p.label, p.compare]), [
        ['Selected device vs CPU', 'versus-cpu'], ['One engine/device…', 'single'], ['Compare everything available', 'all'],
      ]);
      assert.strictEqual(COMPARE_PICKS[0]!.description, 'default');
      assert.deepStrictEqual(SIZE_PICKS.map((p) => p.label), ['1024', '256', '512', '2048', '4096', 'Sweep 256…8192']);
      assert.deepStrictEqual(SIZE_PICKS.map((p) => p.size), [1024, 256, 512, 2048, 4096, 'sweep']);
    });

    it('maps the default choice to versus-cpu at n = 1024, with the interpreter, pin and run id', () => {
      assert.deepStrictEqual(dtypePicks().map((p) => [p.label, p.description ?? '']), [['float32', 'default'], ['bfloat16', ''], ['float16', '']]);
      assert.deepStrictEqual(dtypePicks(['float32']), [], 'no question with one answer');
      assert.deepStrictEqual(toBenchParams({ compare: 'versus-cpu', size: 1024, dtype: 'bfloat16' }, CONTEXT).dtypes, ['bfloat16']);
      assert.strictEqual(toBenchParams({ compare: 'versus-cpu', size: 1024, dtype: 'float32' }, CONTEXT).dtypes, undefined);
      assert.strictEqual(describeChoice({ compare: 'versus-cpu', size: 1024, dtype: 'float16' }), 'Selected device vs CPU, n = 1024, float16');
      assert.deepStrictEqual(toBenchParams({ compare: 'versus-cpu', size: 1024 }, CONTEXT), {
        pythonPath: '/usr/bin/python3', pinnedDevice: null, compare: 'versus-cpu', runId: 'run-7', size: 1024,
      });
    });

    it('maps one engine/device to single with engine and device, and a sweep to sweep: true without a size', () => {
      const params = toBenchParams({ compare: 'single', target: { engine: 'wasm', device: 'cpu' }, size: 'sweep' }, { ...CONTEXT, pythonPath: null, pinnedDevice: 'cuda:1' });
      assert.deepStrictEqual(params, { pythonPath: null, pinnedDevice: 'cuda:1', compare: 'single', runId: 'run-7', engine: 'wasm', device: 'cpu', sweep: true });
      assert.throws(() => toBenchParams({ compare: 'single', size: 256 }, CONTEXT), /needs an engine and a device/);
    });

    it('sends the native TensorFlow folder when there is one', () => {
      const params = toBenchParams({ compare: 'all', size: 512 }, { ...CONTEXT, nativeSearchPaths: ['/g/native'] });
      assert.deepStrictEqual(params, { pythonPath: '/usr/bin/python3', pinnedDevice: null, compare: 'all', runId: 'run-7', size: 512, nativeSearchPaths: ['/g/native'] });
      assert.strictEqual(toBenchParams({ compare: 'all', size: 512 }, { ...CONTEXT, nativeSearchPaths: [] }).nativeSearchPaths, undefined);
    });

    it('describes the choice in words', () => {
      assert.strictEqual(describeChoice({ compare: 'versus-cpu', size: 1024 }), 'Selected device vs CPU, n = 1024');
      assert.strictEqual(describeChoice({ compare: 'single', target: { engine: 'js', device: 'cpu' }, size: 1024 }), 'js on cpu, n = 1024');
      assert.strictEqual(describeChoice({ compare: 'all', size: 'sweep' }), 'Compare everything available, sweep 256…8192');
    });

    it('lists every engine/device that can run, then the engines that cannot, with their reasons', () => {
      const engines: EnginesResponse = {
        selectedDevice: 'cuda:0',
        engines: [
          { engine: 'torch', devices: ['cpu', 'cuda:0'], dtypes: ['float32', 'float16', 'bfloat16'], problem: null },
          { engine: 'tfjs-node-gpu', devices: [], dtypes: ['float32'], problem: { status: 'tfjs-cuda-mismatch', engine: 'tfjs-node-gpu', device: null, dtype: null, size: null, message: 'TensorFlow registered no GPU.', remedy: 'Install CUDA 11.2 and cuDNN 8.1.' } },
          { engine: 'tfjs-node', devices: [], dtypes: ['float32'], problem: { status: 'not-installed', engine: 'tfjs-node', device: null, dtype: null, size: null, message: '@tensorflow/tfjs-node is not installed.', remedy: 'Run "Device Doctor: Install Native TensorFlow Backend".' } },
          { engine: 'wasm', devices: ['cpu'], dtypes: ['float32'], problem: null },
        ],
      };
      const picks = targetPicks(engines);
      assert.deepStrictEqual(picks.map((p) => [p.label, p.device]), [
        ['torch cpu', 'cpu'], ['torch cuda:0', 'cuda:0'], ['wasm cpu', 'cpu'],
        ['$(circle-slash) tfjs-node-gpu', null], ['$(circle-slash) tfjs-node', null],
      ]);
      assert.strictEqual(picks[1]!.description, 'float32, float16, bfloat16 · selected device');
      assert.strictEqual(picks[3]!.description, 'no GPU registered');
      assert.strictEqual(picks[4]!.description, 'not installed');
      assert.deepStrictEqual(picks[4]!.unavailable, { message: '@tensorflow/tfjs-node is not installed.', remedy: 'Run "Device Doctor: Install Native TensorFlow Backend".' });
    });
  });

  describe('progress', () => {
    it('says which engine, device, size and repeat is running', () => {
      assert.strictEqual(progressMessage(progress({ done: 2 })), 'wasm · cpu · n = 256 · repeat 3/10 · run 1 of 2');
      assert.strictEqual(progressMessage(progress({ phase: 'warmup', dtype: 'float16' }, 1, 1)), 'wasm · cpu · float16 · n = 256 · warm-up');
      assert.strictEqual(progressMessage(progress({ phase: 'checking', done: 10 }, 2, 2)), 'wasm · cpu · n = 256 · checking the product · run 2 of 2');
      assert.strictEqual(progressMessage(progress({ done: 10 }, 1, 1)), 'wasm · cpu · n = 256 · repeat 10/10', 'never "repeat 11/10"');
    });

    it('moves the bar through the runs and never back', () => {
      assert.strictEqual(progressPercent(progress({ phase: 'preparing' }, 1, 2)), 0);
      assert.strictEqual(progressPercent(progress({ done: 10 }, 1, 2)), 47.5);
      assert.strictEqual(progressPercent(progress({ phase: 'checking' }, 2, 2)), 97.5);
      const tracker = new ProgressTracker();
      const increments = [progress({ done: 5 }, 1, 2), progress({ done: 2 }, 1, 2), progress({ phase: 'warmup' }, 2, 2), progress({ done: 10 }, 2, 3)].map((p) => tracker.increment(p));
      assert.strictEqual(increments[1], 0, 'a step back reports nothing');
      assert.ok(increments.every((i) => i >= 0));
      assert.ok(Math.abs(increments.reduce((a, b) => a + b, 0) - 65) < 1e-9, 'increments add up to the furthest position (run 2 of 3 timed: 1.95/3)');
    });
  });

  describe('history', () => {
    it('keeps the newest first, drops a repeated id, and at most 20', () => {
      let entries = [] as ReturnType<typeof readHistory>;
      for (let i = 0; i < 25; i++) entries = addToHistory(entries, makeHistoryEntry(run(), 1000 + i, `r${i}`));
      assert.strictEqual(HISTORY_LIMIT, 20);
      assert.strictEqual(entries.length, 20);
      assert.deepStrictEqual(entries.slice(0, 3).map((e) => e.id), ['r24', 'r23', 'r22']);
      assert.strictEqual(entries[19]!.id, 'r5');
      entries = addToHistory(entries, makeHistoryEntry(run(1), 2000, 'r10'));
      assert.deepStrictEqual(entries.slice(0, 2).map((e) => e.id), ['r10', 'r24']);
      assert.strictEqual(entries.filter((e) => e.id === 'r10').length, 1);
    });

    it('summarizes a run by its best GFLOP/s', () => {
      const entry = makeHistoryEntry(run(), 5, 'a');
      assert.strictEqual(entry.best?.engine, 'wasm');
      assert.strictEqual(entry.best?.size, 256);
      assert.ok(Math.abs(entry.best!.gflops - (2 * 256 ** 3) / 0.002 / 1e9) < 1e-9);
      assert.strictEqual(makeHistoryEntry({ ...run(0), problems: [] }, 5, 'b').best, null);
    });

    it('stores per machine in the global state and ignores malformed stored entries', async () => {
      const memento = new MemoryMemento();
      const here = new BenchHistory(memento, 'machine-a');
      const there = new BenchHistory(memento, 'machine-b');
      await here.add(makeHistoryEntry(run(), 10, 'x'));
      await here.add(makeHistoryEntry(run(), 20, 'y'));
      assert.deepStrictEqual(here.entries().map((e) => e.id), ['y', 'x']);
      assert.deepStrictEqual(there.entries(), [], 'another machine\'s runs are not mixed in');
      assert.deepStrictEqual([...memento.values.keys()], [historyKey('machine-a')]);
      assert.strictEqual(historyKey('machine-a'), 'deviceDoctor.benchHistory.machine-a');
      assert.strictEqual(here.find('x')?.time, 10);
      memento.values.set(historyKey('machine-b'), [null, 3, { id: 'z' }, { id: 'ok', time: 1, description: 'd', selectedDevice: 'cpu', best: null, run: { results: [], problems: [] } }]);
      assert.deepStrictEqual(there.entries().map((e) => e.id), ['ok']);
      assert.deepStrictEqual(readHistory('garbage'), []);
    });

    it('a panel restored after a reload shows the run the extension last showed, though the page saved the one before (issue 28 item 9)', () => {
      const older = makeHistoryEntry(run(), 10, 'older');
      const newest = makeHistoryEntry(run(1), 20, 'newest');
      // Reloaded just after the run ended: the page had not saved its state for the new run yet.
      assert.deepStrictEqual(runToRestore([newest, older], { runId: 'older', entry: older }, 'newest'), { shown: newest, outsideHistory: false });
      // A record naming a run the history no longer has gives way to the page's state.
      assert.deepStrictEqual(runToRestore([newest, older], { runId: 'older' }, 'gone'), { shown: older, outsideHistory: false });
      assert.deepStrictEqual(runToRestore([newest, older], undefined, 42), { shown: newest, outsideHistory: false });
    });

    it('a panel restored after a reload shows the run its page showed, even one the history lost with the window', () => {
      const older = makeHistoryEntry(run(), 10, 'older');
      const onScreen = makeHistoryEntry(run(1), 20, 'on-screen');
      const history = [older];
      // The page kept the run it showed; the history's write of it did not survive the reload.
      const restored = runToRestore(history, JSON.parse(JSON.stringify({ runId: 'on-screen', entry: onScreen })));
      assert.strictEqual(restored.shown?.id, 'on-screen', 'not the older run the history still has');
      assert.strictEqual(restored.outsideHistory, true);
      assert.strictEqual(restored.shown?.run.results.length, 1);
      // An earlier run picked from the history is shown again, from the history.
      assert.deepStrictEqual(runToRestore([onScreen, older], { runId: 'older', entry: older }), { shown: older, outsideHistory: false });
    });

    it('a restored panel falls back to the newest run when its page saved none, an unknown id, or a kept run that is not well formed', () => {
      const newest = makeHistoryEntry(run(), 30, 'newest');
      for (const saved of [undefined, null, 'x', { runId: null }, { runId: 'gone' }, { runId: 'gone', entry: { id: 'gone' } }, { runId: 'gone', entry: { ...newest, id: 'other' } }]) {
        assert.deepStrictEqual(runToRestore([newest], saved), { shown: newest, outsideHistory: false }, JSON.stringify(saved));
      }
      assert.deepStrictEqual(runToRestore([], undefined), { shown: null, outsideHistory: false });
    });
  });

  describe('worker errors in words', () => {
    const busy = failedError('deviceDoctor/bench', new ResponseError(BENCH_BUSY, 'a benchmark is running'));
    const invalid = failedError('deviceDoctor/bench', new ResponseError(BENCH_INVALID, 'Matrix size must be a whole number from 1 to 32768, not 40000.\n    at plan (plan.ts:1)'));

    it('tells cancelled, busy and impossible requests apart', () => {
      assert.deepStrictEqual(classifyBenchError(cancelledError('deviceDoctor/bench')), { kind: 'cancelled' });
      assert.deepStrictEqual(classifyBenchError(busy), { kind: 'busy', message: BENCH_BUSY_MESSAGE });
      assert.deepStrictEqual(classifyBenchError(invalid), { kind: 'invalid', message: 'Matrix size must be a whole number from 1 to 32768, not 40000.' });
    });

    it('gives one line for anything else, never a stack', () => {
      const crashed = classifyBenchError(crashedError('deviceDoctor/bench', { code: null, signal: 'SIGKILL' }));
      assert.deepStrictEqual(crashed, { kind: 'failed', message: 'The Device Doctor worker stopped unexpectedly (killed by SIGKILL) while running "bench".' });
      assert.strictEqual(classifyBenchError(timeoutError('deviceDoctor/bench', 3_600_000)).kind, 'failed');
      const thrown = new Error('boom\n    at somewhere (file.ts:1:1)');
      assert.deepStrictEqual(classifyBenchError(thrown), { kind: 'failed', message: 'boom' });
    });
  });

  describe('export', () => {
    it('writes exactly the core\'s JSON, CSV and Markdown, with a dated file name and a filter', () => {
      const r = run();
      const time = new Date(2026, 10, 29, 17, 5).getTime();
      assert.deepStrictEqual(exportFile(r, 'json', time), { text: formatBenchJson(r), fileName: 'matmul-benchmark-2026-11-29-1705.json', filters: { JSON: ['json'] } });
      assert.deepStrictEqual(exportFile(r, 'csv', time), { text: toCsv(r), fileName: 'matmul-benchmark-2026-11-29-1705.csv', filters: { CSV: ['csv'] } });
      assert.deepStrictEqual(exportFile(r, 'markdown', time), { text: toMarkdown(r), fileName: 'matmul-benchmark-2026-11-29-1705.md', filters: { Markdown: ['md'] } });
      assert.strictEqual(JSON.parse(exportFile(r, 'json', time).text).schemaVersion, 1);
      assert.match(exportFile(r, 'csv', time).text, /"tfjs-backend-cpu, ""quoted"", comma"/);
      assert.ok(isExportFormat('csv') && !isExportFormat('html') && !isExportFormat('toString'));
    });
  });

  it('formats numbers for reading', () => {
    assert.deepStrictEqual([0.012345, 4.2857, 15, 2147.48, 123456.7].map(formatGflops), ['0.0123', '4.29', '15', '2,147', '123,457']);
    assert.deepStrictEqual([0.000012, 0.0143, 1.5, 12.345].map(formatMs), ['0.012', '14.3', '1,500', '12,345']);
    assert.deepStrictEqual([143.2, 12.34, 3.14159, 1.02, 0.29].map(formatSpeedup), ['143×', '12.3×', '3.1×', '1×', '0.29×']);
  });
});
