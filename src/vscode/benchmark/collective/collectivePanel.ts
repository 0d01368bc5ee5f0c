// The Collective Bandwidth panel: one webview, created on demand and reused, showing the last
// collective benchmark of this window (collectiveHtml.ts renders it). It reuses the matmul
// panel's page script and style (media/benchmark.js swaps the body; the chart classes are
// benchmark.css's). Its buttons run a benchmark (the command's picker) and export the shown
// report as JSON; no other message from the page is acted on.
import * as vscode from 'vscode';
import { createMediaPanel, pageResources } from '../../shared/webviewPanel';
import { webviewPage } from '../../shared/html';
import { COMMANDS } from '../../shared/commandIds';
import { exportedMessage, OPEN_EXPORT } from '../benchExport';
import {
  COLLECTIVE_ACTIONS, COLLECTIVE_TITLE, collectiveExport, renderCollectiveActions, renderCollectiveBody, type CollectivePanelState, type CollectivePanelStatus,
} from './collectiveHtml';

export const COLLECTIVE_VIEW_TYPE = 'deviceDoctor.collectiveBandwidth';

export class CollectivePanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private state: CollectivePanelState = { status: { kind: 'idle' }, shown: null, devices: null };

  constructor(private readonly extension: vscode.ExtensionContext) {}

  setStatus(status: CollectivePanelStatus, reveal: boolean): void {
    this.state = { ...this.state, status };
    if (reveal || this.panel) this.show();
  }

  showReport(shown: NonNullable<CollectivePanelState['shown']>, devices: CollectivePanelState['devices']): void {
    this.state = { status: { kind: 'idle' }, shown, devices };
    this.show();
  }

  private show(): void {
    if (this.panel) {
      this.panel.reveal(undefined, true);
      void this.panel.webview.postMessage({ type: 'body', html: renderCollectiveBody(this.state), runId: null, actions: renderCollectiveActions(this.state) });
      return;
    }
    const panel = createMediaPanel(this.extension, COLLECTIVE_VIEW_TYPE, COLLECTIVE_TITLE, { viewColumn: vscode.ViewColumn.Active, preserveFocus: true });
    this.panel = panel;
    panel.onDidDispose(() => (this.panel = undefined));
    panel.webview.onDidReceiveMessage((message: unknown) => void this.received(message));
    // A hidden webview is discarded and rebuilt from its html: keep that current.
    panel.onDidChangeViewState(({ webviewPanel }) => { if (webviewPanel.visible) this.render(); });
    this.render();
  }

  private render(): void {
    const panel = this.panel;
    if (!panel) return;
    panel.webview.html = webviewPage({
      title: COLLECTIVE_TITLE, resources: pageResources(this.extension, panel, 'benchmark.js', 'benchmark.css'), actionsHtml: renderCollectiveActions(this.state), actionsId: 'actions', mainId: 'results', bodyHtml: renderCollectiveBody(this.state),
    });
  }

  private async received(message: unknown): Promise<void> {
    const type = typeof message === 'object' && message !== null ? (message as { type?: unknown }).type : undefined;
    if (type === 'ready' || typeof type !== 'string' || !Object.hasOwn(COLLECTIVE_ACTIONS, type)) return;
    if (type === 'runBenchmark') {
      await vscode.commands.executeCommand(COMMANDS.runBenchmark);
      return;
    }
    await this.exportJson();
  }

  private async exportJson(): Promise<void> {
    const shown = this.state.shown;
    if (!shown) return;
    const file = collectiveExport(shown);
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    const target = await vscode.window.showSaveDialog({
      ...(folder ? { defaultUri: vscode.Uri.joinPath(folder, file.fileName) } : {}), filters: { JSON: ['json'] }, saveLabel: 'Export', title: 'Export the collective benchmark (JSON)',
    });
    if (!target) return;
    try {
      await vscode.workspace.fs.writeFile(target, new TextEncoder().encode(file.text));
      const where = target.scheme === 'file' ? target.fsPath : target.toString(true);
      const choice = await vscode.window.showInformationMessage(exportedMessage(where), OPEN_EXPORT);
      if (choice === OPEN_EXPORT) await vscode.commands.executeCommand('vscode.open', target);
    } catch (error) {
      void vscode.window.showErrorMessage(`Device Doctor could not save the collective benchmark: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  dispose(): void {
    this.panel?.dispose();
  }
}
