// One definition of lines for the whole project (LSP's: \n, \r\n and a lone \r each end a
// line). Tree-sitter ends a row only at \n: before the parser was given lone \r as \n, a
// file with lone-CR line breaks parsed as one broken line, got no findings or findings
// whose ranges lay outside the document, and --fix broke it.
import * as assert from 'assert';
import { analyzeSource, initPythonParser, type Finding } from '../../src/core/analysis';
import { ParsedDocument } from '../../src/core/python/document';
import { applyTextEdits } from '../../src/core/python/edits';
import { lineStarts, newEndOf, positionAt } from '../../src/core/python/lines';
import { firstSyntaxError } from './helpers/fixes';
import { loadAllRuleFixtures } from './helpers/fixtures';

/** The opt-in rules (performance) too: every firing fixture must fire. */
const EVERY_RULE = { select: ['ALL'] };

const withBreaks = (source: string, eol: string) => source.replace(/\r\n|\r|\n/g, eol);

/** Findings with fix texts' line breaks normalized, so files that differ only in line breaks compare equal. */
function shape(findings: Finding[]): string {
  return JSON.stringify(findings.map((f) => [f.code, f.range, f.related.map((r) => r.range),
    f.fixes.map((x) => x.edits.map((e) => [e.range, withBreaks(e.newText, '\n')]))]));
}

function assertInside(source: string, findings: Finding[], label: string): void {
  const starts = lineStarts(source);
  const lineLength = (line: number) => {
    const end = line + 1 < starts.length ? starts[line + 1] : source.length;
    return source.slice(starts[line], end).replace(/\r?\n$|\r$/, '').length;
  };
  for (const f of findings) {
    for (const range of [f.range, ...f.related.map((r) => r.range), ...f.fixes.flatMap((x) => x.edits.map((e) => e.range))]) {
      for (const p of [range.start, range.end]) {
        assert.ok(p.line < starts.length && p.character <= lineLength(p.line), `${label}: ${f.code} position ${p.line}:${p.character} is outside the document`);
      }
    }
  }
}

describe('line endings: \\n, \\r\\n and a lone \\r are the same lines everywhere', function () {
  // Compute-bound over the whole rule corpus (thousands of analyses or reads): on a busy
  // 2-core CI machine that takes longer than mocha's default 20 s, and nothing here waits.
  this.timeout(240_000);
  before(() => initPythonParser());

  const fixtures = loadAllRuleFixtures().filter((f) => f.verdict === 'fire');

  it('gives every firing fixture the same findings, ranges and fixes in all three line-break styles', () => {
    assert.ok(fixtures.length > 50, `only ${fixtures.length} fixtures`);
    for (const fixture of fixtures) {
      const lf = withBreaks(fixture.source, '\n');
      const expected = shape(analyzeSource(lf, EVERY_RULE));
      assert.notStrictEqual(expected, '[]', `${fixture.relPath} has no findings`);
      for (const eol of ['\r', '\r\n']) {
        const source = withBreaks(lf, eol);
        const findings = analyzeSource(source, EVERY_RULE);
        assert.strictEqual(shape(findings), expected, `${fixture.relPath} with ${JSON.stringify(eol)}`);
        assertInside(source, findings, `${fixture.relPath} with ${JSON.stringify(eol)}`);
      }
    }
  });

  it('leaves a lone-CR file parseable after each preferred fix', () => {
    for (const fixture of fixtures) {
      const source = withBreaks(fixture.source, '\r');
      for (const finding of analyzeSource(source, EVERY_RULE)) {
        const fix = finding.fixes.find((x) => x.preferred);
        if (!fix) continue;
        const fixed = applyTextEdits(source, fix.edits);
        assert.strictEqual(firstSyntaxError(fixed), undefined, `${fixture.relPath}: ${fix.title}`);
      }
    }
  });

  it('re-parses a lone-CR document incrementally to the same tree as a fresh parse', () => {
    const doc = new ParsedDocument('import torch\rx = torch.zeros(3)\ry = x.numpy()\r');
    try {
      doc.update([{ range: { start: { line: 1, character: 4 }, end: { line: 1, character: 15 } }, text: 'torch.ones' }]);
      doc.update([{ range: { start: { line: 3, character: 0 }, end: { line: 3, character: 0 } }, text: 'z = y\r' }]);
      const fresh = new ParsedDocument(doc.text);
      assert.strictEqual(doc.text, 'import torch\rx = torch.ones(3)\ry = x.numpy()\rz = y\r');
      assert.strictEqual(doc.tree.rootNode.toString(), fresh.tree.rootNode.toString());
      assert.strictEqual(doc.tree.rootNode.hasError, false);
      assert.deepStrictEqual(doc.tree.rootNode.namedChildren.map((n) => n.startPosition.row), [0, 1, 2, 3]);
      fresh.dispose();
    } finally {
      doc.dispose();
    }
  });

  it('finds where a change ends in the new text from the lines it touches, as the whole new text says, for every break style', () => {
    // Every insertion of short texts made of breaks and letters into short texts of the same, at every offset:
    // `\r` and `\n` on either side of the change point pair up or not.
    const pieces = ['', 'a', '\n', '\r', '\r\n', 'b\r', '\nc', 'x\r\ny'];
    let checked = 0;
    for (const before of pieces) for (const after of pieces) for (const inserted of pieces) {
      const text = `${before}q${after}`;
      for (let at = 0; at <= text.length; at++) {
        const next = text.slice(0, at) + inserted + text.slice(at);
        const starts = lineStarts(text);
        const startLine = positionAt(starts, at).line;
        const end = at + inserted.length;
        assert.deepStrictEqual(newEndOf(next, starts, startLine, end), positionAt(lineStarts(next), end), JSON.stringify({ text, at, inserted }));
        checked++;
      }
    }
    assert.ok(checked > 1000, `checked ${checked}`);
  });

  it('clamps a column past the end of a line to the line, before its break', () => {
    assert.strictEqual(applyTextEdits('ab\r\ncd', [{ range: { start: { line: 0, character: 99 }, end: { line: 0, character: 99 } }, newText: '!' }]), 'ab!\r\ncd');
    assert.strictEqual(applyTextEdits('ab\rcd', [{ range: { start: { line: 0, character: 99 }, end: { line: 0, character: 99 } }, newText: '!' }]), 'ab!\rcd');
  });
});
