// The server never offers a fix that would leave a syntax error: not as a quick fix, not in
// fix-all (core/python/fixCheck.ts judges; codeActions.ts and fixAll.ts filter).
import * as assert from 'assert';
import { CodeActionKind } from 'vscode-languageserver';
import type { CodeAction, Diagnostic, TextEdit } from 'vscode-languageserver';
import type { Finding } from '../../src/core/analysis';
import { initPythonParser } from '../../src/core/analysis';
import { applyTextEdits } from '../../src/core/python/edits';
import { buildCodeActions, FIX_ALL_KIND, type CodeActionInput } from '../../src/server/codeActions';
import { fixAllEdits } from '../../src/server/fixAll';
import { locateCellFindings, locateFileFindings, type LocatedFinding } from '../../src/server/locatedFinding';
import { at, numpyOnGpu, range } from './serverFindings';

const FILE = 'file:///work/train.py';
const SOURCE = 't_gpu = torch.tensor([1.0, 2.0]).to("cuda")\nt_gpu.numpy()\nu = t_gpu.numpy()\n';

/** DD003 on line 2 whose preferred fix inserts `.cpu(`, leaving a syntax error, with a good alternative. */
function brokenFix(line = 2): Finding {
  return {
    code: 'DD003',
    message: "'t_gpu' is on an accelerator",
    range: range(line, 4, line, 17),
    severity: 'error',
    related: [],
    fixes: [
      { title: 'Insert .cpu( (broken)', preferred: true, edits: [{ range: at(line, 9), newText: '.cpu(' }] },
      { title: 'Insert .cpu() before .numpy()', preferred: false, edits: [{ range: at(line, 9), newText: '.cpu()' }] },
    ],
  };
}

function input(findings: LocatedFinding[], diagnostics: Diagnostic[], only?: string[], text = SOURCE, uri = FILE): CodeActionInput {
  const lines = text.split('\n');
  return { uri, findings, context: { diagnostics, only }, lineText: (line) => lines[line] };
}

function applied(action: CodeAction, text = SOURCE, uri = FILE): string {
  return applyTextEdits(text, (action.edit?.changes?.[uri] ?? []) as TextEdit[]);
}

describe('code actions: no fix that leaves a syntax error', () => {
  before(() => initPythonParser());

  const located = locateFileFindings(FILE, [numpyOnGpu(), brokenFix()], { severity: {} });

  it('drops such a quick fix and offers the others, one of them preferred', () => {
    const actions = buildCodeActions(input(located, [located[1].diagnostic], [CodeActionKind.QuickFix]));
    const fixes = actions.filter((a) => !a.title.startsWith('Ignore'));
    assert.deepStrictEqual(fixes.map((a) => a.title), ['Insert .cpu() before .numpy()']);
    assert.strictEqual(fixes[0].isPreferred, true);
    assert.strictEqual(applied(fixes[0]).split('\n')[2], 'u = t_gpu.cpu().numpy()');
  });

  it('leaves it out of fix-all, which still applies the good fixes', () => {
    const [fixAll] = buildCodeActions(input(located, [], [FIX_ALL_KIND]));
    assert.strictEqual(applied(fixAll), 't_gpu = torch.tensor([1.0, 2.0]).to("cuda")\nt_gpu.cpu().numpy()\nu = t_gpu.numpy()\n');
  });

  it('judges fixes together in fix-all: a fix that would break the sum is left for later', () => {
    // Alone, `f'a'` and `'{a'` parse; together `f'{a'` does not.
    const text = "s = 'a'\n";
    const edit = (title: string, character: number, newText: string): Finding => ({
      code: 'DD004', message: title, range: range(0, character, 0, character + 1), severity: 'warning', related: [],
      fixes: [{ title, preferred: true, edits: [{ range: at(0, character), newText }] }],
    });
    const both = locateFileFindings(FILE, [edit('f-string', 4, 'f'), edit('brace', 5, '{')], { severity: {} });
    const [fixAll] = buildCodeActions(input(both, [], [FIX_ALL_KIND], text));
    assert.strictEqual(applied(fixAll, text), "s = f'a'\n");
    const quickFixes = buildCodeActions(input(both, both.map((f) => f.diagnostic), [CodeActionKind.QuickFix], text)).filter((a) => !a.title.startsWith('Ignore'));
    assert.deepStrictEqual(quickFixes.map((a) => a.title), ['f-string', 'brace'], 'each alone is still offered');
    assert.strictEqual(fixAllEdits(both).length, 2, 'without a judge, fix-all takes both as before');
  });

  it('checks an edit into another notebook cell against that cell, when the server gives its text', () => {
    const cells = ['vscode-notebook-cell:/w/nb.ipynb#a', 'vscode-notebook-cell:/w/nb.ipynb#b'];
    const cellText = ['x = torch.randn(4, 10)\n', 'model(x)\n'];
    const intoOtherCell: Finding = {
      ...numpyOnGpu(0), range: range(0, 6, 0, 7),
      fixes: [{ title: 'broken edit in cell a', preferred: true, edits: [{ range: at(0, 21), newText: ', device=(' , cellIndex: 0 }] }],
    };
    const found = locateCellFindings(cells, [{ cellIndex: 1, finding: intoOtherCell }], { severity: {} });
    const request = (textOf?: CodeActionInput['textOf']) =>
      buildCodeActions({ ...input(found, [found[0].diagnostic], [CodeActionKind.QuickFix], cellText[1], cells[1]), textOf }).filter((a) => !a.title.startsWith('Ignore'));
    assert.strictEqual(request().length, 1, 'without the other cell\'s text it cannot judge, and offers the fix');
    assert.strictEqual(request((uri) => cellText[cells.indexOf(uri)]).length, 0);
  });
});
