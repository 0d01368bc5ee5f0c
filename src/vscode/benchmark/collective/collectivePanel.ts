// The Collective Bandwidth panel: one webview, created on demand and reused, showing the last
// collective benchmark of this window (collectiveHtml.ts renders it). It reuses the matmul
// panel's page script and style (media/benchmark.js swaps the body; the chart classes are
// benchmark.css's); it has no buttons, so no message from the page is acted on.
import * as vscode from 'vscode';
import { createMediaPanel, pageResources } from '../../shared/webviewPanel';
import { webviewPage } from '../../shared/html';
import { COLLECTIVE_TITLE, renderCollectiveBody, type CollectivePanelState, type CollectivePanelStatus } from './collectiveHtml';

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
      void this.panel.webview.postMessage({ type: 'body', html: renderCollectiveBody(this.state), runId: null });
      return;
    }
    const panel = createMediaPanel(this.extension, COLLECTIVE_VIEW_TYPE, COLLECTIVE_TITLE, { viewColumn: vscode.ViewColumn.Active, preserveFocus: true });
    this.panel = panel;
    panel.onDidDispose(() => (this.panel = undefined));
    // A hidden webview is discarded and rebuilt from its html: keep that current.
    panel.onDidChangeViewState(({ webviewPanel }) => { if (webviewPanel.visible) this.render(); });
    this.render();
  }

  private render(): void {
    const panel = this.panel;
    if (!panel) return;
    panel.webview.html = webviewPage({
      title: COLLECTIVE_TITLE, resources: pageResources(this.extension, panel, 'benchmark.js', 'benchmark.css'), actionsHtml: '', actionsId: 'actions', mainId: 'results', bodyHtml: renderCollectiveBody(this.state),
    });
  }

  dispose(): void {
    this.panel?.dispose();
  }
}
