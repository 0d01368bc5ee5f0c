// Diagnostics arrive for each core rule with the right code, place, severity and docs link,
// and nothing else is reported on those files.
import * as assert from 'assert';
import * as vscode from 'vscode';
import { MISMATCH, SEVERAL, SINGLE_RULE_FIXTURES, FixtureFile } from './fixtureFindings';
import { closeAllEditors, codeOf, findExpected, openCopy, waitForCodeGone, waitForCodes } from './helpers';

async function diagnosticsOf(fixture: FixtureFile): Promise<{ document: vscode.TextDocument; diagnostics: vscode.Diagnostic[] }> {
  const editor = await openCopy(fixture.file);
  const diagnostics = await waitForCodes(editor.document.uri, fixture.findings.map((f) => f.code));
  return { document: editor.document, diagnostics };
}

describe('diagnostics', () => {
  afterEach(closeAllEditors);

  for (const fixture of [...SINGLE_RULE_FIXTURES, SEVERAL]) {
    const codes = fixture.findings.map((f) => f.code);
    it(`${fixture.file}: ${codes.join(', ')} at the faulty expression and nothing else`, async () => {
      const { document, diagnostics } = await diagnosticsOf(fixture);
      for (const expected of fixture.findings) findExpected(document, diagnostics, expected);
      assert.deepStrictEqual([...new Set(diagnostics.map(codeOf))].sort(), [...new Set(codes)].sort(), 'unexpected extra codes');
    });
  }

  it('DD001 points to where the model was moved', async () => {
    const { document, diagnostics } = await diagnosticsOf(MISMATCH);
    const diagnostic = findExpected(document, diagnostics, MISMATCH.findings[0]);
    const related = diagnostic.relatedInformation ?? [];
    assert.ok(related.length > 0, 'DD001 should carry relatedInformation');
    assert.ok(related.some((r) => r.location.uri.toString() === document.uri.toString()),
      'the related location should be in the same file');
  });

  it('updates as the user types: deleting the faulty line clears its diagnostic', async () => {
    const fixture = SINGLE_RULE_FIXTURES.find((f) => f.findings[0].code === 'DD004');
    assert.ok(fixture);
    const { document, diagnostics } = await diagnosticsOf(fixture);
    const diagnostic = diagnostics.find((d) => codeOf(d) === 'DD004');
    assert.ok(diagnostic);
    const edit = new vscode.WorkspaceEdit();
    edit.delete(document.uri, document.lineAt(diagnostic.range.start.line).rangeIncludingLineBreak);
    assert.ok(await vscode.workspace.applyEdit(edit));
    await waitForCodeGone(document.uri, 'DD004');
  });
});
