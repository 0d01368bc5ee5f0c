// The fix checkers must catch bad fixes, or fixes.test.ts would pass whatever the analyzer does.
import { strict as assert } from 'assert';
import { initPythonParser } from '../../src/core/analysis';
import type { Finding, Fix, TextEdit } from '../../src/core/analysis';
import { appliedFixProblems, fixListProblems } from './helpers/fixChecks';
import { firstSyntaxError, formattingProblems, mapLine } from './helpers/fixes';

const SOURCE = `import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
t = torch.randn(3).to(device)
print(t.numpy())  # keep me
`;

function edit(line: number, from: number, to: number, newText: string, toLine = line): TextEdit {
  return { range: { start: { line, character: from }, end: { line: toLine, character: to } }, newText };
}

function finding(fixes: Fix[]): Finding {
  return {
    code: 'DD003', message: '`t` is on an accelerator', severity: 'error', related: [], fixes,
    range: { start: { line: 3, character: 6 }, end: { line: 3, character: 15 } },
  };
}

describe('fix checkers (test helpers)', () => {
  before(async () => {
    await initPythonParser();
  });

  it('finds syntax errors and missing nodes', () => {
    assert.equal(firstSyntaxError(SOURCE), undefined);
    assert.match(firstSyntaxError('x = foo(1, \n')!, /ERROR|MISSING/);
    assert.match(firstSyntaxError('def f(:\n    pass\n')!, /ERROR|MISSING/);
  });

  it('flags an edit that rewrites several lines, an untouched line that changed, and bare LF in a CRLF file', () => {
    const wide = [edit(0, 0, 0, 'import torch\n', 3)];
    assert.ok(formattingProblems(SOURCE, wide, 'import torch\n').some((p) => p.includes('several lines')));
    const crlf = SOURCE.replace(/\n/g, '\r\n');
    const insert = [edit(3, 0, 0, 't = t.cpu()\n')];
    assert.ok(formattingProblems(crlf, insert, crlf.replace('print', 't = t.cpu()\nprint')).some((p) => p.includes('bare LF')));
    const sneaky = [edit(3, 7, 7, '.cpu()')];
    const result = SOURCE.replace('t.numpy', 't.cpu().numpy').replace('import torch', 'import  torch');
    assert.ok(formattingProblems(SOURCE, sneaky, result).some((p) => p.includes('untouched line 1')));
  });

  it('maps a line through inserted and removed line breaks', () => {
    assert.equal(mapLine(SOURCE, [edit(1, 0, 0, '# a\n# b\n')], 3), 5);
    assert.equal(mapLine(SOURCE, [edit(0, 12, 0, '', 1)], 3), 2);
    assert.equal(mapLine(SOURCE, [edit(3, 7, 7, '.cpu()')], 3), 3);
  });

  it('rejects a fix list without exactly one preferred fix', () => {
    const fix = (preferred: boolean): Fix => ({ title: 'x', preferred, edits: [edit(3, 7, 7, '.cpu()')] });
    assert.deepEqual(fixListProblems(finding([fix(true)]), SOURCE), []);
    assert.equal(fixListProblems(finding([fix(true), fix(true)]), SOURCE).length, 1);
    assert.equal(fixListProblems(finding([]), SOURCE).length, 1);
  });

  it('rejects fixes that break the syntax, leave the finding, or add a finding', () => {
    const breaks: Fix = { title: 'break', preferred: true, edits: [edit(3, 15, 16, '')] };
    assert.match(appliedFixProblems(finding([breaks]), breaks, SOURCE, [])[0], /does not parse/);
    const real = finding([]);
    const noop: Fix = { title: 'comment', preferred: true, edits: [edit(0, 12, 12, '  # hi')] };
    assert.ok(appliedFixProblems(real, noop, SOURCE, [real]).some((p) => p.includes('still reported')));
    const adds: Fix = { title: 'grad', preferred: true, edits: [edit(2, 17, 17, ', requires_grad=True')] };
    const problems = appliedFixProblems(real, adds, SOURCE, [real]);
    assert.ok(problems.some((p) => p.includes('introduces a new DD010')), problems.join('\n'));
  });
});
