// Owns the language client's lifetime. Start, stop and restart run one at a time; a
// restart requested while another is waiting to run is merged into it (ruff-vscode's rule).
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { CrashWindow } from './crashWindow';
import { createLanguageClient } from './languageClient';

const STOP_TIMEOUT_MS = 2000;

export class ServerController implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private queue: Promise<void> = Promise.resolve();
  private restartQueued: Promise<void> | undefined;
  private readonly crashes = new CrashWindow();

  constructor(
    private readonly extension: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  start(): Promise<void> {
    return this.enqueue(() => this.startClient());
  }

  stop(): Promise<void> {
    return this.enqueue(() => this.stopClient());
  }

  restart(): Promise<void> {
    this.restartQueued ??= this.enqueue(async () => {
      this.restartQueued = undefined;
      this.crashes.reset();
      await this.stopClient();
      await this.startClient();
    });
    return this.restartQueued;
  }

  dispose(): void {
    void this.stop();
  }

  private enqueue(step: () => Promise<void>): Promise<void> {
    const next = this.queue.then(step, step);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async startClient(): Promise<void> {
    if (this.client) return;
    const client = createLanguageClient(this.extension, this.log, this.crashes);
    this.client = client;
    try {
      await client.start();
      this.log.info('Language server started.');
    } catch (error) {
      this.client = undefined;
      this.log.error(`The language server could not start: ${error instanceof Error ? error.message : String(error)}`);
      await client.dispose(STOP_TIMEOUT_MS).catch(() => undefined);
      void this.offerLog('Device Doctor could not start its language server.');
    }
  }

  private async stopClient(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (!client) return;
    try {
      await client.dispose(STOP_TIMEOUT_MS);
    } catch (error) {
      // A server that already died cannot be stopped politely; that is fine.
      this.log.warn(`Stopping the language server: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private async offerLog(message: string): Promise<void> {
    const choice = await vscode.window.showErrorMessage(message, 'Show Log');
    if (choice) this.log.show();
  }
}
