// "Dry-Run on a Virtual GPU" above `if __name__ == "__main__":` in a Python file, and above the
// first code cell of a notebook. Offered only in a trusted workspace: the run executes the file.
import * as vscode from 'vscode';
import { mainGuardLines } from '../../core/virtualRun/mainGuard';
import { COMMANDS } from '../shared/commandIds';

const TITLE = '$(debug-alt) Dry-Run on a Virtual GPU';

export class MainGuardLens implements vscode.CodeLensProvider {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;

  /** Trust was granted: the lenses appear without reopening the file. */
  refresh(): void {
    this.changed.fire();
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    if (!vscode.workspace.isTrusted) return [];
    if (document.uri.scheme === 'vscode-notebook-cell') return this.notebookLens(document);
    if (document.uri.scheme !== 'file') return [];
    return mainGuardLines(document.getText()).map((line) => new vscode.CodeLens(new vscode.Range(line, 0, line, 0), {
      title: TITLE, command: COMMANDS.dryRunVirtualGpu, arguments: [document.uri],
    }));
  }

  private notebookLens(cellDocument: vscode.TextDocument): vscode.CodeLens[] {
    const notebook = vscode.workspace.notebookDocuments.find((n) => n.getCells().some((c) => c.document === cellDocument));
    const first = notebook?.getCells().find((c) => c.kind === vscode.NotebookCellKind.Code);
    if (!notebook || first?.document !== cellDocument || notebook.uri.scheme !== 'file') return [];
    return [new vscode.CodeLens(new vscode.Range(0, 0, 0, 0), { title: `${TITLE} (all cells)`, command: COMMANDS.dryRunVirtualGpu, arguments: [notebook.uri] })];
  }

  dispose(): void {
    this.changed.dispose();
  }
}
