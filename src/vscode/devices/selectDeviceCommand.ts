// Device Doctor: Select Device — a quick pick of the report's devices and "Automatic"; the
// choice is written to `deviceDoctor.device` (planDeviceWrite says where; a notification says
// what changed, where, and what it affects), and the resulting configuration change runs a new
// detection, which re-renders the status bar and the report.
import * as vscode from 'vscode';
import type { DeviceController } from './deviceController';
import { deviceWriteMessage, devicePicks, planDeviceWrite } from './devicePicks';
import { COMMANDS } from '../shared/commandIds';
import type { DevicePick, SettingLevel } from './devicePicks';
import { SETTINGS_SECTION } from '../../protocol/settings';

const TARGETS: Record<SettingLevel, vscode.ConfigurationTarget> = {
  global: vscode.ConfigurationTarget.Global,
  workspace: vscode.ConfigurationTarget.Workspace,
  workspaceFolder: vscode.ConfigurationTarget.WorkspaceFolder,
};

export async function selectDevice(devices: DeviceController, log: vscode.LogOutputChannel): Promise<void> {
  const report = devices.snapshot.report ?? (await detectFirst(devices));
  const picked = await vscode.window.showQuickPick<DevicePick & vscode.QuickPickItem>(
    devicePicks(report ?? null, devices.settings().pinnedDevice),
    { title: 'Device Doctor: Select Device', placeHolder: 'The PyTorch device to probe, monitor and benchmark', matchOnDescription: true },
  );
  if (!picked) return;
  const folder = vscode.workspace.workspaceFolders?.[0];
  const config = vscode.workspace.getConfiguration(SETTINGS_SECTION, folder?.uri);
  const write = planDeviceWrite(config.inspect<string>('device') ?? {}, picked.device, folder !== undefined);
  try {
    await config.update('device', write.value, TARGETS[write.level]);
    log.info(`deviceDoctor.device set to ${JSON.stringify(write.value ?? null)} in the ${write.level} settings.`);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    log.error(`Could not write deviceDoctor.device: ${message}`);
    void vscode.window.showErrorMessage(`Device Doctor could not save the device: ${message}`);
    return;
  }
  const choice = await vscode.window.showInformationMessage(deviceWriteMessage(write), 'Open Setting', 'Insert Device Selection');
  if (choice === 'Open Setting') {
    const settingsCommand = write.level === 'global' ? 'workbench.action.openSettings' : 'workbench.action.openWorkspaceSettings';
    await vscode.commands.executeCommand(settingsCommand, 'deviceDoctor.device');
  } else if (choice === 'Insert Device Selection') {
    await vscode.commands.executeCommand(COMMANDS.insertDeviceSelection);
  }
}

function detectFirst(devices: DeviceController) {
  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Window, title: 'Detecting devices…' },
    () => devices.detect(),
  );
}
