// Benchmark panel wording (issue 28 item 9): no "(baseline)" when nothing was compared with
// it, and the worker's `backticked` commands shown as code, not as raw backticks.
import * as assert from 'assert';
import { buildRun } from '../../src/core/bench/compare';
import { makeBenchResult } from '../../src/core/bench/result';
import { renderBarChart } from '../../src/vscode/benchmark/panel/benchmarkCharts';
import { problemsList, runsTable } from '../../src/vscode/benchmark/panel/benchmarkSections';
import { exportedMessage, OPEN_EXPORT } from '../../src/vscode/benchmark/benchExport';

describe('benchmark panel wording (issue 28 item 9)', () => {
  it('a run with one result marks nothing as the baseline, in the bars or the table', () => {
    const run = buildRun([{ status: 'ok', result: makeBenchResult({ plan: { engine: 'wasm', device: 'cpu', dtype: 'float32', size: 512 }, timesSec: [0.01, 0.01], maxRelError: 1e-6, checkedEntries: 64, detail: null }) }]);
    assert.doesNotMatch(renderBarChart(run), /baseline/);
    assert.doesNotMatch(runsTable({ ...run, transfers: [], cancelled: false, selectedDevice: 'cpu', description: 'wasm on cpu' }), />baseline</);
  });

  it('a remedy\'s `command` is code, escaped, without its backticks', () => {
    const html = problemsList([{
      status: 'not-installed', engine: 'tfjs-node', device: null, dtype: null, size: null,
      message: 'Native TensorFlow.js (@tensorflow/tfjs-node) is not installed.',
      remedy: 'Run "Device Doctor: Install Native TensorFlow Backend", or `npm install @tensorflow/tfjs-node@4 <x>`.',
    }]);
    assert.match(html, /or <code>npm install @tensorflow\/tfjs-node@4 &lt;x&gt;<\/code>\./);
    assert.doesNotMatch(html, /`/);
  });

  it('an export is confirmed with where it went and a way to open it (issue 28 item 10)', () => {
    assert.strictEqual(exportedMessage('/home/me/matmul-benchmark-2026-12-03-0700.csv'), 'Device Doctor: exported the benchmark to /home/me/matmul-benchmark-2026-12-03-0700.csv');
    assert.strictEqual(OPEN_EXPORT, 'Open');
  });
});
