// Device Doctor: Insert Device Selection — puts the get_device() helper (core/python/deviceHelper)
// at the cursor of the active Python editor, as one undoable edit. This is how the user's own code
// picks its device; Select Device only steers what Device Doctor itself probes and benchmarks.
// A file that already has `device = …` is asked about first (deviceChoicePrompt.ts).
import * as vscode from 'vscode';
import { deviceHelperText, findDeviceChoice, importsTorch, type DeviceChoice } from '../../core/python/deviceHelper';
import { deviceChoicePrompt, GO_TO, INSERT_ANYWAY, REPLACE } from './deviceChoicePrompt';

export async function insertDeviceSelection(log: vscode.LogOutputChannel): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.languageId !== 'python') {
    void vscode.window.showInformationMessage('Device Doctor: open a Python file (or a notebook cell) and put the cursor where get_device() should go.');
    return;
  }
  const existing = findDeviceChoice(editor.document.getText());
  if (existing) {
    const prompt = deviceChoicePrompt(existing);
    const answer = await vscode.window.showInformationMessage(`Device Doctor: ${prompt.message}`, ...prompt.actions);
    if (answer === GO_TO) return goTo(editor, existing);
    if (answer === REPLACE) return apply(editor, log, replaceChoice(editor.document, existing));
    if (answer !== INSERT_ANYWAY) return;
  }
  return apply(editor, log, atCursor(editor));
}

interface Insertion {
  range: vscode.Range;
  text: string;
}

function eolOf(document: vscode.TextDocument): '\n' | '\r\n' {
  return document.eol === vscode.EndOfLine.CRLF ? '\r\n' : '\n';
}

function linesAbove(document: vscode.TextDocument, line: number): string[] {
  return Array.from({ length: line }, (_, i) => document.lineAt(i).text);
}

function atCursor(editor: vscode.TextEditor): Insertion {
  const { document, selection } = editor;
  const line = document.lineAt(selection.start.line).text;
  const text = deviceHelperText({
    eol: eolOf(document),
    hasTorchImport: importsTorch(document.getText()),
    textBeforeOnLine: line.slice(0, selection.start.character),
    textAfterOnLine: selection.isSingleLine ? line.slice(selection.end.character) : document.lineAt(selection.end.line).text.slice(selection.end.character),
    linesAbove: linesAbove(document, selection.start.line),
  });
  return { range: selection, text };
}

/** The whole line of the old choice, its line break included, becomes the helper ending in `device = get_device()`. */
function replaceChoice(document: vscode.TextDocument, choice: DeviceChoice): Insertion {
  const line = document.lineAt(choice.line);
  const text = deviceHelperText({
    eol: eolOf(document), hasTorchImport: importsTorch(document.getText()), textBeforeOnLine: '', textAfterOnLine: '', linesAbove: linesAbove(document, choice.line),
  });
  return { range: line.rangeIncludingLineBreak, text: line.rangeIncludingLineBreak.isSingleLine ? text.replace(/\r?\n$/, '') : text };
}

function goTo(editor: vscode.TextEditor, choice: DeviceChoice): void {
  const range = editor.document.lineAt(choice.line).range;
  editor.selection = new vscode.Selection(range.start, range.end);
  editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
}

async function apply(editor: vscode.TextEditor, log: vscode.LogOutputChannel, insertion: Insertion): Promise<void> {
  const { document } = editor;
  const done = await editor.edit((edit) => edit.replace(insertion.range, insertion.text));
  if (!done) {
    log.warn(`Insert Device Selection: the edit of ${document.uri.toString(true)} was not applied (the document changed meanwhile).`);
    void vscode.window.showWarningMessage('Device Doctor could not insert get_device(): the document changed meanwhile. Try again.');
  }
}
