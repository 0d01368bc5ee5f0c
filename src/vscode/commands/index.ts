// Every command the extension contributes, by id (package.json `contributes.commands`
// must list the same ids), and their registration.
import * as vscode from 'vscode';
import type { DeviceDoctor } from './context';

export const COMMANDS = {
  restartServer: 'deviceDoctor.restartServer',
  showLog: 'deviceDoctor.showLog',
} as const;

export function registerCommands(doctor: DeviceDoctor): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand(COMMANDS.restartServer, () => doctor.server.restart()),
    vscode.commands.registerCommand(COMMANDS.showLog, () => doctor.log.show()),
  ];
}
