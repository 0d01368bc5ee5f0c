// The one status bar item: renders the device snapshot through renderStatusBar (pure) and
// applies text, colour and tooltip. Clicking it opens the device report.
import * as vscode from 'vscode';
import { COMMANDS } from '../shared/commandIds';
import type { DeviceController } from './deviceController';
import { renderStatusBar, TOOLTIP_COMMANDS } from './statusBarView';

export const STATUS_BAR_ID = 'deviceDoctor.status';
export const STATUS_BAR_NAME = 'Device Doctor';

export class DeviceStatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly subscription: vscode.Disposable;

  constructor(private readonly devices: DeviceController) {
    this.item = vscode.window.createStatusBarItem(STATUS_BAR_ID, vscode.StatusBarAlignment.Right, 100);
    this.item.name = STATUS_BAR_NAME;
    this.item.command = { command: COMMANDS.showDeviceReport, title: 'Show Device Report' };
    this.subscription = devices.onDidChange(() => this.render());
    this.render();
  }

  render(): void {
    const settings = this.devices.settings();
    if (!settings.statusBarEnabled) {
      this.item.hide();
      return;
    }
    const view = renderStatusBar(this.devices.snapshot, { memoryWarningPercent: settings.memoryWarningPercent });
    this.item.text = view.text;
    this.item.command = { command: view.command, title: view.command === COMMANDS.chooseInterpreter ? 'Choose Interpreter' : 'Show Device Report' };
    this.item.accessibilityInformation = { label: view.accessibilityLabel, role: 'button' };
    const tooltip = new vscode.MarkdownString(view.tooltip, true);
    // Command links run only for our own commands; names and messages in it are escaped.
    tooltip.isTrusted = { enabledCommands: [...TOOLTIP_COMMANDS] };
    this.item.tooltip = tooltip;
    this.item.backgroundColor = view.background ? new vscode.ThemeColor(`statusBarItem.${view.background}Background`) : undefined;
    this.item.show();
  }

  dispose(): void {
    this.subscription.dispose();
    this.item.dispose();
  }
}
