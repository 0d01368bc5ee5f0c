// The language client: starts dist/server.js over ipc for Python files and the Python
// cells of notebooks, and decides what happens when the server crashes.
import * as vscode from 'vscode';
import {
  CloseAction,
  ErrorAction,
  LanguageClient,
  RevealOutputChannelOn,
  TransportKind,
} from 'vscode-languageclient/node';
import type { DocumentSelector, ErrorHandler, LanguageClientOptions, ServerOptions } from 'vscode-languageclient/node';
import { SETTINGS_SECTION } from '../../protocol/settings';
import { CrashWindow, MAX_CRASHES } from './crashWindow';
import { whileRunning } from './whileRunning';
import { ownRuleCode } from '../ruleDocs/ruleDocLink';
import { bundledRuleDoc } from '../ruleDocs/ruleDocPreview';

/** Also the prefix of the trace setting: `deviceDoctor.trace.server`. */
export const CLIENT_ID = 'deviceDoctor';
export const CLIENT_NAME = 'Device Doctor';

export const DOCUMENT_SELECTOR: DocumentSelector = [
  { language: 'python', scheme: 'file' },
  { language: 'python', scheme: 'untitled' },
  // A notebook cell filter (LSP 3.17): Python cells of any notebook type.
  { notebook: '*', language: 'python' },
];

export const GAVE_UP_MESSAGE = `The Device Doctor language server crashed ${MAX_CRASHES} times in the last 3 minutes `
  + 'and will not be restarted. The "Device Doctor" output has the details; '
  + 'run "Device Doctor: Restart Language Server" to try again.';

function serverOptions(extension: vscode.ExtensionContext): ServerOptions {
  const module = extension.asAbsolutePath('dist/server.js');
  return {
    run: { module, transport: TransportKind.ipc },
    debug: { module, transport: TransportKind.ipc, options: { execArgv: ['--nolazy', '--inspect=6011'] } },
  };
}

function errorHandler(log: vscode.LogOutputChannel, crashes: CrashWindow): ErrorHandler {
  return {
    error: (error, _message, count) => {
      log.error(`Language server connection error: ${error.message}`);
      // A few bad messages are survivable; a stream of them means the connection is gone.
      return { action: count !== undefined && count <= 3 ? ErrorAction.Continue : ErrorAction.Shutdown };
    },
    closed: () => {
      if (crashes.shouldRestart(Date.now())) {
        log.warn('The language server stopped unexpectedly; restarting it.');
        return { action: CloseAction.Restart };
      }
      log.error(GAVE_UP_MESSAGE);
      return { action: CloseAction.DoNotRestart, message: GAVE_UP_MESSAGE };
    },
  };
}

/** The code link opens the page shipped in the extension (offline), not the public one; ruleDocPreview shows it as a preview. */
function withBundledDocLink(extension: vscode.ExtensionContext, diagnostic: vscode.Diagnostic): vscode.Diagnostic {
  const code = ownRuleCode(diagnostic.code);
  if (code !== undefined) diagnostic.code = { value: code, target: bundledRuleDoc(extension, code) };
  return diagnostic;
}

export function createLanguageClient(
  extension: vscode.ExtensionContext,
  log: vscode.LogOutputChannel,
  crashes: CrashWindow,
): LanguageClient {
  const clientOptions: LanguageClientOptions = {
    documentSelector: DOCUMENT_SELECTOR,
    synchronize: { configurationSection: SETTINGS_SECTION },
    diagnosticCollectionName: CLIENT_ID,
    outputChannel: log,
    traceOutputChannel: log,
    revealOutputChannelOn: RevealOutputChannelOn.Never,
    errorHandler: errorHandler(log, crashes),
    middleware: {
      handleDiagnostics: (uri, diagnostics, next) => next(uri, diagnostics.map((d) => withBundledDocLink(extension, d))),
      // Asked while the client stops (a window reload): answered empty, not failed (whileRunning.ts).
      provideCodeActions: (document, range, context, token, next) =>
        whileRunning(running, () => token.isCancellationRequested, () => next(document, range, context, token), []),
      resolveCodeAction: (item, token, next) => whileRunning(running, () => token.isCancellationRequested, () => next(item, token), item),
    },
    initializationFailedHandler: (error) => {
      log.error(`The language server failed to initialize: ${error instanceof Error ? error.message : String(error)}`);
      return false;
    },
  };
  const client = new LanguageClient(CLIENT_ID, CLIENT_NAME, serverOptions(extension), clientOptions);
  // Read when a request arrives, after construction: the client's own state, not a flag of ours.
  function running(): boolean {
    return client.isRunning();
  }
  return client;
}
