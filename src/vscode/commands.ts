// Registration of every command in the COMMANDS table (package.json lists the same ids).
import * as vscode from 'vscode';
import type { ServerController } from './analysis/serverController';
import type { BenchmarkFeature } from './benchmark/benchmarkFeature';
import type { DeviceController } from './devices/deviceController';
import type { DeviceReportPanel } from './devices/deviceReportPanel';
import { COMMANDS } from './shared/commandIds';
import { selectDevice } from './devices/selectDeviceCommand';
import { chooseInterpreter } from './interpreter/chooseInterpreterCommand';
import { insertDeviceSelection } from './devices/insertDeviceSelectionCommand';
import { showRuleDoc } from './ruleDocs/showRuleDocCommand';
import type { VirtualRunFeature } from './virtualRun/virtualRunFeature';

export { COMMANDS } from './shared/commandIds';

/** The parts the commands act on (the DeviceDoctor object provides them; named here so this file need not import it). */
export interface CommandTargets {
  log: vscode.LogOutputChannel;
  server: ServerController;
  devices: DeviceController;
  reportPanel: DeviceReportPanel;
  benchmarks: BenchmarkFeature;
  extension: vscode.ExtensionContext;
  virtualRun: VirtualRunFeature;
}

export function registerCommands(doctor: CommandTargets): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand(COMMANDS.restartServer, () => doctor.server.restart()),
    vscode.commands.registerCommand(COMMANDS.showLog, () => doctor.log.show()),
    vscode.commands.registerCommand(COMMANDS.detect, () => detectAccelerators(doctor)),
    vscode.commands.registerCommand(COMMANDS.selectDevice, () => selectDevice(doctor.devices, doctor.log)),
    vscode.commands.registerCommand(COMMANDS.chooseInterpreter, () => chooseInterpreter(doctor.devices, doctor.log)),
    vscode.commands.registerCommand(COMMANDS.insertDeviceSelection, () => insertDeviceSelection(doctor.log)),
    vscode.commands.registerCommand(COMMANDS.restartWorker, () => doctor.devices.restartWorker()),
    vscode.commands.registerCommand(COMMANDS.showDeviceReport, () => doctor.reportPanel.show()),
    vscode.commands.registerCommand(COMMANDS.runBenchmark, () => doctor.benchmarks.run()),
    vscode.commands.registerCommand(COMMANDS.showBenchmarkResults, () => doctor.benchmarks.panel.showLatest()),
    vscode.commands.registerCommand(COMMANDS.installNativeTf, () => doctor.benchmarks.installNativeTf()),
    vscode.commands.registerCommand(COMMANDS.showRuleDoc, (code?: unknown) => showRuleDoc(doctor.extension, doctor.log, code)),
    vscode.commands.registerCommand(COMMANDS.dryRunVirtualGpu, (target?: unknown) => doctor.virtualRun.run(target)),
  ];
}

/** Detect Accelerators: a cancellable detection with progress, then the device report view. */
async function detectAccelerators(doctor: CommandTargets): Promise<void> {
  const cancelled = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'Device Doctor: detecting accelerators…', cancellable: true },
    async (_progress, token) => {
      await doctor.devices.detect(token, true);
      return token.isCancellationRequested;
    },
  );
  // The view shows a failed detection too, with its reason.
  if (!cancelled) doctor.reportPanel.show();
}
