// Each core rule's preferred quick fix, applied the way the lightbulb applies it, edits the
// file as ANALYZER.md specifies and makes its diagnostic disappear; "Ignore on this line"
// adds a `# noqa` comment that silences it.
import * as assert from 'assert';
import * as vscode from 'vscode';
import { lineIndex, NUMPY_ON_ACCELERATOR, SINGLE_RULE_FIXTURES } from './fixtureFindings';
import {
  actionsFor, applyAction, closeAllEditors, codeOf, findExpected, openCopy, trimmedLines, waitForCodeGone, waitForCodes,
  waitForDiagnostics,
} from './helpers';

describe('quick fixes', () => {
  afterEach(closeAllEditors);

  for (const fixture of SINGLE_RULE_FIXTURES) {
    const expected = fixture.findings[0];
    it(`${expected.code}: the preferred fix writes "${expected.fixedLine}" and the diagnostic goes`, async () => {
      const { document } = await openCopy(fixture.file);
      const diagnostics = await waitForCodes(document.uri, [expected.code]);
      const diagnostic = findExpected(document, diagnostics, expected);
      const fixes = (await actionsFor(document.uri, diagnostic)).filter((a) => !a.title.startsWith('Ignore '));
      const preferred = fixes.filter((a) => a.isPreferred);
      assert.strictEqual(preferred.length, 1, `exactly one preferred fix expected, got: ${fixes.map((a) => `${a.title}${a.isPreferred ? ' (preferred)' : ''}`).join('; ')}`);
      assert.ok(preferred[0].kind?.contains(vscode.CodeActionKind.QuickFix), 'a fix is a quickfix');
      await applyAction(preferred[0]);
      const lines = trimmedLines(document);
      assert.ok(lines.includes(expected.fixedLine), `after "${preferred[0].title}" the file should contain "${expected.fixedLine}":\n${document.getText()}`);
      if (expected.replacedLine) assert.ok(!lines.includes(expected.replacedLine), `"${expected.replacedLine}" should be gone`);
      await waitForCodeGone(document.uri, expected.code);
    });
  }

  it('DD002: the batches are moved as the loop body\'s first statement', async () => {
    const fixture = SINGLE_RULE_FIXTURES.find((f) => f.findings[0].code === 'DD002');
    assert.ok(fixture);
    const { document } = await openCopy(fixture.file);
    const [diagnostic] = await waitForCodes(document.uri, ['DD002']);
    const preferred = (await actionsFor(document.uri, diagnostic)).find((a) => a.isPreferred);
    assert.ok(preferred, 'DD002 needs a preferred fix');
    await applyAction(preferred);
    const loop = lineIndex(document.getText(), 'for features, labels in train_loader:');
    assert.strictEqual(document.lineAt(loop + 1).text, `    ${fixture.findings[0].fixedLine}`);
  });

  it('"Ignore DD003 on this line" appends "# noqa: DD003" and silences it', async () => {
    const expected = NUMPY_ON_ACCELERATOR.findings[0];
    const { document } = await openCopy(NUMPY_ON_ACCELERATOR.file);
    const diagnostic = findExpected(document, await waitForCodes(document.uri, ['DD003']), expected);
    const ignore = (await actionsFor(document.uri, diagnostic)).find((a) => a.title === 'Ignore DD003 on this line');
    assert.ok(ignore, 'an "Ignore DD003 on this line" action');
    assert.ok(!ignore.isPreferred, 'silencing is never the preferred fix');
    await applyAction(ignore);
    const line = document.lineAt(diagnostic.range.start.line).text;
    assert.strictEqual(line, `${expected.at[0].line}  # noqa: DD003`);
    await waitForCodeGone(document.uri, 'DD003');
  });

  it('after an edit above it, the fix still lands on the faulty line', async () => {
    const expected = NUMPY_ON_ACCELERATOR.findings[0];
    const { document } = await openCopy(NUMPY_ON_ACCELERATOR.file);
    const before = findExpected(document, await waitForCodes(document.uri, ['DD003']), expected);
    const edit = new vscode.WorkspaceEdit();
    edit.insert(document.uri, new vscode.Position(0, 0), '# evaluation script\n# run after training\n');
    assert.ok(await vscode.workspace.applyEdit(edit));
    const moved = await waitForDiagnostics(document.uri, 'DD003 two lines lower',
      (ds) => ds.some((d) => codeOf(d) === 'DD003' && d.range.start.line === before.range.start.line + 2));
    const diagnostic = findExpected(document, moved, expected);
    const preferred = (await actionsFor(document.uri, diagnostic)).find((a) => a.isPreferred);
    assert.ok(preferred);
    await applyAction(preferred);
    assert.strictEqual(document.lineAt(diagnostic.range.start.line).text, expected.fixedLine);
    await waitForCodeGone(document.uri, 'DD003');
  });
});
