// The one object that owns the extension's parts: its log, the language server, the compute
// worker with the devices it reports, the status bar item, the device report view and benchmarks.
import * as vscode from 'vscode';
import { BenchmarkFeature } from './benchmark/benchmarkFeature';
import { COMMANDS, registerCommands } from './commands';
import { DeviceController } from './devices/deviceController';
import { nativeTfFolder } from './benchmark/nativeTf/nativeTfFolder';
import { createLog } from './shared/log';
import { DeviceReportPanel } from './devices/deviceReportPanel';
import { ServerController } from './analysis/serverController';
import { DeviceStatusBar } from './devices/statusBar';
import { registerPanelSerializers } from './panelSerializers';
import { previewBundledRuleDocs } from './ruleDocs/ruleDocPreview';
import { VirtualRunFeature } from './virtualRun/virtualRunFeature';

export class DeviceDoctor {
  readonly log: vscode.LogOutputChannel;
  readonly server: ServerController;
  readonly devices: DeviceController;
  readonly reportPanel: DeviceReportPanel;
  readonly benchmarks: BenchmarkFeature;
  readonly virtualRun: VirtualRunFeature;

  constructor(readonly extension: vscode.ExtensionContext) {
    this.log = createLog();
    this.server = new ServerController(extension, this.log);
    this.devices = new DeviceController(extension, this.log, nativeTfFolder(extension));
    this.reportPanel = new DeviceReportPanel(extension, this.devices, this.log, {
      detect: () => void this.devices.detect(undefined, true),
      selectDevice: () => void vscode.commands.executeCommand(COMMANDS.selectDevice),
      chooseInterpreter: () => void vscode.commands.executeCommand(COMMANDS.chooseInterpreter),
      showLog: () => this.log.show(),
    });
    this.benchmarks = new BenchmarkFeature(extension, this.devices, this.log);
    this.virtualRun = new VirtualRunFeature(this.log, this.devices);
    // deactivate() stops both child processes before VS Code disposes these. The log goes last:
    // what is disposed before it may still write a line on its way out.
    extension.subscriptions.push(
      this.server, this.devices, this.reportPanel, this.benchmarks, this.virtualRun, new DeviceStatusBar(this.devices), ...registerCommands(this),
      ...registerPanelSerializers(this), previewBundledRuleDocs(extension, this.log), this.log,
    );
  }

  /**
   * Starts the language server; the worker is forked just after activation, in the background,
   * so a slow nvidia-smi or Python never delays the editor. Failures are logged, never thrown.
   */
  async start(): Promise<void> {
    this.log.info(`Device Doctor ${this.version()} activating (workspace trusted: ${vscode.workspace.isTrusted}).`);
    this.devices.start();
    await this.server.start();
  }

  async stop(): Promise<void> {
    await Promise.all([this.server.stop(), this.devices.stop()]);
  }

  private version(): string {
    return String((this.extension.extension.packageJSON as { version?: unknown }).version ?? '');
  }
}
