// Device Doctor: Insert Device Selection — puts the get_device() helper (core/python/deviceHelper)
// at the cursor of the active Python editor, as one undoable edit. This is how the user's own code
// picks its device; Select Device only steers what Device Doctor itself probes and benchmarks.
import * as vscode from 'vscode';
import { deviceHelperText, importsTorch } from '../../core/python/deviceHelper';

export async function insertDeviceSelection(log: vscode.LogOutputChannel): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.languageId !== 'python') {
    void vscode.window.showInformationMessage('Device Doctor: open a Python file (or a notebook cell) and put the cursor where get_device() should go.');
    return;
  }
  const { document, selection } = editor;
  const line = document.lineAt(selection.start.line).text;
  const text = deviceHelperText({
    eol: document.eol === vscode.EndOfLine.CRLF ? '\r\n' : '\n',
    hasTorchImport: importsTorch(document.getText()),
    textBeforeOnLine: line.slice(0, selection.start.character),
    textAfterOnLine: selection.isSingleLine ? line.slice(selection.end.character) : document.lineAt(selection.end.line).text.slice(selection.end.character),
  });
  const done = await editor.edit((edit) => edit.replace(selection, text));
  if (!done) {
    log.warn(`Insert Device Selection: the edit of ${document.uri.toString(true)} was not applied (the document changed meanwhile).`);
    void vscode.window.showWarningMessage('Device Doctor could not insert get_device(): the document changed meanwhile. Try again.');
  }
}
