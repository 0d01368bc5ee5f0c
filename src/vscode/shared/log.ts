// The extension's one log: a LogOutputChannel named "Device Doctor". The language
// client writes the server's log and its traces here too.
import * as vscode from 'vscode';

export const LOG_NAME = 'Device Doctor';

export function createLog(): vscode.LogOutputChannel {
  return vscode.window.createOutputChannel(LOG_NAME, { log: true });
}
