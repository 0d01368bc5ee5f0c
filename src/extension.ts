// Entry point: build the one DeviceDoctor context and start it. Everything else lives in src/vscode.
import type * as vscode from 'vscode';
import { DeviceDoctor } from './vscode/deviceDoctor';

let doctor: DeviceDoctor | undefined;

export async function activate(extension: vscode.ExtensionContext): Promise<void> {
  doctor = new DeviceDoctor(extension);
  await doctor.start();
}

export async function deactivate(): Promise<void> {
  await doctor?.stop();
  doctor = undefined;
}
