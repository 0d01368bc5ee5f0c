// Cross-file analysis in the editor: train.py's DD001 exists because model.py defines an
// nn.Module and config.py says the device is CUDA. Editing config.py in the editor, without
// saving, updates train.py's diagnostics: open documents override the files on disk. A
// change on disk of a file that is not open reaches the server through the file watcher.
// Facts also flow back: tagger.py's DD015 exists because run_tagger.py, an open document
// that imports it, moves the model to the GPU; editing run_tagger.py updates tagger.py.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { closeAllEditors, codeOf, waitForCodeGone, waitForDiagnostics, workspaceRoot } from './helpers';

const PROJECT_FILES = ['train.py', 'model.py', 'config.py'];
let copies = 0;

/** A fresh copy of the fixture project `crossfile/`, so edits never reach another test. */
function copyProject(): string {
  copies += 1;
  const target = path.join(workspaceRoot(), 'scratch', `crossfile_${copies}`);
  fs.mkdirSync(target, { recursive: true });
  for (const name of PROJECT_FILES) fs.copyFileSync(path.join(workspaceRoot(), 'crossfile', name), path.join(target, name));
  return target;
}

/** The certain DD001 (not the hedged "may be" one train.py gets alone) on `x` in `model(x)`. */
function isCrossFileFinding(document: vscode.TextDocument, diagnostic: vscode.Diagnostic): boolean {
  const line = document.getText().split(/\r?\n/).indexOf('model(x)');
  return codeOf(diagnostic) === 'DD001' && diagnostic.range.start.line === line && diagnostic.range.start.character === 'model('.length
    && !/ may be /.test(diagnostic.message);
}

async function replaceInDocument(document: vscode.TextDocument, from: string, to: string): Promise<void> {
  const offset = document.getText().indexOf(from);
  assert.ok(offset >= 0, `"${from}" is not in ${path.basename(document.uri.fsPath)}`);
  const edit = new vscode.WorkspaceEdit();
  edit.replace(document.uri, new vscode.Range(document.positionAt(offset), document.positionAt(offset + from.length)), to);
  assert.ok(await vscode.workspace.applyEdit(edit));
}

describe('cross-file analysis', () => {
  afterEach(closeAllEditors);

  it('train.py\'s DD001 follows an unsaved edit of the config.py it imports', async () => {
    const folder = copyProject();
    const train = await vscode.workspace.openTextDocument(vscode.Uri.file(path.join(folder, 'train.py')));
    await vscode.window.showTextDocument(train);
    await waitForDiagnostics(train.uri, 'DD001 on x in model(x), through model.py and config.py', (ds) => ds.some((d) => isCrossFileFinding(train, d)));

    const config = await vscode.workspace.openTextDocument(vscode.Uri.file(path.join(folder, 'config.py')));
    await vscode.window.showTextDocument(config, { viewColumn: vscode.ViewColumn.Beside });
    await replaceInDocument(config, 'torch.device("cuda")', 'torch.device("cpu")');
    assert.ok(config.isDirty, 'the edit stays unsaved: the open document, not the disk, is what train.py imports');
    const cleared = await waitForCodeGone(train.uri, 'DD001');
    assert.deepStrictEqual(cleared.map(codeOf), []);

    await replaceInDocument(config, 'torch.device("cpu")', 'torch.device("cuda")');
    await waitForDiagnostics(train.uri, 'DD001 back after config.py is CUDA again', (ds) => ds.some((d) => isCrossFileFinding(train, d)));
  });

  it('train.py\'s DD001 follows a change on disk of the config.py it imports (not open: the file watcher)', async () => {
    const folder = copyProject();
    const train = await vscode.workspace.openTextDocument(vscode.Uri.file(path.join(folder, 'train.py')));
    await vscode.window.showTextDocument(train);
    await waitForDiagnostics(train.uri, 'DD001 on x in model(x), through model.py and config.py', (ds) => ds.some((d) => isCrossFileFinding(train, d)));
    const config = path.join(folder, 'config.py');
    fs.writeFileSync(config, fs.readFileSync(config, 'utf8').replace('torch.device("cuda")', 'torch.device("cpu")'));
    await waitForCodeGone(train.uri, 'DD001');
  });

  it('tagger.py\'s DD015 follows run_tagger.py, the open file that imports it and moves the model', async () => {
    copies += 1;
    const folder = path.join(workspaceRoot(), 'scratch', `importers_${copies}`);
    fs.mkdirSync(folder, { recursive: true });
    for (const name of ['tagger.py', 'run_tagger.py']) fs.copyFileSync(path.join(workspaceRoot(), 'importers', name), path.join(folder, name));
    const tagger = await vscode.workspace.openTextDocument(vscode.Uri.file(path.join(folder, 'tagger.py')));
    await vscode.window.showTextDocument(tagger);
    const runner = await vscode.workspace.openTextDocument(vscode.Uri.file(path.join(folder, 'run_tagger.py')));
    await vscode.window.showTextDocument(runner, { viewColumn: vscode.ViewColumn.Beside });
    const startLine = tagger.getText().split(/\r?\n/).findIndex((l) => l.includes('start = torch.zeros('));
    await waitForDiagnostics(tagger.uri, 'DD015 on the GRU state, once run_tagger.py is open', (ds) =>
      ds.some((d) => codeOf(d) === 'DD015' && d.range.start.line === startLine));

    await replaceInDocument(runner, 'Tagger().to(device)', 'Tagger()');
    const cleared = await waitForCodeGone(tagger.uri, 'DD015');
    assert.deepStrictEqual(cleared.map(codeOf), []);
  });
});
