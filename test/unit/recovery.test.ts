// Recovery from syntax errors (src/core/python/recovery.ts): which statement is skipped,
// what stays exactly as it was, and what the analysis makes of the rest.
import * as assert from 'assert';
import { analyzeNotebook, analyzeSource, initPythonParser } from '../../src/core/analysis';
import type { Finding, SkippedStatement } from '../../src/core/analysis';
import { parsePython } from '../../src/core/python/parser';
import { MAX_RECOVERY_ROUNDS, recoverFromSyntaxErrors } from '../../src/core/python/recovery';
import { FileAnalyzer } from '../../src/server/fileAnalyzer';
import { range } from './serverFindings';

function recover(source: string) {
  const tree = parsePython(source);
  const recovered = recoverFromSyntaxErrors(tree, source);
  const result = { text: recovered.text, clean: !recovered.tree.rootNode.hasError, owned: recovered.owned, sameTree: recovered.tree === tree,
    skipped: recovered.skipped.map((r) => [r.start.line + 1, r.start.character + 1, r.end.line + 1]) };
  if (recovered.owned) recovered.tree.delete();
  tree.delete();
  return result;
}

function analyzed(source: string): { findings: string[]; skipped: number[][]; fixes: Finding[] } {
  const skipped: SkippedStatement[] = [];
  const found = analyzeSource(source, { onSyntaxError: (s) => skipped.push(s) });
  return { findings: found.map((f) => `${f.code}@${f.range.start.line + 1}`), skipped: skipped.map((s) => [s.range.start.line + 1, s.range.start.character + 1]), fixes: found };
}

const PRELUDE = 'import torch\nmodel = torch.nn.Linear(4, 2).to("cuda" if torch.cuda.is_available() else "cpu")\n';

describe('core: recovery from syntax errors', () => {
  before(() => initPythonParser());

  it('leaves a text without errors alone: the same tree, nothing skipped', () => {
    const r = recover(`${PRELUDE}x = torch.zeros(4)\nmodel(x)\n`);
    assert.deepStrictEqual([r.sameTree, r.owned, r.skipped], [true, false, []]);
  });

  it('blanks only the broken statement: every other line, and every line break, exactly as it was', () => {
    const source = `${PRELUDE}a = torch.zeros(4)\r\nx = torch.zeros(3\r\nb = 1\r\n`;
    const r = recover(source);
    assert.deepStrictEqual(r.skipped, [[4, 1, 4]]);
    assert.ok(r.clean);
    const before = source.split('\n');
    const after = r.text.split('\n');
    assert.strictEqual(after.length, before.length);
    after.forEach((line, i) => assert.strictEqual(line, i === 3 ? `pass${' '.repeat('x = torch.zeros(3'.length - 4)}\r` : before[i], `line ${i + 1}`));
  });

  it('re-parses incrementally to the very tree a full parse of the recovered text gives', () => {
    const sources = [
      `${PRELUDE}a = torch.zeros(4)\r\nx = torch.zeros(3\r\nb = 1\r\n`,
      `${PRELUDE}def f():\n    x = (\n\ndef g():\n    y = [1,\n    return 2\n(\nz = 3)\n`,
      `${PRELUDE}for i in range(3):\n    if i = 2:\n        pass\n    else:\n        y = i.\nw = {1: 2\n`,
    ];
    for (const source of sources) {
      const tree = parsePython(source);
      const recovered = recoverFromSyntaxErrors(tree, source);
      const full = parsePython(recovered.text);
      try {
        assert.ok(recovered.owned && recovered.skipped.length > 0, source);
        assert.strictEqual(recovered.tree.rootNode.toString(), full.rootNode.toString(), source);
      } finally {
        full.delete();
        recovered.tree.delete();
        tree.delete();
      }
    }
  });

  it('keeps a pass where a block would be left empty, so the function after it still parses', () => {
    const source = `${PRELUDE}def f():\n    x = torch.zeros(3\n\ndef g():\n    t = torch.zeros(2)\n    model(t)\n`;
    const r = recover(source);
    assert.deepStrictEqual([r.skipped, r.clean], [[[4, 5, 4]], true]);
    assert.deepStrictEqual(analyzed(source).findings, ['DD001@8']);
  });

  it('skips the statement inside a function, not the function, when the def itself is fine', () => {
    const source = `${PRELUDE}class M(torch.nn.Module):\n    def forward(self, x):\n        h = torch.zeros(3, x.size(0)\n        t = torch.zeros(4)\n        return model(t)\n`;
    const { findings, skipped } = analyzed(source);
    assert.deepStrictEqual(skipped, [[5, 9]]);
    assert.ok(findings.includes('DD001@7'), findings.join(' '));
  });

  it('skips a half-typed attribute (`y.`) and keeps the return after it', () => {
    const r = recover(`${PRELUDE}def f(x):\n    y = x.cuda()\n    z = y.\n    return y\n`);
    assert.deepStrictEqual([r.skipped, r.clean], [[[5, 5, 5]], true]);
    assert.match(r.text, /\n {4}return y\n$/);
  });

  it('reads an unindented keyword argument inside a call of valid code as part of it, even with an error elsewhere', () => {
    const source = `${PRELUDE}opts = dict(\nlr = 0.1,\n)\nx = torch.zeros(3\nt = torch.zeros(4)\nmodel(t)\n`;
    const r = recover(source);
    assert.deepStrictEqual([r.skipped, r.clean], [[[6, 1, 6]], true]);
  });

  it('skips only the line of a one-line docstring cut open, which would read the code up to the next docstring as a string', () => {
    const source = `${PRELUDE}def f(x):\n    \"\"\"Moves x\n    t = torch.zeros(4)\n    return model(t)\n\ndef g():\n    \"\"\"Nothing.\"\"\"\n    return 1\n`;
    const r = recover(source);
    assert.deepStrictEqual([r.skipped, r.clean], [[[4, 5, 4]], true]);
    assert.deepStrictEqual(analyzed(source).findings, ['DD001@6']);
  });

  it('skips an unclosed call on the last line (a MISSING `)` at the end of the file)', () => {
    const r = recover(`${PRELUDE}t = torch.zeros(4)\nmodel(t`);
    assert.deepStrictEqual([r.skipped, r.clean], [[[4, 1, 4]], true]);
  });

  it('gives up after a bounded number of rounds on a file of broken statements, and still analyses it', () => {
    const source = PRELUDE + Array.from({ length: 40 }, (_, i) => `x${i} = = ${i}\n`).join('') + 't = torch.zeros(4)\nmodel(t)\n';
    const r = recover(source);
    // One statement a round here (no bracket is unmatched): the first MAX_RECOVERY_ROUNDS of them.
    assert.deepStrictEqual([r.skipped.length, r.clean, r.skipped[0], r.skipped[MAX_RECOVERY_ROUNDS - 1]], [MAX_RECOVERY_ROUNDS, false, [3, 1, 3], [22, 1, 22]]);
    assert.ok(Array.isArray(analyzeSource(source)));
  });

  it('offers no fix that edits a line of a skipped statement, and keeps the finding', () => {
    // DD002's fix inserts the move as the loop body's first statement: here, the broken one.
    const source = `${PRELUDE}loss_fn = torch.nn.MSELoss()\nfor xb, yb in train_loader:\n    out = model(xb\n    loss = loss_fn(model(xb), yb)\n`;
    const { findings, skipped, fixes } = analyzed(source);
    assert.deepStrictEqual(skipped, [[5, 5]]);
    const dd002 = fixes.find((f) => f.code === 'DD002');
    assert.ok(dd002, findings.join(' '));
    assert.deepStrictEqual(dd002.fixes.filter((fix) => fix.edits.some((e) => e.range.start.line <= 4 && e.range.end.line >= 4)), []);
  });

  it('recovers each notebook cell on its own and says which cell was skipped', () => {
    const skipped: SkippedStatement[] = [];
    const cells = [PRELUDE, 'y = model(\n', 't = torch.zeros(4)\nmodel(t)\n'];
    const found = analyzeNotebook(cells, { onSyntaxError: (s) => skipped.push(s) });
    assert.deepStrictEqual(found.map((f) => `${f.cellIndex}:${f.finding.code}@${f.finding.range.start.line + 1}`), ['2:DD001@2']);
    assert.deepStrictEqual(skipped.map((s) => [s.cellIndex, s.range.start.line]), [[1, 0]]);
  });

  it('keeps the editor\'s findings outside the broken statement while it is typed, and its own tree as it was', () => {
    const files = new FileAnalyzer();
    try {
      const uri = 'file:///w/train.py';
      const text = `${PRELUDE}a = torch.zeros(4)\nmodel(a)\nb = torch.zeros(4)\nmodel(b)\n`;
      const codes = (t: string) => files.analyze(uri, t, {}).map((f) => `${f.code}@${f.range.start.line + 1}`);
      assert.deepStrictEqual(codes(text), ['DD001@4', 'DD001@6']);
      // Typing `y = torch.ones(` between the two halves.
      files.recordChanges(uri, [{ range: range(4, 0, 4, 0), text: 'y = torch.ones(\n' }]);
      const typed = text.replace('b = torch', 'y = torch.ones(\nb = torch');
      assert.deepStrictEqual(codes(typed), ['DD001@4', 'DD001@7']);
      files.recordChanges(uri, [{ range: range(4, 15, 4, 15), text: '2)' }]);
      assert.deepStrictEqual(codes(typed.replace('ones(', 'ones(2)')), ['DD001@4', 'DD001@7']);
      assert.deepStrictEqual(files.parses, { full: 1, incremental: 2, spliced: 0 });
    } finally {
      files.dispose();
    }
  });
});
