// Seeded fuzzing of the analyzer (test/fuzz; `npm run fuzz -- --count N` for long runs).
// It lives in test/process because the real CPython judges whether fixes leave Python.
// Properties: analysis never throws; every range lies inside the document (LSP lines);
// every preferred fix keeps CPython-parseable input parseable; fix-all converges.
// FUZZ_SEED / FUZZ_COUNT override the run below; a failure prints the seed and index to
// replay (`npm run fuzz -- --seed S --index I --count 1`) and where the input was saved.
import { strict as assert } from 'assert';
import * as path from 'path';
import { initPythonParser } from '../../src/core/analysis';
import type { Finding } from '../../src/core/analysis';
import { CPythonParser } from '../fuzz/cpython';
import { loadCorpus } from '../fuzz/corpus';
import { minimizeInput } from '../fuzz/minimize';
import { generateInput, MUTATORS, splitKeepingBreaks } from '../fuzz/mutators';
import type { FuzzInput } from '../fuzz/mutators';
import { checkInput, lineLengths, rangeProblem } from '../fuzz/properties';
import type { Analyzer } from '../fuzz/properties';
import { formatSummary, runFuzz, totalFailures } from '../fuzz/runner';
import { AnalysisTimeout, WorkerAnalyzer } from '../fuzz/workerAnalyzer';
import { SeededRandom } from '../unit/helpers/prng';

const SEED = Number(process.env.FUZZ_SEED ?? 20250611) >>> 0;
const COUNT = Number(process.env.FUZZ_COUNT ?? 300);
const OUT_DIR = path.resolve(__dirname, '..', '..', 'test-results', 'fuzz', `test-${SEED}`);

const source = (text: string): FuzzInput => ({ kind: 'source', label: 'self-check', source: text });

function finding(range: Finding['range'], edits: Finding['fixes'][number]['edits'], preferred = true): Finding {
  return { code: 'DD003', message: 'fake', range, severity: 'error', related: [], fixes: [{ title: 'fake fix', edits, preferred }] };
}

/** A fake analyzer whose "fix" for `print(x)` deletes the closing parenthesis. */
const parenEater: Analyzer = {
  source(text) {
    const lines = text.split(/\r\n|\r|\n/);
    const line = lines.findIndex((l) => l.includes('print(x)'));
    if (line < 0) return [];
    const at = lines[line].indexOf('print(x)') + 'print(x'.length;
    return [finding({ start: { line, character: at - 7 }, end: { line, character: at + 1 } }, [{ range: { start: { line, character: at }, end: { line, character: at + 1 } }, newText: '' }])];
  },
  notebook: () => [],
};

describe('fuzz: the analyzer on seeded hostile inputs', function () {
  this.timeout(60_000);
  let python: CPythonParser;

  before(async () => {
    await initPythonParser();
    python = await CPythonParser.start();
  });

  after(async () => {
    await python?.close();
  });

  describe('the property checker can fail', () => {
    it('catches a fix that deletes a closing parenthesis, and minimizes the input to that line', async () => {
      const noise = Array.from({ length: 30 }, (_, i) => `v${i} = (${i}, [${i}])\n`).join('');
      const input = source(`import torch\n${noise}print(x)\n${noise}`);
      const { violations } = await checkInput(input, parenEater, python);
      assert.deepEqual([...new Set(violations.map((v) => v.kind))], ['broken-fix'], JSON.stringify(violations));
      assert.match(violations[0].detail, /CPython: SyntaxError/);
      const fails = async (c: FuzzInput) => (await checkInput(c, parenEater, python)).violations.some((v) => v.kind === 'broken-fix');
      const { input: small } = await minimizeInput(input, fails, { checks: 2000, deadline: Date.now() + 20_000 });
      assert.equal(small.kind === 'source' && small.source, 'print(x)');
    });

    it('does not judge a fix on input CPython could not parse before', async () => {
      const { violations } = await checkInput(source('print(x)\ndef broken(:\n'), parenEater, python);
      assert.deepEqual(violations, []);
    });

    it('catches a throw, a range past the document and a fix-all that never converges', async () => {
      const thrower: Analyzer = { source: () => { throw new TypeError('boom'); }, notebook: () => [] };
      assert.deepEqual((await checkInput(source('x = 1\n'), thrower, python)).violations.map((v) => v.kind), ['throw']);

      const pastEnd: Analyzer = { source: () => [finding({ start: { line: 1, character: 0 }, end: { line: 1, character: 0 } }, [])], notebook: () => [] };
      assert.deepEqual((await checkInput(source('x = 1\n'), pastEnd, python)).violations.map((v) => v.kind), []);
      assert.deepEqual((await checkInput(source('x = 1'), pastEnd, python)).violations.map((v) => v.kind), ['out-of-range']);

      const forever: Analyzer = { source: () => [finding({ start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, newText: '# again\n' }])], notebook: () => [] };
      assert.deepEqual((await checkInput(source('x = 1\n'), forever, python)).violations.map((v) => v.kind), ['non-idempotent']);
    });

    it('reports an analysis that does not finish as a hang, and goes on with a fresh worker', async () => {
      const worker = new WorkerAnalyzer(500);
      try {
        await assert.rejects(worker.busy(60_000), AnalysisTimeout);
        assert.equal(worker.restarts, 1);
        worker.timeoutMs = 30_000; // the fresh worker loads the parser first: no race with a busy machine
        const { violations } = await checkInput(source('import torch\nt = torch.ones(2).cuda()\nt.numpy()\n'), worker, python);
        assert.deepEqual(violations, []);
      } finally {
        await worker.close();
      }
    });

    it("measures ranges by LSP's lines: \\n, \\r\\n and a lone \\r each end a line", () => {
      const doc = lineLengths('a = 1\rbb = 2\r\nc');
      assert.deepEqual(doc, [5, 6, 1]);
      assert.deepEqual(lineLengths('x\n\r\r\n'), [1, 0, 0, 0]);
      assert.deepEqual(lineLengths(''), [0]);
      assert.equal(rangeProblem({ start: { line: 1, character: 0 }, end: { line: 2, character: 1 } }, doc), undefined);
      assert.match(rangeProblem({ start: { line: 1, character: 0 }, end: { line: 1, character: 7 } }, doc)!, /column 7 past the end \(6\)/);
      assert.match(rangeProblem({ start: { line: 3, character: 0 }, end: { line: 3, character: 0 } }, doc)!, /past the last line/);
      assert.match(rangeProblem({ start: { line: 0, character: 3 }, end: { line: 0, character: 1 } }, doc)!, /start after end/);
    });

    it('asks the real CPython, which knows lone CR, BOM, NUL, lone surrogates and bidi marks', async () => {
      const verdicts = await python.parseMany(['x = 1\ry = (2,\r 3)\r', '\ufeffx = 1\n', 'x = 1\0\n', 'x = "\ud800"\n', '# \u202e comment\nx = 1\n', 'x\u202e = 1\n']);
      assert.deepEqual(verdicts.map((v) => v.ok), [true, true, false, false, true, false]);
    });
  });

  it('generates reproducible inputs, every mutator included', () => {
    const corpus = loadCorpus();
    assert.ok(corpus.files.length >= 100 && corpus.notebooks.length >= 1, `corpus: ${corpus.files.length} files, ${corpus.notebooks.length} notebooks`);
    assert.deepEqual(generateInput(7, 123, corpus), generateInput(7, 123, corpus));
    const labels = Array.from({ length: 2000 }, (_, i) => generateInput(1, i, corpus, { deepRate: 0.05, hugeLineRate: 0 }).label).join('\n');
    for (const m of MUTATORS) assert.ok(labels.includes(m.name), `mutator ${m.name} never drawn`);
    assert.ok(labels.includes('deep:') && labels.includes('random notebook'));
    const rng = new SeededRandom(3);
    for (let i = 0; i < 50; i++) {
      const text = MUTATORS[i % MUTATORS.length].apply(rng, corpus.files[i].source, corpus);
      assert.equal(splitKeepingBreaks(text).join(''), text);
    }
  });

  it('keeps every property on every unmodified corpus file and notebook', async () => {
    const corpus = loadCorpus();
    const inputs: FuzzInput[] = [
      ...corpus.files.map((f): FuzzInput => ({ kind: 'source', label: f.relPath, source: f.source })),
      ...corpus.notebooks.map((n): FuzzInput => ({ kind: 'notebook', label: n.relPath, cells: n.cells })),
    ];
    const summary = await runFuzz({ count: inputs.length, seed: SEED, inputs, oracle: python, minimize: false });
    assert.equal(totalFailures(summary), 0, formatSummary(summary));
    assert.equal(summary.parsedByCPython, inputs.length, 'the corpus is valid Python');
    assert.ok(summary.judgedFixes >= 50, `fixes judged: ${summary.judgedFixes}`);
  });

  it(`keeps every property on ${COUNT} seeded mutants (seed ${SEED})`, async () => {
    const summary = await runFuzz({ count: COUNT, seed: SEED, oracle: python, outDir: OUT_DIR, minimizeMs: 15_000 });
    assert.equal(totalFailures(summary), 0, formatSummary(summary));
    assert.ok(summary.notebooks > 0 && summary.parsedByCPython > 0 && summary.judgedFixes > 0, formatSummary(summary));
  });
});
