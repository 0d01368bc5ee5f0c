// The device report view: one webview panel, created on demand and reused. The HTML comes from
// deviceReportHtml (pure, escaped); a new report swaps the body in place and live memory only
// updates the meters. The page's buttons post a message; only the known actions are honoured.
import * as vscode from 'vscode';
import type { DeviceController } from './deviceController';
import type { DeviceSnapshot } from './deviceSnapshot';
import { historyUpdates, memoryUpdates, renderReportBody, renderReportPage, REPORT_ACTIONS, REPORT_TITLE } from './deviceReportHtml';
import type { HistoryUpdate, ReportAction, ReportOptions } from './deviceReportHtml';
import { adoptMediaPanel, createMediaPanel, pageResources } from '../shared/webviewPanel';

export const REPORT_VIEW_TYPE = 'deviceDoctor.deviceReport';
const HISTORY_REFRESH_MS = 1_000;

/** What the page's buttons do, apart from copying (which the panel does itself). */
export interface ReportActionHandlers {
  detect(): void;
  selectDevice(): void;
  chooseInterpreter(): void;
  showLog(): void;
}

export class DeviceReportPanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  /** Panel-lifetime disposables: dropped when the user closes the view. */
  private panelDisposables: vscode.Disposable[] = [];
  /** The body as last sent, without live samples: only a real change re-sends it. */
  private lastBodyKey = '';
  private wasVisible = false;
  /** The sparklines as last sent: put back at once when the body is replaced. */
  private lastHistory: HistoryUpdate[] = [];
  private historyInFlight = false;
  private historyAskedAt = 0;
  /**
   * The page's script said 'ready' since the html was last set. Until then a posted body may
   * arrive before the script listens and be lost, so none is sent and lastBodyKey stays the
   * html's: 'ready' then sends whatever changed meanwhile.
   */
  private pageReady = false;
  private readonly subscription: vscode.Disposable;

  constructor(
    private readonly extension: vscode.ExtensionContext,
    private readonly devices: DeviceController,
    private readonly log: vscode.LogOutputChannel,
    private readonly handlers: ReportActionHandlers,
  ) {
    this.subscription = devices.onDidChange(() => this.update());
  }

  show(): void {
    if (this.panel) {
      this.panel.reveal();
      return;
    }
    this.attach(createMediaPanel(this.extension, REPORT_VIEW_TYPE, REPORT_TITLE, { viewColumn: vscode.ViewColumn.Active }));
  }

  /** The report tab VS Code restored after a reload: it shows the current report again. */
  adopt(panel: vscode.WebviewPanel): void {
    if (this.panel) {
      // Only one report view: a second restored tab would never be updated.
      panel.dispose();
      return;
    }
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
    this.subscription.dispose();
    this.panel?.dispose();
  }

  /** A hidden webview is discarded and comes back from its html, so that must be current then. */
  private visibilityChanged(visible: boolean): void {
    // Focus moving in or out also fires this; only coming back from hidden needs the page again.
    if (visible && !this.wasVisible) this.renderPage();
    this.wasVisible = visible;
  }

  private renderPage(): void {
    const panel = this.panel;
    if (!panel) return;
    const options = this.options();
    this.lastBodyKey = bodyKey(this.devices.snapshot, options);
    this.pageReady = false;
    this.wasVisible = panel.visible;
    panel.webview.html = renderReportPage(this.devices.snapshot, options, pageResources(this.extension, panel, 'deviceReport.js', 'deviceReport.css'));
  }

  private update(): void {
    const panel = this.panel;
    if (!panel?.visible || !this.pageReady) return;
    const options = this.options();
    // Memory samples arrive every few seconds; rebuilding the page for them would lose the
    // reader's scroll position and selection, so they only update the meters.
    const key = bodyKey(this.devices.snapshot, options);
    if (key !== this.lastBodyKey) {
      this.lastBodyKey = key;
      void panel.webview.postMessage({ type: 'body', html: renderReportBody(this.devices.snapshot, options) });
      if (this.lastHistory.length) void panel.webview.postMessage({ type: 'history', updates: this.lastHistory });
    }
    void panel.webview.postMessage({ type: 'memory', updates: memoryUpdates(this.devices.snapshot, options) });
    void this.updateHistory();
  }

  /**
   * One history request at a time, and at most one a second: samples of several devices may
   * arrive many times a second, and a sparkline of 10 minutes does not change visibly faster.
   */
  private async updateHistory(): Promise<void> {
    if (this.historyInFlight || Date.now() - this.historyAskedAt < HISTORY_REFRESH_MS) return;
    this.historyInFlight = true;
    this.historyAskedAt = Date.now();
    try {
      const history = await this.devices.history();
      if (!history || !this.panel?.visible) return;
      this.lastHistory = historyUpdates(this.devices.snapshot, history);
      void this.panel.webview.postMessage({ type: 'history', updates: this.lastHistory });
    } catch (error) {
      this.log.debug(`Device history not available: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      this.historyInFlight = false;
    }
  }

  private async received(message: unknown): Promise<void> {
    const type = typeof message === 'object' && message !== null ? (message as { type?: unknown }).type : undefined;
    if (type === 'ready') {
      this.pageReady = true;
      return this.update();
    }
    if (typeof type !== 'string' || !Object.hasOwn(REPORT_ACTIONS, type)) {
      this.log.warn(`The device report view sent an unknown message: ${JSON.stringify(type)}`);
      return;
    }
    const action = type as ReportAction;
    if (action === 'copyJson') await this.copyJson();
    else this.handlers[action]();
  }

  private async copyJson(): Promise<void> {
    const report = this.devices.snapshot.report;
    if (!report) {
      void this.panel?.webview.postMessage({ type: 'notice', text: 'No report to copy yet.' });
      return;
    }
    await vscode.env.clipboard.writeText(`${JSON.stringify(report, null, 2)}\n`);
    void this.panel?.webview.postMessage({ type: 'notice', text: 'Report copied to the clipboard as JSON.' });
  }

  private options(): ReportOptions {
    return { memoryWarningPercent: this.devices.settings().memoryWarningPercent };
  }

  private panelClosed(): void {
    this.panel = undefined;
    this.lastBodyKey = '';
    this.lastHistory = [];
    this.historyAskedAt = 0;
    for (const disposable of this.panelDisposables.splice(0)) disposable.dispose();
  }
}

function bodyKey(snapshot: DeviceSnapshot, options: ReportOptions): string {
  return renderReportBody({ ...snapshot, samples: {} }, options);
}
