// A notebook's code cells are analysed in order as one program: the diagnostic lands on the
// later cell that uses the tensor, and its fix edits the earlier cell that created it.
import * as assert from 'assert';
import * as vscode from 'vscode';
import { NOTEBOOK } from './fixtureFindings';
import { applyAction, actionsFor, closeAllEditors, copyFixture, findExpected, ourDiagnostics, waitForCodeGone, waitForCodes } from './helpers';

async function openNotebookCopy(): Promise<vscode.NotebookDocument> {
  const notebook = await vscode.workspace.openNotebookDocument(copyFixture(NOTEBOOK.file));
  await vscode.window.showNotebookDocument(notebook);
  return notebook;
}

function cellContaining(notebook: vscode.NotebookDocument, text: string): vscode.NotebookCell {
  const cell = notebook.getCells().find((c) => c.kind === vscode.NotebookCellKind.Code && c.document.getText().includes(text));
  assert.ok(cell, `fixture problem: no code cell contains "${text}"`);
  return cell;
}

describe('notebooks', () => {
  afterEach(closeAllEditors);

  it('reports the mistake on the later cell, and only there', async () => {
    const notebook = await openNotebookCopy();
    const faulty = cellContaining(notebook, NOTEBOOK.faultyCell);
    assert.strictEqual(faulty.document.languageId, 'python');
    const diagnostics = await waitForCodes(faulty.document.uri, [NOTEBOOK.finding.code]);
    findExpected(faulty.document, diagnostics, NOTEBOOK.finding);
    for (const cell of notebook.getCells().filter((c) => c !== faulty)) {
      assert.deepStrictEqual(ourDiagnostics(cell.document.uri).map((d) => d.message), [], `cell ${cell.index} should be clean`);
    }
  });

  it('the preferred fix edits the cell that created the tensor', async () => {
    const notebook = await openNotebookCopy();
    const faulty = cellContaining(notebook, NOTEBOOK.faultyCell);
    const creating = cellContaining(notebook, NOTEBOOK.creatingCell);
    const [diagnostic] = await waitForCodes(faulty.document.uri, [NOTEBOOK.finding.code]);
    const preferred = (await actionsFor(faulty.document.uri, diagnostic)).find((a) => a.isPreferred);
    assert.ok(preferred, 'a preferred fix for the notebook finding');
    await applyAction(preferred);
    const lines = creating.document.getText().split('\n').map((l) => l.trim());
    assert.ok(lines.includes(NOTEBOOK.fixedCreatingLine), `the creating cell should now read "${NOTEBOOK.fixedCreatingLine}":\n${creating.document.getText()}`);
    await waitForCodeGone(faulty.document.uri, NOTEBOOK.finding.code);
  });
});
