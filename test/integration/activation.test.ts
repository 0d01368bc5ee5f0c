// The extension is installed from its .vsix and activates on a Python file.
import * as assert from 'assert';
import * as vscode from 'vscode';
import { CLEAN_FILE } from './fixtureFindings';
import { closeAllEditors, EXTENSION_ID, openCopy, ourDiagnostics, waitForDiagnostics } from './helpers';

describe('activation', () => {
  after(closeAllEditors);

  it('is installed under its published id', () => {
    const extension = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(extension, `${EXTENSION_ID} is not installed; installed: ${vscode.extensions.all.map((e) => e.id).filter((id) => !id.startsWith('vscode.')).join(', ')}`);
    assert.strictEqual(extension.packageJSON.name, 'device-doctor');
  });

  it('activates when a Python file opens', async () => {
    const extension = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(extension);
    const editor = await openCopy(CLEAN_FILE);
    assert.strictEqual(editor.document.languageId, 'python');
    const deadline = Date.now() + 20_000;
    while (!extension.isActive && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.ok(extension.isActive, 'the extension did not activate within 20s of opening a Python file');
  });

  it('keeps a correct training script free of diagnostics', async () => {
    const clean = await openCopy(CLEAN_FILE);
    // Silence is only meaningful once the server has answered for some file: wait for a
    // file with a known finding first, then look at the clean one.
    const faulty = await openCopy('eval_numpy.py');
    await waitForDiagnostics(faulty.document.uri, 'any diagnostic', (ds) => ds.length > 0);
    await new Promise((r) => setTimeout(r, 1000));
    assert.deepStrictEqual(ourDiagnostics(clean.document.uri).map((d) => d.message), []);
  });
});
