// The analyzer never throws, whatever it is given: truncated files, garbage, deep nesting,
// huge files, odd line endings, non-ASCII text; and broken files keep their valid parts' findings.
import { strict as assert } from 'assert';
import { analyzeNotebook, analyzeSource, initPythonParser, isRuleCode } from '../../src/core/analysis';
import type { Finding } from '../../src/core/analysis';
import { lineStarts } from '../../src/core/python/edits';
import { coreFindings, formatFindings, isCoreRule } from './helpers/analysis';
import { generateTrainingScript } from './helpers/bigScript';
import { loadRuleFixtures } from './helpers/fixtures';
import { SeededRandom } from './helpers/prng';
import { DEEP_INPUTS, mutate, randomCodePoints, tokenSoup } from './helpers/robustInputs';

/** Analyses `source` and checks that every range and edit of every finding lies inside it. */
function analyzeChecked(source: string, label: string): Finding[] {
  let findings: Finding[];
  try {
    findings = analyzeSource(source);
  } catch (error) {
    throw new Error(`analyzeSource threw on ${label}: ${(error as Error).stack}\n--- input (first 500 chars) ---\n${source.slice(0, 500)}`);
  }
  assert.ok(Array.isArray(findings), `${label}: not an array`);
  const lineCount = lineStarts(source).length;
  for (const f of findings) {
    assert.ok(isRuleCode(f.code), `${label}: unknown code ${f.code}`);
    const ranges = [f.range, ...f.related.map((r) => r.range), ...f.fixes.flatMap((x) => x.edits.map((e) => e.range))];
    for (const r of ranges) {
      assert.ok(r.start.line >= 0 && r.end.line < lineCount && r.start.character >= 0, `${label}: range outside the text: ${JSON.stringify(r)}`);
    }
  }
  return findings;
}

const TRUNCATED = [
  'DD001/fire/rnn_hidden_state_eval.py',
  'DD002/fire/mnist_enumerate_forgot_move.py',
  'DD003/fire/trainer_collect_embeddings.py',
  'DD004/fire/self_attr_buffer.py',
  'DD010/fire/after_no_grad_block.py',
];

const allFire = () => (['DD001', 'DD002', 'DD003', 'DD004', 'DD010'] as const).flatMap((r) => loadRuleFixtures(r, 'fire'));

describe('robustness', function () {
  this.timeout(60_000);

  before(async () => {
    await initPythonParser();
  });

  it('survives every prefix of several fixtures, cut every 7 characters', () => {
    const fixtures = allFire().filter((fx) => TRUNCATED.some((name) => fx.relPath.endsWith(name)));
    assert.equal(fixtures.length, TRUNCATED.length);
    for (const fx of fixtures) {
      for (let end = 0; end <= fx.source.length; end += 7) analyzeChecked(fx.source.slice(0, end), `${fx.relPath} cut at ${end}`);
    }
  });

  it('survives seeded random code points (lone surrogates, NUL, controls)', () => {
    const rng = new SeededRandom(20240601);
    for (let i = 0; i < 300; i++) analyzeChecked(randomCodePoints(rng, 400), `random text #${i} (seed 20240601)`);
  });

  it('survives seeded Python-flavoured token soup', () => {
    const rng = new SeededRandom(7);
    for (let i = 0; i < 300; i++) analyzeChecked(tokenSoup(rng, 5 + rng.int(200)), `token soup #${i} (seed 7)`);
  });

  it('survives seeded mutations of every firing fixture', () => {
    const rng = new SeededRandom(42);
    for (const fx of allFire()) {
      for (let i = 0; i < 5; i++) analyzeChecked(mutate(rng, fx.source, 1 + rng.int(6)), `${fx.relPath} mutant #${i} (seed 42)`);
    }
  });

  for (const deep of DEEP_INPUTS) {
    it(`survives ${deep.name}`, () => {
      analyzeChecked(deep.source(), deep.name);
    });
  }

  it('still finds a mistake 50 ifs deep', () => {
    const source = 'import torch\nt_gpu = torch.ones(3).cuda()\n'
      + Array.from({ length: 50 }, (_, i) => `${'    '.repeat(i)}if t_gpu.sum() > ${i}:\n`).join('') + `${'    '.repeat(50)}t_gpu.numpy()\n`;
    assert.deepEqual(coreFindings(source).map((f) => [f.code, f.range.start.line]), [['DD005', 1], ['DD003', 52]]);
  });

  it('analyses a generated 50,000-line training script to the end', () => {
    const { text, planted } = generateTrainingScript(50_000);
    assert.ok(text.split('\n').length >= 50_000);
    const findings = analyzeChecked(text, 'the 50,000-line script').filter((f) => isCoreRule(f.code));
    const got = findings.map((f) => `${f.code}@${f.range.start.line}`);
    assert.deepEqual(got, planted.map((line) => `DD003@${line}`), 'exactly the planted DD003 mistakes, first to last');
  });

  it('returns nothing for empty, blank, comment-only and docstring-only files', () => {
    for (const source of ['', '\n', '   \n\t\n', '# just a comment\n# another', '#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\n', '"""Module docstring."""\n', '\ufeff']) {
      assert.deepEqual(analyzeChecked(source, JSON.stringify(source)), []);
    }
  });

  describe('line endings and indentation', () => {
    const fx = loadRuleFixtures('DD002', 'fire').find((f) => f.relPath.endsWith('discarded_to_in_loop.py'))!;
    const positions = (source: string) => coreFindings(source).map((f) => `${f.code}@${f.range.start.line}:${f.range.start.character}`);

    it('reports the same positions with CRLF line endings as with LF', () => {
      const lf = positions(fx.source);
      assert.ok(lf.length > 0);
      assert.deepEqual(positions(fx.source.replace(/\n/g, '\r\n')), lf);
    });

    it('reports the same lines with tab indentation', () => {
      const lines = (s: string) => coreFindings(s).map((f) => `${f.code}@${f.range.start.line}`);
      const tabbed = fx.source.replace(/^((?: {4})+)/gm, (spaces) => '\t'.repeat(spaces.length / 4));
      assert.deepEqual(lines(tabbed), lines(fx.source));
    });

    it('survives old-Mac CR-only line endings and a trailing line without newline', () => {
      analyzeChecked(fx.source.replace(/\n/g, '\r'), 'CR-only');
      analyzeChecked(fx.source.trimEnd(), 'no final newline');
    });
  });

  describe('non-ASCII text', () => {
    it('names a non-ASCII variable and locates it in UTF-16 columns after emoji on the same line', () => {
      const source = 'import torch\ndonnées = torch.randn(3).to("cuda")\nétiquette = "🔥 température 🔥"; tableau = données.numpy()\n';
      const findings = coreFindings(source).filter((f) => f.code === 'DD003');
      assert.deepEqual(findings.map((f) => [f.code, f.range.start.line]), [['DD003', 2]], formatFindings(findings));
      const line = source.split('\n')[2];
      const { start, end } = findings[0].range;
      const covered = line.slice(start.character, end.character);
      assert.ok(covered.length > 0 && 'données.numpy()'.includes(covered), `range covers ${JSON.stringify(covered)}`);
      assert.ok(findings[0].message.includes('données'), findings[0].message);
    });

    it('places the fix in UTF-16 columns, so it lands right after the variable', () => {
      const source = 'import torch\nt = torch.ones(2).cuda(); s = "日本語🔥"; v = t.numpy()\n';
      const finding = coreFindings(source).find((f) => f.code === 'DD003');
      assert.ok(finding, 'DD003 expected');
      const edits = finding.fixes.find((f) => f.preferred)!.edits;
      const starts = lineStarts(source);
      const fixed = edits.reduceRight((text, e) => {
        const from = starts[e.range.start.line] + e.range.start.character;
        const to = starts[e.range.end.line] + e.range.end.character;
        return text.slice(0, from) + e.newText + text.slice(to);
      }, source);
      assert.ok(fixed.endsWith('v = t.cpu().numpy()\n'), fixed);
    });
  });

  describe('files with syntax errors keep the findings of their valid parts', () => {
    const tail = 't_gpu = torch.ones(4, device="cuda")\narr = t_gpu.numpy()\n';
    const broken: Record<string, string> = {
      'a broken function at the top': 'import torch\n\n\ndef broken(:\n    return )\n\n\ndef export():\n    t = torch.randn(3).to("cuda")\n    return t.numpy()\n',
      'an unfinished expression in a function above': 'import torch\n\ndef helper(x):\n    return x +\n\n' + tail,
      'a stray closing parenthesis': 'import torch\nx = 1)\n' + tail,
      'an unexpected indent': 'import torch\nx = 1\n        y = 2\n' + tail,
      'git merge conflict markers': 'import torch\n<<<<<<< HEAD\nlr = 0.1\n=======\nlr = 0.01\n>>>>>>> feature\n' + tail,
      'a Python 2 print statement': 'import torch\nprint "starting"\n' + tail,
      'a broken def at the end': 'import torch\n' + tail + 'def f(:\n',
    };
    for (const [name, source] of Object.entries(broken)) {
      it(name, () => {
        const findings = analyzeChecked(source, name).filter((f) => f.code === 'DD003');
        const line = source.split('\n').findIndex((l) => l.includes('.numpy()'));
        assert.deepEqual(findings.map((f) => f.range.start.line), [line], formatFindings(findings));
      });
    }
  });

  it('analyzeNotebook survives truncated and garbage cells', () => {
    const rng = new SeededRandom(99);
    const fx = allFire()[0];
    for (let i = 0; i < 100; i++) {
      const cells = Array.from({ length: 1 + rng.int(5) }, () => (rng.int(2) ? mutate(rng, fx.source, 3).slice(0, rng.int(fx.source.length)) : tokenSoup(rng, 40)));
      assert.doesNotThrow(() => analyzeNotebook(cells), `notebook #${i} (seed 99)`);
    }
  });
});
