// Dry-Run on a Virtual GPU: runs the active Python file or notebook with the workspace's
// interpreter on the CPU while PyTorch believes CUDA is there, then shows each device mistake
// where it happened, with the runtime stack, in a diagnostic collection of its own. It runs
// the user's code, so only on request and only in a trusted workspace (package.json's
// enablement hides it in Restricted Mode; the check here holds for any other way in).
import * as path from 'path';
import * as vscode from 'vscode';
import { planDiagnostics, runSummary } from '../../core/virtualRun/diagnostics';
import { runOnVirtualGpu, type RunTarget } from '../../node/virtualRun';
import type { DeviceController } from '../devices/deviceController';
import { MainGuardLens } from './mainGuardLens';
import { toDiagnostics } from './runDiagnostics';

/** A dry run is a check, not the training: it stops after this many optimizer steps, or this long. */
const DRY_RUN_STEPS = 20;
const DRY_RUN_SECONDS = 300;

export class VirtualRunFeature implements vscode.Disposable {
  private readonly diagnostics = vscode.languages.createDiagnosticCollection('device-doctor-run');
  private readonly lens = new MainGuardLens();
  private output: vscode.OutputChannel | undefined;
  private running = false;
  private readonly disposables: vscode.Disposable[];

  constructor(private readonly log: vscode.LogOutputChannel, private readonly devices: DeviceController) {
    this.disposables = [
      this.diagnostics,
      this.lens,
      vscode.languages.registerCodeLensProvider({ language: 'python' }, this.lens),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.lens.refresh()),
      // A run's lines drift once the file is edited: its diagnostics go until the next run.
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.contentChanges.length > 0 && this.diagnostics.has(e.document.uri)) this.diagnostics.delete(e.document.uri);
      }),
    ];
  }

  /** The command: `target` from a CodeLens, else the active notebook or Python file. */
  async run(target?: unknown): Promise<void> {
    if (!vscode.workspace.isTrusted) {
      void vscode.window.showWarningMessage('Dry-Run on a Virtual GPU runs your code, so it is only offered in a trusted workspace.');
      return;
    }
    if (this.running) {
      void vscode.window.showInformationMessage('A virtual GPU run is already in progress.');
      return;
    }
    const file = await this.targetFile(target);
    if (!file) {
      void vscode.window.showWarningMessage('Open a Python file or a notebook to dry-run it on a virtual GPU.');
      return;
    }
    this.running = true;
    try {
      await this.runFile(file);
    } finally {
      this.running = false;
    }
  }

  private async targetFile(target: unknown): Promise<vscode.Uri | undefined> {
    const uri = target instanceof vscode.Uri ? target : vscode.window.activeNotebookEditor?.notebook.uri ?? vscode.window.activeTextEditor?.document.uri;
    if (!uri || uri.scheme !== 'file') return undefined;
    const isNotebook = uri.fsPath.toLowerCase().endsWith('.ipynb');
    if (!isNotebook && !uri.fsPath.toLowerCase().endsWith('.py')) return undefined;
    // The run reads the file from disk: what is on screen is what runs.
    const dirty = isNotebook ? vscode.workspace.notebookDocuments.find((n) => n.uri.fsPath === uri.fsPath && n.isDirty)
      : vscode.workspace.textDocuments.find((d) => d.uri.fsPath === uri.fsPath && d.isDirty);
    if (dirty) await dirty.save();
    return uri;
  }

  private async runFile(uri: vscode.Uri): Promise<void> {
    const { pythonPath } = await this.devices.benchTarget();
    if (!pythonPath) {
      void vscode.window.showErrorMessage('No Python interpreter to run with: choose one with "Device Doctor: Choose Interpreter".');
      return;
    }
    const output = (this.output ??= vscode.window.createOutputChannel('Device Doctor: Virtual GPU Run'));
    output.clear();
    output.appendLine(`$ ${pythonPath} ${path.basename(uri.fsPath)} (virtual CUDA GPU, at most ${DRY_RUN_STEPS} optimizer steps)`);
    const target: RunTarget = uri.fsPath.toLowerCase().endsWith('.ipynb') ? { notebook: uri.fsPath } : { script: uri.fsPath };
    const folder = vscode.workspace.getWorkspaceFolder(uri)?.uri.fsPath ?? path.dirname(uri.fsPath);
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Device Doctor: dry-running ${path.basename(uri.fsPath)} on a virtual GPU…`, cancellable: true },
      (_progress, token) => {
        const abort = new AbortController();
        token.onCancellationRequested(() => abort.abort());
        return runOnVirtualGpu({
          interpreter: pythonPath, target, args: [], virtual: 'cuda', devices: 1, steps: DRY_RUN_STEPS, timeSeconds: DRY_RUN_SECONDS,
          cwd: folder, onOutput: (text) => output.append(text),
        }, abort.signal);
      },
    );
    this.diagnostics.clear();
    if ('error' in result) {
      this.log.warn(`Virtual GPU run of ${uri.fsPath}: ${result.error}`);
      if (!/cancelled/.test(result.error)) void vscode.window.showErrorMessage(`Dry-run on a virtual GPU: ${result.error}`);
      return;
    }
    for (const { uri: shown, diagnostics } of toDiagnostics(planDiagnostics(result.report)).values()) this.diagnostics.set(shown, diagnostics);
    const summary = runSummary(result.report);
    this.log.info(`${summary} (${uri.fsPath})`);
    const choice = await vscode.window.showInformationMessage(summary, 'Show Output');
    if (choice === 'Show Output') output.show(true);
  }

  dispose(): void {
    for (const disposable of this.disposables) disposable.dispose();
    this.output?.dispose();
  }
}
