// A minimal LSP client for tests: starts dist/server.js as a real child process over stdio
// and records what it publishes. Answers the server's requests like VS Code would.
import { ChildProcess, execFileSync, spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { pathToFileURL } from 'url';
import { createMessageConnection, MessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node';
import type { InitializeResult, LogMessageParams, PublishDiagnosticsParams } from 'vscode-languageserver-protocol';

const ROOT = path.resolve(__dirname, '..', '..');
export const SERVER_JS = path.join(ROOT, 'dist', 'server.js');

/** `npm test` builds first; a bare `npx mocha` run builds only if the bundle is missing. */
export function ensureServerBuilt(): void {
  if (!fs.existsSync(SERVER_JS)) execFileSync(process.execPath, [path.join(ROOT, 'esbuild.js')], { cwd: ROOT, stdio: 'ignore' });
}

interface Waiter {
  matches: (p: PublishDiagnosticsParams) => boolean;
  resolve: (p: PublishDiagnosticsParams) => void;
}

export class TestClient {
  readonly published: PublishDiagnosticsParams[] = [];
  readonly logs: LogMessageParams[] = [];
  readonly stderr: string[] = [];
  /** What `workspace/configuration` answers for the deviceDoctor section. */
  settings: Record<string, unknown> = {};
  /** The scopeUri of every configuration item the server asked for. */
  readonly configurationScopes: Array<string | undefined> = [];
  private readonly waiters: Waiter[] = [];

  private constructor(readonly child: ChildProcess, readonly connection: MessageConnection) {
    connection.onNotification('textDocument/publishDiagnostics', (p: PublishDiagnosticsParams) => {
      this.published.push(p);
      for (const waiter of this.waiters.filter((w) => w.matches(p))) {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        waiter.resolve(p);
      }
    });
    connection.onNotification('window/logMessage', (p: LogMessageParams) => void this.logs.push(p));
    connection.onRequest('workspace/configuration', (p: { items: Array<{ scopeUri?: string; section?: string }> }) =>
      p.items.map((item) => {
        this.configurationScopes.push(item.scopeUri);
        return item.section === 'deviceDoctor' ? this.settings : null;
      }));
    connection.onRequest('client/registerCapability', () => null);
    connection.onRequest('window/workDoneProgress/create', () => null);
    child.stderr?.on('data', (chunk: Buffer) => this.stderr.push(chunk.toString()));
    connection.listen();
  }

  /** `workspaceFolders`: folder paths, sent as the client's workspace (cross-file analysis searches them). */
  static async start(options: { workspaceFolders?: string[] } = {}): Promise<{ client: TestClient; result: InitializeResult }> {
    const child = spawn(process.execPath, [SERVER_JS, '--stdio'], { stdio: ['pipe', 'pipe', 'pipe'] });
    const connection = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
    const client = new TestClient(child, connection);
    const result: InitializeResult = await connection.sendRequest('initialize', {
      processId: process.pid,
      rootUri: null,
      workspaceFolders: options.workspaceFolders?.map((folder) => ({ uri: pathToFileURL(folder).href, name: path.basename(folder) })) ?? null,
      capabilities: {
        workspace: {
          configuration: true, workspaceEdit: { documentChanges: true }, didChangeWatchedFiles: { dynamicRegistration: true },
          ...(options.workspaceFolders ? { workspaceFolders: true } : {}),
        },
        textDocument: { publishDiagnostics: { relatedInformation: true, codeDescriptionSupport: true } },
        notebookDocument: { synchronization: { dynamicRegistration: false } },
      },
    });
    await connection.sendNotification('initialized', {});
    return { client, result };
  }

  openFile(uri: string, text: string, version = 1): Promise<void> {
    return this.connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'python', version, text } });
  }

  /** A full-text change, as a client without incremental sync sends it. */
  changeFile(uri: string, text: string, version: number): Promise<void> {
    return this.connection.sendNotification('textDocument/didChange', { textDocument: { uri, version }, contentChanges: [{ text }] });
  }

  /** Resolves with the next publication for `uri` that `matches` (or an earlier one not yet seen). */
  diagnosticsFor(uri: string, matches: (p: PublishDiagnosticsParams) => boolean = () => true, timeoutMs = 10_000): Promise<PublishDiagnosticsParams> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no matching diagnostics for ${uri} within ${timeoutMs} ms; got ${JSON.stringify(this.published.filter((p) => p.uri === uri))}; stderr: ${this.stderr.join('')}`)), timeoutMs);
      this.waiters.push({
        matches: (p) => p.uri === uri && matches(p),
        resolve: (p) => {
          clearTimeout(timer);
          resolve(p);
        },
      });
    });
  }

  async stop(): Promise<void> {
    try {
      await Promise.race([this.connection.sendRequest('shutdown'), new Promise((r) => setTimeout(r, 2000))]);
      await this.connection.sendNotification('exit');
    } catch {
      // The server may already be gone; killing it below is enough.
    }
    this.connection.dispose();
    this.child.kill();
  }
}
