// The Matmul Benchmark results panel: one webview, created on demand and reused. The HTML comes
// from benchmarkHtml (pure, escaped, charts as SVG); a change swaps the body in place. The page's
// buttons post a message; only the known actions are honoured: run again, export (JSON, CSV,
// Markdown through a save dialog), copy Markdown, and show an earlier run from the history.
import * as os from 'os';
import * as vscode from 'vscode';
import { exportedMessage, exportFile, OPEN_EXPORT } from '../benchExport';
import type { ExportFormat } from '../benchExport';
import { runToRestore } from '../benchHistory';
import type { BenchHistory, BenchHistoryEntry } from '../benchHistory';
import { BENCHMARK_ACTIONS, BENCHMARK_TITLE, renderActions, renderBenchmarkBody, renderBenchmarkPage } from './benchmarkHtml';
import type { BenchmarkAction, BenchPanelState, BenchPanelStatus } from './benchmarkHtml';
import { adoptMediaPanel, createMediaPanel, pageResources } from '../../shared/webviewPanel';

export const BENCHMARK_VIEW_TYPE = 'deviceDoctor.benchmark';
/** workspaceState: the id of the run the panel shows, written when it changes (runToRestore reads it after a reload). */
const SHOWN_RUN_KEY = 'deviceDoctor.benchmarkPanel.shownRun';

const EXPORTS: Partial<Record<BenchmarkAction, ExportFormat>> = { exportJson: 'json', exportCsv: 'csv', exportMarkdown: 'markdown' };

export interface BenchmarkPanelHandlers {
  runBenchmark(): void;
}

export class BenchmarkPanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  /** Panel-lifetime disposables: dropped when the user closes the view. */
  private panelDisposables: vscode.Disposable[] = [];
  private status: BenchPanelStatus = { kind: 'idle' };
  private shownId: string | null = null;
  /** The run a restored page kept that the history lacks (runToRestore): shown and exported like the others. */
  private restored: BenchHistoryEntry | null = null;
  private wasVisible = false;

  constructor(
    private readonly extension: vscode.ExtensionContext,
    private readonly history: BenchHistory,
    private readonly log: vscode.LogOutputChannel,
    private readonly handlers: BenchmarkPanelHandlers,
  ) {}

  get isOpen(): boolean {
    return this.panel !== undefined;
  }

  /** Shows a run (already stored in the history) with its status line: none for a finished run, what was kept for a cancelled one. */
  showRun(entry: BenchHistoryEntry, status: BenchPanelStatus = { kind: 'idle' }): void {
    this.status = status;
    this.setShown(entry.id);
    // A run ends when it ends, maybe seconds after the user went back to typing or opened a
    // quick pick: the results come forward without taking the keyboard from them.
    this.show(true);
  }

  /** Running / cancelled / failed. `reveal` opens the panel if it is closed. */
  setStatus(status: BenchPanelStatus, reveal: boolean): void {
    this.status = status;
    if (reveal) this.show(true);
    else this.update();
  }

  show(preserveFocus = false): void {
    if (this.panel) {
      this.panel.reveal(undefined, preserveFocus);
      this.update();
      return;
    }
    this.attach(createMediaPanel(this.extension, BENCHMARK_VIEW_TYPE, BENCHMARK_TITLE, { viewColumn: vscode.ViewColumn.Active, preserveFocus }));
  }

  /** Show Benchmark Results: the newest run of the history (or the empty panel), without running anything. */
  showLatest(): void {
    const newest = this.history.entries()[0];
    this.status = { kind: 'idle' };
    this.setShown(newest?.id ?? null);
    this.show();
  }

  /**
   * The benchmark tab VS Code restored after a reload, with the state its page saved: the run it
   * showed (issue 28 item 9: an older run came back), else the newest.
   */
  adopt(panel: vscode.WebviewPanel, saved: unknown): void {
    if (this.panel) {
      panel.dispose();
      return;
    }
    const { shown, outsideHistory } = runToRestore(this.history.entries(), saved, this.extension.workspaceState.get<unknown>(SHOWN_RUN_KEY));
    this.setShown(shown?.id ?? null);
    this.restored = outsideHistory ? shown : null;
    if (outsideHistory) this.log.info(`Benchmark panel restored the run it showed (${shown?.description}), which the history no longer has.`);
    this.attach(adoptMediaPanel(this.extension, panel));
  }

  private attach(panel: vscode.WebviewPanel): void {
    this.panel = panel;
    this.panelDisposables.push(
      panel.onDidDispose(() => this.panelClosed()),
      panel.webview.onDidReceiveMessage((message: unknown) => void this.received(message)),
      panel.onDidChangeViewState(({ webviewPanel }) => this.visibilityChanged(webviewPanel.visible)),
    );
    this.renderPage();
  }

  dispose(): void {
    this.panel?.dispose();
  }

  state(): BenchPanelState {
    const history = this.history.entries();
    return { status: this.status, shown: this.shownEntry(history) ?? null, history };
  }

  private visibilityChanged(visible: boolean): void {
    // A hidden webview is discarded and comes back from its html, so that must be current then.
    if (visible && !this.wasVisible) this.renderPage();
    this.wasVisible = visible;
  }

  private renderPage(): void {
    const panel = this.panel;
    if (!panel) return;
    this.wasVisible = panel.visible;
    panel.webview.html = renderBenchmarkPage(this.state(), pageResources(this.extension, panel, 'benchmark.js', 'benchmark.css'));
  }

  private update(): void {
    const state = this.state();
    // The shown run goes with it: the page keeps it (vscode.setState) for a window reload.
    void this.panel?.webview.postMessage({ type: 'body', html: renderBenchmarkBody(state), actions: renderActions(state), runId: state.shown?.id ?? null, entry: state.shown });
  }

  private async received(message: unknown): Promise<void> {
    const data = typeof message === 'object' && message !== null ? (message as { type?: unknown; runId?: unknown }) : {};
    if (data.type === 'ready') return this.update();
    if (data.type === 'showRun' && typeof data.runId === 'string') {
      if (this.history.find(data.runId)) this.setShown(data.runId);
      return this.update();
    }
    if (typeof data.type !== 'string' || !Object.hasOwn(BENCHMARK_ACTIONS, data.type)) {
      this.log.warn(`The benchmark view sent an unknown message: ${JSON.stringify(data.type)}`);
      return;
    }
    const action = data.type as BenchmarkAction;
    if (action === 'runBenchmark') return this.handlers.runBenchmark();
    if (action === 'copyMarkdown') return this.copyMarkdown();
    const format = EXPORTS[action];
    if (format) await this.exportTo(format);
  }

  /** The run shown, recorded at once in the workspace state: the page's own state may lag a reload. */
  private setShown(id: string | null): void {
    this.shownId = id;
    void Promise.resolve(this.extension.workspaceState.update(SHOWN_RUN_KEY, id)).catch((error: unknown) =>
      this.log.warn(`Could not record the benchmark run shown: ${error instanceof Error ? error.message : String(error)}`));
  }

  private shownEntry(history: readonly BenchHistoryEntry[] = this.history.entries()): BenchHistoryEntry | undefined {
    if (this.shownId === null) return undefined;
    return history.find((e) => e.id === this.shownId) ?? (this.restored?.id === this.shownId ? this.restored : undefined);
  }

  private async exportTo(format: ExportFormat): Promise<void> {
    const entry = this.shownEntry();
    if (!entry) return this.notice('No run to export yet.');
    const file = exportFile(entry.run, format, entry.time);
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri ?? vscode.Uri.file(os.homedir());
    const target = await vscode.window.showSaveDialog({
      defaultUri: vscode.Uri.joinPath(folder, file.fileName),
      filters: file.filters,
      saveLabel: 'Export',
      title: `Export the benchmark (${Object.keys(file.filters)[0]})`,
    });
    if (!target) return;
    try {
      await vscode.workspace.fs.writeFile(target, new TextEncoder().encode(file.text));
      this.log.info(`Benchmark exported to ${target.toString(true)}.`);
      const where = target.scheme === 'file' ? target.fsPath : target.toString(true);
      this.notice(`Saved ${where}.`);
      // A confirmation with the way to the file, beside the panel's own notice (issue 28 item 10).
      void vscode.window.showInformationMessage(exportedMessage(where), OPEN_EXPORT).then((choice) => {
        if (choice === OPEN_EXPORT) void vscode.commands.executeCommand('vscode.open', target);
      });
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      this.log.error(`Could not export the benchmark: ${text}`);
      void vscode.window.showErrorMessage(`Device Doctor could not save the benchmark: ${text}`);
    }
  }

  private async copyMarkdown(): Promise<void> {
    const entry = this.shownEntry();
    if (!entry) return this.notice('No run to copy yet.');
    await vscode.env.clipboard.writeText(exportFile(entry.run, 'markdown', entry.time).text);
    this.notice('Copied the results to the clipboard as Markdown.');
  }

  private notice(text: string): void {
    void this.panel?.webview.postMessage({ type: 'notice', text });
  }

  private panelClosed(): void {
    this.panel = undefined;
    for (const disposable of this.panelDisposables.splice(0)) disposable.dispose();
  }
}
