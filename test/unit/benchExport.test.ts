import * as assert from 'assert';
import { buildRun } from '../../src/core/bench/compare';
import { csvField, formatBenchJson, markdownCell, toBenchJson, toCsv, toMarkdown } from '../../src/core/bench/export';
import type { BenchRun, EngineOutcome, RunResult } from '../../src/core/bench/model';
import { makeBenchResult } from '../../src/core/bench/result';

const GIB = 1024 ** 3;

function measured(engine: 'torch' | 'wasm' | 'js', device: string, timesSec: number[], detail: string | null = null): RunResult {
  return { status: 'ok', result: makeBenchResult({ plan: { engine, device, dtype: 'float32', size: 1024 }, timesSec, maxRelError: 3.5e-7, checkedEntries: 64, detail }) };
}

const refused: EngineOutcome = {
  status: 'refused', engine: 'torch', device: 'cuda:0', dtype: 'float32', size: 32768,
  message: 'Refused: n = 32768 float32 needs 12.0 GiB (3 × n² × 4 bytes), 8.0 GiB free on cuda:0.', remedy: 'Choose a size up to 26754, or free memory on cuda:0.',
  neededBytes: 12 * GIB, freeBytes: 8 * GIB,
};
const notInstalled: EngineOutcome = { status: 'not-installed', engine: 'tfjs-node', device: null, dtype: null, size: null, message: 'Native TensorFlow.js (@tensorflow/tfjs-node) is not installed.', remedy: 'Run "Device Doctor: Install Native TensorFlow Backend".' };

function sampleRun(): BenchRun {
  return buildRun([measured('torch', 'cpu', [0.1, 0.12, 0.08]), measured('torch', 'cuda:0', [0.002, 0.001, 0.003]), refused, notInstalled]);
}

describe('bench export: JSON (device-doctor bench --json)', () => {
  it('has exactly the shape README.md documents: schemaVersion, results, speedup (and problems)', () => {
    const json = toBenchJson(sampleRun());
    assert.deepStrictEqual(Object.keys(json), ['schemaVersion', 'results', 'speedup', 'problems']);
    assert.strictEqual(json.schemaVersion, 1);
    for (const r of json.results) {
      assert.deepStrictEqual(Object.keys(r), ['engine', 'device', 'threads', 'dtype', 'size', 'repeats', 'timesSec', 'medianSec', 'iqrSec', 'gflops', 'peakGflops', 'percentOfPeak', 'peakBasis', 'noisy', 'noiseReason', 'maxRelError']);
    }
    assert.deepStrictEqual(json.results[1], {
      engine: 'torch', device: 'cuda:0', threads: null, dtype: 'float32', size: 1024, repeats: 3,
      timesSec: [0.002, 0.001, 0.003], medianSec: 0.002, iqrSec: 0.001, gflops: (2 * 1024 ** 3) / 0.002 / 1e9,
      peakGflops: null, percentOfPeak: null, peakBasis: null, noisy: true,
      noiseReason: 'other load on the machine or changing clocks; run again when it is quieter', maxRelError: 3.5e-7,
    }, 'undiagnosed (no peak known); noisy: an IQR of half the median, nothing seen to say why');
  });

  it('speedup: the baseline and one entry per other result', () => {
    const json = toBenchJson(sampleRun());
    assert.deepStrictEqual(json.speedup, {
      kind: 'versus-baseline',
      baseline: { engine: 'torch', device: 'cpu' },
      entries: [{ engine: 'torch', device: 'cuda:0', dtype: 'float32', baselineDtype: 'float32', size: 1024, speedup: 50, text: 'torch cuda:0 is 50× faster than torch cpu' }],
    });
    assert.deepStrictEqual(Object.keys(json.speedup!.entries[0]), ['engine', 'device', 'dtype', 'baselineDtype', 'size', 'speedup', 'text']);
  });

  it('speedup is null (not missing) without a CPU baseline', () => {
    const text = formatBenchJson(buildRun([measured('torch', 'cuda:0', [0.001])]));
    assert.match(text, /"speedup": null/);
    assert.strictEqual(JSON.parse(text).speedup, null);
  });

  it('problems carry status, message and remedy, plus the byte counts of a refusal; null stays null', () => {
    const problems = toBenchJson(sampleRun()).problems;
    assert.deepStrictEqual(problems[0], {
      engine: 'torch', device: 'cuda:0', dtype: 'float32', size: 32768, status: 'refused',
      message: refused.message, remedy: refused.remedy, neededBytes: 12 * GIB, freeBytes: 8 * GIB,
    });
    assert.deepStrictEqual(Object.keys(problems[1]), ['engine', 'device', 'dtype', 'size', 'status', 'message', 'remedy']);
    assert.strictEqual(problems[1].device, null);
    assert.deepStrictEqual(toBenchJson(buildRun([measured('js', 'cpu', [1])])).problems, []);
  });

  it('the text is indented JSON ending in a newline, panel-only fields left out', () => {
    const text = formatBenchJson(sampleRun());
    assert.ok(text.endsWith('}\n'));
    assert.ok(!/minSec|detail|checkedEntries/.test(text), 'iqrSec is in: the noise mark is judged by it');
    assert.deepStrictEqual(JSON.parse(text), toBenchJson(sampleRun()));
  });

  it('the JSON is a copy: changing it leaves the run alone', () => {
    const run = sampleRun();
    const json = toBenchJson(run);
    json.results[0].timesSec.push(99);
    json.speedup!.entries[0].speedup = 0;
    assert.strictEqual(run.results[0].timesSec.length, 3);
    assert.strictEqual(run.speedup!.entries[0].speedup, 50);
  });
});

describe('bench export: CSV', () => {
  it('quotes per RFC 4180: commas, quotes and line breaks; doubles quotes', () => {
    assert.strictEqual(csvField('plain'), 'plain');
    assert.strictEqual(csvField('a,b'), '"a,b"');
    assert.strictEqual(csvField('say "hi"'), '"say ""hi"""');
    assert.strictEqual(csvField('two\nlines'), '"two\nlines"');
    assert.strictEqual(csvField('cr\rhere'), '"cr\rhere"');
    assert.strictEqual(csvField(null), '');
    assert.strictEqual(csvField(undefined), '');
    assert.strictEqual(csvField(0.5), '0.5');
  });

  it('has a header and one CRLF-terminated row per result, full precision, speedup empty for the baseline', () => {
    const csv = toCsv(buildRun([measured('torch', 'cpu', [0.1, 0.12, 0.08]), measured('wasm', 'cpu', [0.4, 0.2, 0.3], 'tfjs-backend-wasm 4.22.0, SIMD, "1" thread')]));
    const lines = csv.split('\r\n');
    assert.strictEqual(lines.pop(), '');
    assert.strictEqual(lines[0], 'engine,device,threads,dtype,size,repeats,medianSec,minSec,maxSec,q1Sec,q3Sec,iqrSec,gflops,maxRelError,speedup,speedupBaselineDtype,timesSec,detail');
    assert.strictEqual(lines.length, 3);
    const baseline = lines[1].split(',');
    assert.deepStrictEqual(baseline.slice(0, 7), ['torch', 'cpu', '', 'float32', '1024', '3', '0.1'], 'no thread count set: empty');
    assert.strictEqual(baseline[14], '', 'baseline has no speedup');
    assert.strictEqual(baseline[15], '', 'nor the dtype of a baseline');
    assert.strictEqual(baseline[16], '0.1 0.12 0.08');
    assert.ok(lines[2].endsWith(`,${0.1 / 0.3},float32,0.4 0.2 0.3,"tfjs-backend-wasm 4.22.0, SIMD, ""1"" thread"`), lines[2]);
  });

  it('guards text from outside against formula injection (OWASP): = + - @ tab CR get a leading quote', () => {
    for (const text of ['=HYPERLINK("http://x","y")', '+1+2', '-2+3', '@SUM(A1)', '\t=1', '\r=1']) {
      const field = csvField(text);
      const unquoted = field.startsWith('"') ? field.slice(1, -1).replace(/""/g, '"') : field;
      assert.strictEqual(unquoted, `'${text}`, JSON.stringify(text));
    }
    assert.strictEqual(csvField('cmd|=x'), 'cmd|=x', 'only a leading trigger is a formula');
    assert.strictEqual(csvField('NVIDIA H200'), 'NVIDIA H200');
  });

  it('keeps the numbers it writes numeric: a negative number is not text, so it is not guarded', () => {
    assert.strictEqual(csvField(-0.25), '-0.25');
    assert.strictEqual(csvField(-1e-7), '-1e-7');
    assert.strictEqual(csvField(0), '0');
  });

  it('a device name or engine detail that looks like a formula reaches the file as text', () => {
    const run = buildRun([measured('torch', 'cpu', [0.1], '=cmd|\' /C calc\'!A0'), measured('wasm', 'cpu', [0.2], '@evil')]);
    run.results[1].device = '+cpu';
    const rows = toCsv(run).split('\r\n');
    assert.ok(rows[1].endsWith(`,"'=cmd|' /C calc'!A0"`) || rows[1].endsWith(`,'=cmd|' /C calc'!A0`), rows[1]);
    assert.ok(rows[2].startsWith("wasm,'+cpu,,float32,1024,1,0.2,"), rows[2]);
    assert.ok(rows[2].endsWith(",'@evil"), rows[2]);
  });

  it('a run without results is just the header', () => {
    assert.strictEqual(toCsv(buildRun([notInstalled])).split('\r\n').length, 2);
  });
});

describe('bench export: Markdown', () => {
  it('a table of results with rounded milliseconds, GFLOP/s, speedup and error', () => {
    const md = toMarkdown(sampleRun());
    const lines = md.split('\n');
    assert.strictEqual(lines[0], '| engine | device | threads | dtype | n | median (ms) | IQR (ms) | min (ms) | max (ms) | GFLOP/s | speedup | max rel. error |');
    assert.strictEqual(lines[1], '| --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
    assert.strictEqual(lines[2], '| torch | cpu |  | float32 | 1024 | 100 | 20 | 80 | 120 | 21.5 | baseline | 3.5e-7 |');
    assert.strictEqual(lines[3], '| torch | cuda:0 |  | float32 | 1024 | 2 | 1 | 1 | 3 | 1073.7 | 50× | 3.5e-7 |');
  });

  it('lists the problems under the table with their remedies', () => {
    const md = toMarkdown(sampleRun());
    assert.match(md, /\n\n- \*\*torch, cuda:0, float32, n = 32768\*\* \(refused\): Refused: n = 32768 float32 needs 12\.0 GiB/);
    assert.match(md, /- \*\*tfjs-node\*\* \(not-installed\): Native TensorFlow\.js \(@tensorflow\/tfjs-node\) is not installed\. Run "Device Doctor: Install Native TensorFlow Backend"\./);
  });

  it('escapes pipes and flattens line breaks so a value cannot break the table', () => {
    assert.strictEqual(markdownCell('a|b'), 'a\\|b');
    assert.strictEqual(markdownCell('one\ntwo\r\nthree'), 'one two three');
    assert.strictEqual(markdownCell('back\\slash'), 'back\\\\slash');
    const run = buildRun([measured('js', 'cpu', [1])]);
    run.results[0].device = 'cpu|odd';
    assert.ok(toMarkdown(run).includes('| cpu\\|odd |'));
  });

  it('escapes HTML so a device name or message cannot inject markup', () => {
    assert.strictEqual(markdownCell('<img src=x onerror=alert(1)>'), '&lt;img src=x onerror=alert(1)&gt;');
    assert.strictEqual(markdownCell('R&D <b>'), 'R&amp;D &lt;b&gt;');
    assert.strictEqual(markdownCell('&lt;'), '&amp;lt;', 'an entity from outside stays literal text');
    const run = buildRun([measured('torch', 'cpu', [0.1]), { ...notInstalled, message: 'GPU <script>alert(1)</script> & more' }]);
    run.results[0].device = '<b>cpu</b>';
    const md = toMarkdown(run);
    assert.ok(!/<[a-z/]/i.test(md), md);
    assert.ok(md.includes('| &lt;b&gt;cpu&lt;/b&gt; |'), md);
    assert.ok(md.includes('GPU &lt;script&gt;alert(1)&lt;/script&gt; &amp; more'), md);
  });

  it('escapes Markdown syntax from outside: links, emphasis and code spans render as the text they are', () => {
    assert.strictEqual(markdownCell('[click](http://evil)'), '\\[click\\](http://evil)');
    assert.strictEqual(markdownCell('**bold** _it_ `code` ~~s~~'), '\\*\\*bold\\*\\* \\_it\\_ \\`code\\` \\~\\~s\\~\\~');
    const run = buildRun([{ ...notInstalled, message: 'see [here](javascript:alert(1))', remedy: '| a | b |' }]);
    const line = toMarkdown(run).split('\n').find((l) => l.startsWith('- '));
    assert.strictEqual(line, '- **tfjs-node** (not-installed): see \\[here\\](javascript:alert(1)) \\| a \\| b \\|');
  });

  it('a result with no matching baseline size shows a dash for its speedup', () => {
    const run = buildRun([measured('torch', 'cpu', [0.1])]);
    run.results.push({ ...run.results[0], device: 'cuda:0', size: 2048 });
    assert.ok(toMarkdown(run).split('\n')[3].includes('| — |'));
  });
});
