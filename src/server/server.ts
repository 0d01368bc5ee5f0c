// The Device Doctor language server: Python files and notebook cells in, PyTorch device
// diagnostics and quick fixes out. Started by the extension over ipc; `--stdio` works too,
// for other editors and for the tests.
import {
  createConnection,
  DidChangeWatchedFilesNotification,
  NotebookDocuments,
  ProposedFeatures,
  TextDocuments,
  TextDocumentSyncKind,
} from 'vscode-languageserver/node';
import type { InitializeParams, InitializeResult } from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { initPythonParser } from '../core/analysis';
import { clearProjectConfigCache } from '../core/config';
import { SETTINGS_SECTION } from '../protocol/settings';
import { buildCodeActions, PROVIDED_CODE_ACTION_KINDS } from './codeActions';
import { FileAnalyzer } from './fileAnalyzer';
import { FindingStore } from './findingStore';
import { Linter, PYTHON_LANGUAGE } from './linter';
import { ServerLog } from './serverLog';
import { SettingsProvider } from './settingsProvider';

const connection = createConnection(ProposedFeatures.all);
const log = new ServerLog(connection.console);
const files = new FileAnalyzer();
const store = new FindingStore();
const capabilities = { pullConfiguration: false, versionedEdits: false, watchFiles: false };
const settings = new SettingsProvider(connection, () => capabilities.pullConfiguration);

// Incremental changes reach FileAnalyzer as they arrive, so its tree can be edited rather than rebuilt.
const documents = new TextDocuments<TextDocument>({
  create: (uri, languageId, version, content) => TextDocument.create(uri, languageId, version, content),
  update: (document, changes, version) => {
    files.recordChanges(document.uri, changes);
    return TextDocument.update(document, changes, version);
  },
});
const notebooks = new NotebookDocuments(TextDocument);
const linter = new Linter({ connection, documents, notebooks, files, settings, store, log });

// A bug in one analysis must never take the server down with it.
process.on('uncaughtException', (error) => log.error('Unexpected error', error));
process.on('unhandledRejection', (error) => log.error('Unexpected rejection', error));

connection.onInitialize(async (params: InitializeParams): Promise<InitializeResult> => {
  const workspace = params.capabilities.workspace;
  capabilities.pullConfiguration = workspace?.configuration === true;
  capabilities.versionedEdits = workspace?.workspaceEdit?.documentChanges === true;
  capabilities.watchFiles = workspace?.didChangeWatchedFiles?.dynamicRegistration === true;
  try {
    await initPythonParser(__dirname);
  } catch (error) {
    log.error('Could not load the Python parser; no analysis will run', error);
  }
  return {
    capabilities: {
      textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental },
      notebookDocumentSync: { notebookSelector: [{ notebook: '*', cells: [{ language: PYTHON_LANGUAGE }] }] },
      codeActionProvider: { codeActionKinds: PROVIDED_CODE_ACTION_KINDS, resolveProvider: false },
    },
    serverInfo: { name: 'Device Doctor' },
  };
});

connection.onInitialized(() => {
  if (!capabilities.watchFiles) return;
  connection.client
    .register(DidChangeWatchedFilesNotification.type, { watchers: [{ globPattern: '**/pyproject.toml' }] })
    .catch((error: unknown) => log.error('Could not watch pyproject.toml files', error));
});

connection.onDidChangeConfiguration((change) => {
  const pushed = (change.settings as Record<string, unknown> | null | undefined)?.[SETTINGS_SECTION];
  settings.invalidate(pushed);
  linter.lintAllOpen();
});

connection.onDidChangeWatchedFiles((change) => {
  if (!change.changes.some((c) => c.uri.endsWith('pyproject.toml'))) return;
  clearProjectConfigCache();
  log.forget('pyproject:');
  linter.lintAllOpen();
});

documents.onDidOpen((event) => linter.fileOpened(event.document.uri));
documents.onDidChangeContent((event) => linter.fileChanged(event.document.uri));
documents.onDidClose((event) => linter.fileClosed(event.document.uri));
notebooks.onDidOpen((notebook) => linter.notebookOpened(notebook.uri));
notebooks.onDidChange((event) => linter.notebookChanged(event.notebookDocument.uri));
notebooks.onDidClose((notebook) => linter.notebookClosed(notebook.uri));

connection.onCodeAction(async (params) => {
  const uri = params.textDocument.uri;
  try {
    await linter.flushFor(uri);
    const document = documents.get(uri) ?? notebooks.cellTextDocuments.get(uri);
    if (!document) return [];
    return buildCodeActions({
      uri,
      findings: store.get(uri),
      context: params.context,
      lineText: (line) => lineText(document, line),
      // A fix may edit another cell of the notebook: its text is needed to check that it still parses.
      textOf: (target) => (documents.get(target) ?? notebooks.cellTextDocuments.get(target))?.getText(),
      versionOf: capabilities.versionedEdits ? (target) => store.version(target) : undefined,
    });
  } catch (error) {
    log.error(`Code actions for ${uri} failed`, error);
    return [];
  }
});

function lineText(document: TextDocument, line: number): string | undefined {
  if (line < 0 || line >= document.lineCount) return undefined;
  const text = document.getText({ start: { line, character: 0 }, end: { line: line + 1, character: 0 } });
  return text.replace(/\r?\n$|\r$/, '');
}

connection.onShutdown(() => {
  linter.dispose();
  files.dispose();
});

documents.listen(connection);
notebooks.listen(connection);
connection.listen();
