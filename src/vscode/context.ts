// The one object that owns the extension's parts: its log, the language server, and
// (in later issues) the compute worker, status bar and panels.
import * as vscode from 'vscode';
import { registerCommands } from './commands';
import { createLog } from './log';
import { ServerController } from './serverController';

export class DeviceDoctor {
  readonly log: vscode.LogOutputChannel;
  readonly server: ServerController;

  constructor(readonly extension: vscode.ExtensionContext) {
    this.log = createLog();
    this.server = new ServerController(extension, this.log);
    // deactivate() stops the server before VS Code disposes these.
    extension.subscriptions.push(this.log, this.server, ...registerCommands(this));
  }

  /** Starts the language server; failures are logged and offered, never thrown at activation. */
  async start(): Promise<void> {
    this.log.info(`Device Doctor ${this.version()} activating (workspace trusted: ${vscode.workspace.isTrusted}).`);
    await this.server.start();
  }

  async stop(): Promise<void> {
    await this.server.stop();
  }

  private version(): string {
    return String((this.extension.extension.packageJSON as { version?: unknown }).version ?? '');
  }
}
