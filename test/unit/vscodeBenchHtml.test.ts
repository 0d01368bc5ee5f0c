// The Matmul Benchmark panel's HTML: strict CSP, the speedup headline, the bar and sweep charts
// as SVG, the runs table, problems, transfers, history, and escaping of everything from a run.
import * as assert from 'assert';
import { buildRun } from '../../src/core/bench/compare';
import { makeBenchResult } from '../../src/core/bench/result';
import type { Dtype, EngineId, EngineOutcome, RunResult } from '../../src/core/bench/model';
import type { BenchRunResponse, TransferResult } from '../../src/protocol/worker';
import { makeHistoryEntry } from '../../src/vscode/benchmark/benchHistory';
import type { BenchHistoryEntry } from '../../src/vscode/benchmark/benchHistory';
import { niceCeiling, renderBarChart, renderSweepChart } from '../../src/vscode/benchmark/panel/benchmarkCharts';
import { BENCHMARK_TITLE, renderBenchmarkBody, renderBenchmarkPage } from '../../src/vscode/benchmark/panel/benchmarkHtml';
import { problemsList } from '../../src/vscode/benchmark/panel/benchmarkSections';
import type { BenchPanelState } from '../../src/vscode/benchmark/panel/benchmarkHtml';
import { cancelSummary, speedupHeadline } from '../../src/vscode/benchmark/benchFormat';
import { cancelledOutcome } from '../../src/core/bench/outcomes';
import { withDiagnosis, type PeakFacts } from '../../src/core/bench/diagnosis';

const RESOURCES = {
  cspSource: 'https://file+.vscode-resource.vscode-cdn.net',
  nonce: 'n0nce',
  scriptUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/media/benchmark.js',
  styleUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/media/benchmark.css',
};
const TIME = Date.UTC(2026, 10, 29, 17, 5);

/** A measurement whose every repeat took `medianSec`. */
function measured(engine: EngineId, device: string, size: number, medianSec: number, dtype: Dtype = 'float32', detail: string | null = null): RunResult {
  const timesSec = [0.98, 1, 1, 1.02, 1.01].map((f) => f * medianSec);
  return { status: 'ok', result: makeBenchResult({ plan: { engine, device, dtype, size }, timesSec, maxRelError: 1.2e-6, checkedEntries: 64, detail }) };
}

const NOT_INSTALLED: EngineOutcome = {
  status: 'not-installed', engine: 'tfjs-node', device: null, dtype: null, size: null,
  message: 'Native TensorFlow.js (@tensorflow/tfjs-node) is not installed.',
  remedy: 'Run "Device Doctor: Install Native TensorFlow Backend".',
};
const REFUSED: EngineOutcome = {
  status: 'refused', engine: 'torch', device: 'cuda:0', dtype: 'float32', size: 32768, neededBytes: 12884901888, freeBytes: 1e9,
  message: 'Refused: n = 32768 float32 needs 12.0 GiB (3 × n² × 4 bytes), 953.7 MiB free on cuda:0.', remedy: 'Choose a size up to 9128, or free memory on cuda:0.',
};
const UNSUPPORTED: EngineOutcome = {
  status: 'unsupported', engine: 'wasm', device: 'cpu', dtype: 'float16', size: 1024,
  message: 'The wasm engine does not support float16; it runs float32.', remedy: 'Use float32 with this engine, or the torch engine for half precision.',
};

function response(runs: RunResult[], extra: Partial<BenchRunResponse> = {}): BenchRunResponse {
  return { ...buildRun(runs), transfers: [], cancelled: false, selectedDevice: 'cuda:0', description: 'cuda:0 against the CPU, n = 1024', ...extra };
}

/** torch on cuda:0 143× faster than torch cpu, wasm beside them, and three problems. */
function gpuRun(): BenchRunResponse {
  const transfer: TransferResult = {
    device: 'cuda:0', direction: 'hostToDevice', memory: 'pinned', bytes: 256 * 1024 ** 2, status: 'ok',
    timesSec: [0.01, 0.01], medianSec: 0.01, gbPerSec: 26.8, message: null,
  };
  return response(
    [measured('torch', 'cpu', 1024, 0.143, 'float32', 'torch 2.4.0, AMD EPYC'), measured('torch', 'cuda:0', 1024, 0.001, 'float32', 'torch 2.4.0+cu121, NVIDIA H200'), measured('wasm', 'cpu', 1024, 0.5), NOT_INSTALLED, REFUSED, UNSUPPORTED],
    { transfers: [transfer] },
  );
}

function sweepRun(): BenchRunResponse {
  const runs: RunResult[] = [];
  for (const [i, n] of [256, 512, 1024, 2048].entries()) {
    runs.push(measured('wasm', 'cpu', n, (2 * n ** 3) / ((10 + i) * 1e9)));
    runs.push(measured('js', 'cpu', n, (2 * n ** 3) / (2e9)));
  }
  return response(runs, { selectedDevice: 'cpu', description: 'every engine, sweep 256…8192' });
}

function entry(run: BenchRunResponse, id = 'run-1', time = TIME): BenchHistoryEntry {
  return makeHistoryEntry(run, time, id);
}

function state(shown: BenchHistoryEntry | null, history: BenchHistoryEntry[] = shown ? [shown] : [], status: BenchPanelState['status'] = { kind: 'idle' }): BenchPanelState {
  return { status, shown, history };
}

/** Text content with tags removed and entities decoded, to check what a reader sees. */
function visibleText(html: string): string {
  return html.replace(/<[^>]+>/g, ' ').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&').replace(/\s+/g, ' ');
}

/** Names of the attributes of every tag (attribute values may hold escaped text such as ` onclick=`). */
function attributeNames(html: string): string[] {
  const names: string[] = [];
  for (const tag of html.matchAll(/<[a-zA-Z][^>]*>/g)) {
    for (const attribute of tag[0].matchAll(/\s([^\s=>\/"']+)(?:=(?:"[^"]*"|'[^']*'|[^\s>]+))?/g)) names.push(attribute[1]!.toLowerCase());
  }
  return names;
}

describe('vscode: the benchmark panel HTML', () => {
  it('has a strict CSP: nothing by default, one nonce\'d script from media/, styles from the extension, no network', () => {
    const page = renderBenchmarkPage(state(entry(gpuRun())), RESOURCES);
    assert.ok(page.includes(`content="default-src &#39;none&#39;; style-src ${RESOURCES.cspSource}; img-src ${RESOURCES.cspSource}; script-src &#39;nonce-n0nce&#39;"`), 'the CSP meta');
    assert.deepStrictEqual([...page.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]), [`<script nonce="n0nce" src="${RESOURCES.scriptUri}">`]);
    assert.ok(page.includes(`<link rel="stylesheet" href="${RESOURCES.styleUri}">`));
    assert.ok(!/\sstyle=|<style|\son\w+=/i.test(page), 'no inline styles or event handlers');
    assert.ok(!/https?:\/\/(?!file\+\.vscode-resource)/.test(page.replace(/xmlns="[^"]*"/g, '')), 'no network addresses');
    assert.match(page, new RegExp(`<title>${BENCHMARK_TITLE}</title>`));
    assert.match(page, /<h1>Matmul Benchmark<\/h1>/);
  });

  it('says the speedup prominently: "cuda:0 is 143× faster than torch cpu"', () => {
    const body = renderBenchmarkBody(state(entry(gpuRun())));
    assert.match(body, /<p class="headline">cuda:0 is 143× faster than torch cpu<\/p>/);
    assert.match(body, /<p class="headline-context">n = 1024, float32<\/p>/);
    assert.match(visibleText(body), /wasm cpu is 3\.5× slower than torch cpu/, 'the other targets are listed under it');
  });

  it('on a CPU-only machine compares the CPU engines ("wasm cpu … than js cpu")', () => {
    const run = response([measured('wasm', 'cpu', 1024, 0.2), measured('js', 'cpu', 1024, 0.62)], { selectedDevice: 'cpu' });
    assert.strictEqual(run.speedup?.baseline.engine, 'wasm', 'the core prefers wasm over js as the baseline');
    assert.strictEqual(speedupHeadline(run)?.text, 'wasm cpu is 3.1× faster than js cpu', 'said of the faster side');
    const body = renderBenchmarkBody(state(entry(run)));
    assert.match(body, /<p class="headline">wasm cpu is 3\.1× faster than js cpu<\/p>/);
    const gpu = response([measured('torch', 'cpu', 1024, 0.1), measured('torch', 'cuda:0', 1024, 0.098)]);
    assert.strictEqual(speedupHeadline(gpu)?.text, 'cuda:0 is about as fast as torch cpu');
  });

  it('names both dtypes wherever a float16 result is divided by the CPU float32', () => {
    const run = response([measured('torch', 'cpu', 1024, 1), measured('torch', 'cuda:0', 1024, 0.01, 'float16')]);
    assert.strictEqual(speedupHeadline(run)?.text, 'cuda:0 (float16) is 100× faster than torch cpu (float32)');
    assert.strictEqual(speedupHeadline(run)?.context, 'n = 1024, float16 against float32');
    const text = visibleText(renderBenchmarkBody(state(entry(run))));
    assert.match(text, /100× vs float32/, 'the runs table says so too');
    const same = response([measured('torch', 'cpu', 1024, 2, 'float16'), measured('torch', 'cuda:0', 1024, 0.01, 'float16')]);
    assert.strictEqual(speedupHeadline(same)?.text, 'cuda:0 (float16) is 200× faster than torch cpu (float16)');
    assert.doesNotMatch(visibleText(renderBenchmarkBody(state(entry(same)))), / vs float/);
  });

  it('a problem\'s remedy names the editor\'s Choose Interpreter, not the CLI\'s --python (issue 28 item 11)', () => {
    const html = problemsList([{
      engine: 'torch', device: 'cpu', status: 'not-installed', dtype: null, size: null, message: 'No Python interpreter to run PyTorch with.',
      remedy: 'Choose a Python interpreter that has PyTorch (in the editor: Device Doctor: Choose Interpreter; on the command line: --python).',
    } as EngineOutcome]);
    assert.ok(html.includes('Choose a Python interpreter that has PyTorch (Device Doctor: Choose Interpreter).'), html);
    assert.ok(!html.includes('--python'), html);
  });

  it('says when there is no baseline or nothing measured', () => {
    const noBaseline = renderBenchmarkBody(state(entry(response([measured('torch', 'cuda:0', 1024, 0.001)]))));
    assert.match(noBaseline, /<p class="headline">cuda:0: 2,147 GFLOP\/s<\/p><p class="headline-context">n = 1024, float32 · no CPU baseline in this run, so no speedup<\/p>/);
    const alone = renderBenchmarkBody(state(entry(response([measured('wasm', 'cpu', 256, 0.0025)]))));
    assert.match(alone, /<p class="headline">wasm cpu: 13\.4 GFLOP\/s<\/p><p class="headline-context">n = 256, float32 · nothing else measured to compare it with<\/p>/);
    const none = renderBenchmarkBody(state(entry(response([NOT_INSTALLED]))));
    assert.match(none, /Nothing was measured: see the problems below/);
    assert.ok(!none.includes('<svg'), 'no chart without measurements');
  });

  it('draws one bar per engine/device, longest first, the baseline marked, with a <title> and aria labels', () => {
    const svg = renderBarChart(gpuRun());
    assert.match(svg, /^<svg class="chart bar-chart" role="img" viewBox="0 0 640 \d+" aria-labelledby="bars-title bars-desc">/);
    assert.match(svg, /<title id="bars-title">GFLOP\/s per engine and device \(n = 1024\)<\/title>/);
    assert.match(svg, /<desc id="bars-desc">Higher is faster\. torch cuda:0 2,147; torch cpu 15; wasm cpu 4\.29\.<\/desc>/);
    const bars = [...svg.matchAll(/<rect class="bar ([^"]+)" x="190" y="[\d.]+" width="([\d.]+)"/g)];
    assert.strictEqual(bars.length, 3);
    const widths = bars.map((b) => Number(b[2]));
    assert.strictEqual(widths[0], 360, 'the fastest fills the plot width');
    assert.ok(widths[0]! > widths[1]! && widths[1]! > widths[2]!, `longest first: ${widths}`);
    assert.strictEqual(bars.filter((b) => b[1]!.includes('baseline')).length, 1);
    assert.match(svg, /torch cpu \(baseline\)<\/text>/);
    assert.match(svg, /<title>torch cuda:0: 2,147 GFLOP\/s at n = 1024<\/title>/);
  });

  it('after a sweep, the headline and the bars speak of the same size, named in both', () => {
    // The run: torch cpu 74.1 vs wasm 15.8 GFLOP/s at n = 256 (4.7×), 6.4× at n = 2048.
    const run = response([
      measured('torch', 'cpu', 256, (2 * 256 ** 3) / 74.1e9), measured('wasm', 'cpu', 256, (2 * 256 ** 3) / 15.8e9),
      measured('torch', 'cpu', 2048, (2 * 2048 ** 3) / 64e9), measured('wasm', 'cpu', 2048, (2 * 2048 ** 3) / 10e9),
    ], { selectedDevice: 'cpu' });
    const body = renderBenchmarkBody(state(entry(run)));
    assert.match(body, /<p class="headline">torch cpu is 6\.4× faster than wasm cpu<\/p><p class="headline-context">n = 2048, float32<\/p>/);
    assert.match(body, /<h2 id="bars-heading">GFLOP\/s per engine and device at n = 2048<\/h2>/);
    const svg = renderBarChart(run);
    assert.match(svg, /<title id="bars-title">GFLOP\/s per engine and device \(n = 2048\)<\/title>/);
    const values = [...svg.matchAll(/<text class="value-label"[^>]*>([^<]+)<\/text>/g)].map((m) => m[1]);
    assert.deepStrictEqual(values, ['64 GFLOP/s', '10 GFLOP/s'], 'the n = 2048 values, not the faster n = 256 ones');
    assert.doesNotMatch(svg, /at n = 256/);
  });

  it('shows % of peak (the peak in its tooltip and the caption) and marks a noisy result, in the table and the bars', () => {
    const facts: PeakFacts = { cpu: { cores: 2, float32: 166, basis: '2 cores × 2.60 GHz × 32 FLOP/cycle (AMD Zen 4)', bfloat16: null, bfloat16Basis: null }, cpuThreads: 2, deviceNames: {} };
    const t = (2 * 1024 ** 3) / 66.4e9;
    const noisy: RunResult = { status: 'ok', result: makeBenchResult({ plan: { engine: 'torch', device: 'cpu', dtype: 'float32', size: 1024 }, timesSec: [t * 0.5, t, t, t * 2], maxRelError: 1e-6, checkedEntries: 64, detail: 'torch 2.4.0, CPU, 2 threads' }) };
    const run = withDiagnosis(response([noisy], { selectedDevice: 'cpu' }), facts);
    const body = renderBenchmarkBody(state(entry(run)));
    const table = /<table class="runs">(.*?)<\/table>/s.exec(body)?.[1] ?? '';
    assert.match(table, /<caption>[^<]*% of peak: of the float32 peak \(an estimate\) of 2 cores × 2\.60 GHz × 32 FLOP\/cycle \(AMD Zen 4\)\.<\/caption>/);
    assert.match(table, /<td class="num" title="of 166 GFLOP\/s, the float32 peak \(an estimate\) of 2 cores[^"]*">40 %<\/td>/);
    assert.match(table, /<td class="num noisy">[\d.]+ <span class="noise-mark" title="The repeats spread by more than 10 % of the median[^"]*">noisy<\/span><\/td>/);
    assert.match(renderBarChart(run), /66\.4 GFLOP\/s · 40 % of peak · noisy<\/text>/);
  });

  it('a sweep shows its limit, and where and why a series stopped', () => {
    const stop = { engine: 'torch' as const, device: 'cpu', dtype: 'float32' as const, lastSize: 2048, lastMedianSec: 0.612, stopSec: 0.5, reason: 'budget' as const, skipped: [4096, 8192] };
    const run = response([measured('torch', 'cpu', 1024, 0.08), measured('torch', 'cpu', 2048, 0.612)], { sweep: { sizes: [256, 512, 1024, 2048, 4096, 8192], stopSec: 0.5, stops: [stop] } });
    const text = visibleText(renderBenchmarkBody(state(entry(run))));
    assert.match(text, /Sweep n = 256…8192; it stops after a size whose median product passes 500 ms\./);
    assert.match(text, /torch cpu float32: stopped after n = 2048 \(median 612 ms, over the sweep's 500 ms limit per product\); n = 4096, 8192 not run\./);
    assert.doesNotMatch(visibleText(renderBenchmarkBody(state(entry(gpuRun())))), /Sweep n =/, 'not for a single size');
  });

  it('names the series a bar chart leaves out for want of a result at its size', () => {
    const run = response([
      measured('torch', 'cpu', 256, 0.001), measured('torch', 'cpu', 512, 0.008),
      measured('torch', 'cuda:0', 256, 0.0001), measured('torch', 'cuda:0', 512, 0.0004), measured('wasm', 'cpu', 256, 0.005),
    ]);
    const svg = renderBarChart(run);
    assert.match(svg, /Not measured at n = 512: wasm cpu\./);
    assert.strictEqual([...svg.matchAll(/<rect class="bar /g)].length, 2);
  });

  it('draws the sweep as GFLOP/s against n on a log2 axis, one line per engine/device', () => {
    const run = sweepRun();
    const svg = renderSweepChart(run);
    assert.match(svg, /aria-labelledby="sweep-title sweep-desc"/);
    assert.match(svg, /<title id="sweep-title">GFLOP\/s against matrix size n \(log2 axis\)<\/title>/);
    const lines = [...svg.matchAll(/<polyline class="line (series-\d)" points="([^"]+)"\/>/g)];
    assert.deepStrictEqual(lines.map((l) => l[1]), ['series-0', 'series-1']);
    const xs = lines[0]![2]!.split(' ').map((p) => Number(p.split(',')[0]));
    const steps = xs.slice(1).map((x, i) => Math.round((x - xs[i]!) * 10) / 10);
    assert.ok(steps.every((s) => s === steps[0]), `doubling n moves the same distance (log2 axis): ${steps}`);
    for (const n of [256, 512, 1024, 2048]) assert.ok(svg.includes(`text-anchor="middle">${n}</text>`), `x tick ${n}`);
    assert.match(svg, /<text class="legend-label"[^>]*>wasm cpu<\/text>/);
    assert.match(svg, /<text class="legend-label"[^>]*>js cpu<\/text>/);
    const body = renderBenchmarkBody(state(entry(run)));
    assert.match(body, /<h2 id="sweep-heading">Size sweep<\/h2>/);
    assert.strictEqual(renderSweepChart(gpuRun()), '', 'no sweep chart for one size');
    assert.ok(!renderBenchmarkBody(state(entry(gpuRun()))).includes('Size sweep'));
  });

  it('picks readable axis maxima', () => {
    assert.deepStrictEqual([0.7, 1, 1.3, 2.2, 4.9, 23, 2147].map(niceCeiling), [1, 1, 2, 2.5, 5, 25, 2500]);
    assert.strictEqual(niceCeiling(0), 1);
  });

  it('lists every run in a real table with a caption and column headers', () => {
    const body = renderBenchmarkBody(state(entry(gpuRun())));
    const table = /<table class="runs">(.*?)<\/table>/s.exec(body)?.[1] ?? '';
    assert.match(table, /^<caption>Every measurement: median of 5 timed repeats after a warm-up; GFLOP\/s = 2·n³ \/ median\.<\/caption>/);
    const headers = [...table.matchAll(/<th scope="col">([^<]*)<\/th>/g)].map((m) => m[1]);
    assert.deepStrictEqual(headers, ['engine', 'device', 'dtype', 'n', 'median (ms)', 'GFLOP/s', '% of peak', 'min / max (ms)', 'IQR (ms)', 'speedup', 'max rel. error', 'detail']);
    const rows = [...table.matchAll(/<tr>(.*?)<\/tr>/g)].slice(1).map((m) => visibleText(m[1]!).trim());
    assert.deepStrictEqual(rows, [
      'torch cpu float32 1024 143 15 — 140 / 146 1.43 baseline 1.2e-6 torch 2.4.0, AMD EPYC',
      'torch cuda:0 float32 1024 1 2,147 — 0.98 / 1.02 0.01 143× 1.2e-6 torch 2.4.0+cu121, NVIDIA H200',
      'wasm cpu float32 1024 500 4.29 — 490 / 510 5 0.29× 1.2e-6',
    ], 'no peaks known for an undiagnosed run: —');
  });

  it('shows problems with their remedies, and host↔device transfers', () => {
    const body = renderBenchmarkBody(state(entry(gpuRun())));
    const problems = /<ul class="problems">(.*?)<\/ul>/s.exec(body)?.[1] ?? '';
    assert.strictEqual([...problems.matchAll(/<li class="problem/g)].length, 3);
    const text = visibleText(problems);
    assert.match(text, /not installed tfjs-node Native TensorFlow\.js \(@tensorflow\/tfjs-node\) is not installed\. Run "Device Doctor: Install Native TensorFlow Backend"\./);
    assert.match(text, /refused torch · cuda:0 · float32 · n = 32768 Refused: n = 32768 float32 needs 12\.0 GiB/);
    assert.match(text, /unsupported wasm · cpu · float16 · n = 1024 The wasm engine does not support float16/);
    assert.match(body, /<h2 id="transfers-heading">Host ↔ device transfers<\/h2>/);
    const transfers = visibleText(/<table class="transfers">(.*?)<\/table>/s.exec(body)?.[1] ?? '');
    assert.match(transfers, /cuda:0 host → device pinned 256\.0 MiB 10 26\.8 ok/);
  });

  it('marks a wrong product as an error, louder than "not available here"', () => {
    const wrong: EngineOutcome = { status: 'wrong-result', engine: 'js', device: 'cpu', dtype: 'float32', size: 256, message: 'Entry (3, 7) is 12 instead of 4.', remedy: 'Do not trust this engine.' };
    const body = renderBenchmarkBody(state(entry(response([measured('js', 'cpu', 256, 0.01), wrong]))));
    assert.match(body, /<li class="problem error"><p class="where"><span class="status">WRONG RESULT<\/span>/);
  });

  it('lists earlier runs, newest first, each with a Show button; the one shown is marked', () => {
    const newest = entry(gpuRun(), 'run-2', TIME + 3_600_000);
    const older = entry(sweepRun(), 'run-1', TIME);
    const body = renderBenchmarkBody(state(older, [newest, older]));
    const history = /<table class="history">(.*?)<\/table>/s.exec(body)?.[1] ?? '';
    const rows = [...history.matchAll(/<tr( class="current" aria-current="true")?>(.*?)<\/tr>/g)].slice(1);
    assert.strictEqual(rows.length, 2);
    assert.match(visibleText(rows[0]![2]!), /cuda:0 against the CPU, n = 1024 cuda:0 2,147 GFLOP\/s · cuda:0 · n = 1024 Show/);
    assert.match(rows[0]![2]!, /<button type="button" class="link" data-action="showRun" data-run-id="run-2" aria-label="Show the run of \d{4}-\d\d-\d\d \d\d:\d\d">Show<\/button>/);
    assert.ok(rows[1]![1], 'the shown run is marked current');
    assert.match(visibleText(rows[1]![2]!), /every engine, sweep 256…8192 cpu 13 GFLOP\/s · wasm cpu · n = 2048 shown/);
    assert.match(body, /Earlier run, \d{4}-\d\d-\d\d \d\d:\d\d/);
  });

  it('a cancel says where it stopped and which sizes it kept', () => {
    const finished = [256, 512, 1024, 2048].map((n) => measured('torch', 'cpu', n, 1e-3 * (n / 256) ** 3));
    const run = response([...finished, cancelledOutcome({ engine: 'torch', device: 'cpu', dtype: 'float32', size: 4096 })], { cancelled: true });
    assert.strictEqual(cancelSummary(run), 'cancelled at n = 4096; 256–2048 kept');
    assert.strictEqual(cancelSummary(response([measured('torch', 'cpu', 1024, 0.1), measured('wasm', 'cpu', 1024, 0.3), cancelledOutcome({ engine: 'js', device: 'cpu', dtype: 'float32', size: 1024 })])), 'cancelled at n = 1024; n = 1024 kept (2 results)');
    assert.strictEqual(cancelSummary(response([cancelledOutcome({ engine: 'js', device: 'cpu', dtype: 'float32', size: 1024 })])), null);
    const body = renderBenchmarkBody(state(entry(run), [entry(run)], { kind: 'cancelled', description: 'sweep', kept: cancelSummary(run) }));
    assert.match(visibleText(body), /Cancelled — sweep: cancelled at n = 4096; 256–2048 kept, shown below\./);
    const none = renderBenchmarkBody(state(null, [], { kind: 'cancelled', description: 'js on cpu, n = 1024', kept: null }));
    assert.match(visibleText(none), /Cancelled — js on cpu, n = 1024\. Nothing had finished, so nothing was kept\./);
  });

  it('shows the running, cancelled and failed states above the results', () => {
    const shown = entry(gpuRun());
    assert.match(renderBenchmarkBody(state(shown, [shown], { kind: 'running', description: 'js on cpu, n = 1024' })), /<p class="status busy" data-state="running">Running: js on cpu, n = 1024…<\/p>/);
    const cancelled = renderBenchmarkBody(state(shown, [shown], { kind: 'cancelled', description: 'js on cpu, n = 1024' }));
    assert.match(cancelled, /<p class="status cancelled" data-state="cancelled"><strong>Cancelled<\/strong> — js on cpu, n = 1024\./);
    assert.match(cancelled, /Latest run/, 'the previous results stay below');
    const failed = renderBenchmarkBody(state(null, [], { kind: 'failed', description: 'wasm on cpu, n = 40000', message: 'Matrix size must be a whole number from 1 to 32768, not 40000.' }));
    assert.match(failed, /<strong>Failed<\/strong> — wasm on cpu, n = 40000: Matrix size must be/);
    assert.match(renderBenchmarkBody(state(null)), /No benchmark yet/);
  });

  it('disables the export buttons until a run is shown', () => {
    const empty = renderBenchmarkPage(state(null), RESOURCES);
    assert.match(empty, /<button type="button" data-action="exportCsv" disabled>Export CSV…<\/button>/);
    assert.match(empty, /<button type="button" data-action="runBenchmark">Run Benchmark…<\/button>/);
    const full = renderBenchmarkPage(state(entry(gpuRun())), RESOURCES);
    for (const action of ['exportJson', 'exportCsv', 'exportMarkdown', 'copyMarkdown']) {
      assert.ok(full.includes(`<button type="button" data-action="${action}">`), action);
    }
  });

  it('escapes a <script> device name and every other string from the worker', () => {
    const evil = '<script>alert(1)</script>';
    const run = response(
      [measured('torch', 'cpu', 256, 0.01, 'float32', '<img src=x onerror=alert(2)>'), measured('torch', evil, 256, 0.001), { ...NOT_INSTALLED, message: `"><b>${evil}` }],
      { description: `</p>${evil}`, selectedDevice: evil },
    );
    const evilEntry = entry(run, `x" onclick="alert(3)`);
    const page = renderBenchmarkPage(state(evilEntry, [entry(gpuRun(), 'other', TIME + 1), evilEntry]), RESOURCES);
    const other = renderBenchmarkBody(state(entry(gpuRun(), 'other', TIME + 1), [entry(gpuRun(), 'other', TIME + 1), evilEntry]));
    assert.strictEqual(page.match(/<script/g)?.length, 1, 'only the page\'s own script tag');
    assert.ok(!page.includes('<img'), 'no injected element');
    assert.deepStrictEqual(attributeNames(page).filter((name) => name.startsWith('on')), [], 'no injected handler');
    assert.ok(page.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
    assert.match(visibleText(page), /<script>alert\(1\)<\/script> is 10× faster than torch cpu/);
    assert.match(visibleText(page), /not installed tfjs-node "><b><script>alert\(1\)<\/script> Run/);
    assert.ok(other.includes('data-run-id="x&quot; onclick=&quot;alert(3)"'), 'a stored id stays inside its attribute');
    assert.deepStrictEqual(attributeNames(other).filter((name) => name.startsWith('on')), []);
  });
});
