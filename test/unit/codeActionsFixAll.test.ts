import * as assert from 'assert';
import { editsCollide, fixAllEdits } from '../../src/server/fixAll';
import type { LocatedEdit, LocatedFinding } from '../../src/server/locatedFinding';
import { locateFileFindings } from '../../src/server/locatedFinding';
import { applyTextEdits } from '../../src/core/python/edits';
import type { Finding } from '../../src/core/analysis';
import { at, discardedTo, numpyOnGpu, predNumpyPair, range } from './serverFindings';

const FILE = 'file:///w/a.py';

function edit(line: number, start: number, end: number, newText: string, uri = FILE): LocatedEdit {
  return { uri, range: range(line, start, line, end), newText };
}

function located(findings: Finding[]): LocatedFinding[] {
  return locateFileFindings(FILE, findings, { severity: {} });
}

describe('code actions: choosing fix-all edits', () => {
  it('detects overlapping and same-start edits, but not touching or other-document ones', () => {
    assert.ok(editsCollide(edit(0, 2, 6, 'a'), edit(0, 4, 8, 'b')));
    assert.ok(editsCollide(edit(0, 4, 4, 'a'), edit(0, 4, 4, 'b')), 'two insertions at one point');
    assert.ok(editsCollide(edit(0, 2, 8, 'a'), edit(0, 4, 4, 'b')), 'an insertion inside a replacement');
    assert.ok(!editsCollide(edit(0, 2, 4, 'a'), edit(0, 4, 6, 'b')), 'touching ranges');
    assert.ok(!editsCollide(edit(0, 2, 6, 'a'), edit(0, 2, 6, 'b', 'file:///w/b.py')));
  });

  it('takes only preferred fixes', () => {
    const finding = numpyOnGpu();
    finding.fixes.unshift({ title: 'Wrap in .detach()', preferred: false, edits: [{ range: at(1, 0), newText: 'X' }] });
    assert.deepStrictEqual(fixAllEdits(located([finding])).map((e) => e.newText), ['.cpu()']);
  });

  it('applies a fix shared by two findings once', () => {
    const edits = fixAllEdits(located(predNumpyPair()));
    assert.strictEqual(edits.length, 1);
    assert.strictEqual(applyTextEdits('\n\n\n\n\npred.numpy()\n', edits), '\n\n\n\n\npred.detach().cpu().numpy()\n');
  });

  it('skips a fix that collides with one earlier in the document, leaving it for the next run', () => {
    const clash: Finding = { ...discardedTo(1), fixes: [{ title: 'x', preferred: true, edits: [{ range: range(1, 3, 1, 8), newText: 'zz' }] }] };
    const edits = fixAllEdits(located([numpyOnGpu(), clash]));
    assert.deepStrictEqual(edits.map((e) => e.newText), ['zz'], 'the .cpu() insertion at 1:5 falls inside 1:3-1:8');
    assert.strictEqual(applyTextEdits('\nt_gpu.numpy()\n', edits), '\nt_gzzmpy()\n');
  });

  it('keeps all edits of multi-edit fixes together and in document order', () => {
    const twoEdits: Finding = {
      ...discardedTo(0),
      fixes: [{ title: 'two', preferred: true, edits: [{ range: at(4, 0), newText: 'B' }, { range: at(2, 0), newText: 'A' }] }],
    };
    const edits = fixAllEdits(located([numpyOnGpu(), twoEdits]));
    assert.deepStrictEqual(edits.map((e) => e.newText).sort(), ['.cpu()', 'A', 'B']);
    const fixed = applyTextEdits('a\nt_gpu.numpy()\nc\nd\ne\n', edits);
    assert.strictEqual(fixed, 'a\nt_gpu.cpu().numpy()\nAc\nd\nBe\n');
  });
});
