// source.fixAll.deviceDoctor repairs every fixable finding at once: on request, and on save
// through editor.codeActionsOnSave as users configure it.
import * as assert from 'assert';
import * as fs from 'fs';
import * as vscode from 'vscode';
import { SEVERAL } from './fixtureFindings';
import { applyAction, closeAllEditors, codeActionsAt, openCopy, trimmedLines, waitForCodes, waitForDiagnostics } from './helpers';

const FIX_ALL_KIND = vscode.CodeActionKind.SourceFixAll.append('deviceDoctor');
const SEVERAL_CODES = SEVERAL.findings.map((f) => f.code);

function assertAllFixed(text: string, where: string): void {
  const lines = text.split(/\r?\n/).map((l) => l.trim());
  for (const finding of SEVERAL.findings) {
    assert.ok(lines.includes(finding.fixedLine), `${where} should contain "${finding.fixedLine}":\n${text}`);
    if (finding.replacedLine) assert.ok(!lines.includes(finding.replacedLine), `${where} still has "${finding.replacedLine}"`);
  }
}

describe('fix all', () => {
  afterEach(closeAllEditors);

  it('offers one source.fixAll.deviceDoctor action that fixes every finding', async () => {
    const { document } = await openCopy(SEVERAL.file);
    await waitForCodes(document.uri, SEVERAL_CODES);
    const whole = new vscode.Range(0, 0, document.lineCount, 0);
    const actions = (await codeActionsAt(document.uri, whole, FIX_ALL_KIND.value))
      .filter((a) => a.kind && FIX_ALL_KIND.contains(a.kind));
    assert.strictEqual(actions.length, 1, `one fix-all action expected, got ${actions.map((a) => a.title).join('; ')}`);
    await applyAction(actions[0]);
    assertAllFixed(document.getText(), 'the document');
    await waitForDiagnostics(document.uri, 'no diagnostics after fix-all', (ds) => ds.length === 0);
  });

  describe('on save', () => {
    const target = vscode.ConfigurationTarget.Workspace;
    before(async () => {
      await vscode.workspace.getConfiguration('editor').update('codeActionsOnSave', { [FIX_ALL_KIND.value]: 'explicit' }, target);
    });
    after(async () => {
      await vscode.workspace.getConfiguration('editor').update('codeActionsOnSave', undefined, target);
    });

    it('with editor.codeActionsOnSave, saving writes the fixed file', async () => {
      const editor = await openCopy(SEVERAL.file);
      const { document } = editor;
      await waitForCodes(document.uri, SEVERAL_CODES);
      // Saving an unchanged file does nothing: make the kind of edit that precedes a save.
      await editor.edit((b) => b.insert(new vscode.Position(document.lineCount, 0), '# checked\n'));
      assert.ok(document.isDirty);
      await vscode.commands.executeCommand('workbench.action.files.save');
      const deadline = Date.now() + 15_000;
      while ((document.isDirty || !trimmedLines(document).includes(SEVERAL.findings[0].fixedLine)) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
      }
      assertAllFixed(document.getText(), 'the document after save');
      assert.ok(!document.isDirty, 'the fixes are part of the save, not left unsaved');
      assertAllFixed(fs.readFileSync(document.uri.fsPath, 'utf8'), 'the file on disk');
      await waitForDiagnostics(document.uri, 'no diagnostics after save', (ds) => ds.length === 0);
    });
  });
});
