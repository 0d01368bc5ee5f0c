// Device Doctor: Choose Interpreter — a quick pick that opens at once and fills in as the worker
// discovers and probes the interpreters (the editor never waits on an `import torch`), then where
// to save the choice (the workspace by default), then deviceDoctor.pythonPath is written and a
// notification says which setting changed where. The configuration change runs a new detection.
import * as vscode from 'vscode';
import type { DeviceController } from '../devices/deviceController';
import { SETTINGS_SECTION } from '../../protocol/settings';
import { choiceMessage, interpreterPicks, scopePicks, type InterpreterPick, type PythonPathScope, type ScopePick } from './interpreterPicks';

const TARGETS: Record<PythonPathScope, vscode.ConfigurationTarget> = {
  global: vscode.ConfigurationTarget.Global,
  workspace: vscode.ConfigurationTarget.Workspace,
  workspaceFolder: vscode.ConfigurationTarget.WorkspaceFolder,
};

type PickItem = InterpreterPick & vscode.QuickPickItem;

export async function chooseInterpreter(devices: DeviceController, log: vscode.LogOutputChannel): Promise<void> {
  const picked = await pickInterpreter(devices, log);
  if (!picked) return;
  const folders = vscode.workspace.workspaceFolders ?? [];
  const trusted = vscode.workspace.isTrusted;
  const scopes = scopePicks({ hasWorkspace: folders.length > 0, multiRoot: folders.length > 1, trusted });
  const scope = scopes.length === 1
    ? scopes[0]
    : await vscode.window.showQuickPick<ScopePick & vscode.QuickPickItem>(scopes, { title: 'Device Doctor: Save the interpreter in…', placeHolder: `deviceDoctor.pythonPath = ${picked.path}` });
  if (!scope) return;
  try {
    await vscode.workspace.getConfiguration(SETTINGS_SECTION, folders[0]?.uri).update('pythonPath', picked.path, TARGETS[scope.scope]);
    const message = choiceMessage(picked.path, scope.scope, trusted, picked.capability === 'untrusted');
    log.info(message);
    void vscode.window.showInformationMessage(message);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    log.error(`Could not write deviceDoctor.pythonPath: ${message}`);
    void vscode.window.showErrorMessage(`Device Doctor could not save the interpreter: ${message}`);
  }
}

function pickInterpreter(devices: DeviceController, log: vscode.LogOutputChannel): Promise<PickItem | undefined> {
  const quickPick = vscode.window.createQuickPick<PickItem>();
  quickPick.title = 'Device Doctor: Choose Interpreter';
  quickPick.placeholder = 'Finding Python interpreters and asking each one about PyTorch…';
  quickPick.matchOnDescription = true;
  quickPick.matchOnDetail = true;
  quickPick.busy = true;
  const cancel = new vscode.CancellationTokenSource();
  const current = devices.snapshot.report?.torch?.interpreter ?? devices.snapshot.interpreter?.pythonPath ?? null;
  devices.discoverInterpreters(cancel.token).then(
    (response) => {
      quickPick.items = interpreterPicks(response, current);
      quickPick.placeholder = response.interpreters.length === 0
        ? 'No Python interpreter found: install Python, or set "deviceDoctor.pythonPath" by hand'
        : 'The interpreter whose PyTorch Device Doctor probes and benchmarks';
    },
    (error: unknown) => {
      if (devices.stoppedByShutdown(error)) {
        // A window reload stopped the worker: not a failure, and the quick pick goes with the window.
        log.info('Interpreter discovery stopped: the extension is shutting down.');
        return;
      }
      const message = error instanceof Error ? error.message : String(error);
      if (!cancel.token.isCancellationRequested) log.error(`Interpreter discovery failed: ${message}`);
      quickPick.placeholder = `Interpreter discovery failed: ${message}`;
    },
  ).finally(() => { quickPick.busy = false; });
  return new Promise((resolve) => {
    quickPick.onDidAccept(() => {
      const [selected] = quickPick.selectedItems;
      if (selected) {
        resolve(selected);
        quickPick.hide();
      }
    });
    quickPick.onDidHide(() => {
      cancel.cancel();
      cancel.dispose();
      quickPick.dispose();
      resolve(undefined);
    });
    quickPick.show();
  });
}
