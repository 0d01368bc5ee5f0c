// The extension's one log: a LogOutputChannel named "Device Doctor". The language
// client writes the server's log and its traces here too. Writes after the window closed it
// are dropped (closedSafeLog.ts).
import * as vscode from 'vscode';
import { closedSafe } from './closedSafeLog';

export const LOG_NAME = 'Device Doctor';

export function createLog(): vscode.LogOutputChannel {
  return closedSafe(vscode.window.createOutputChannel(LOG_NAME, { log: true }));
}
