// The Device Doctor language server: Python files and notebook cells in, PyTorch device
// diagnostics and quick fixes out. Started by the extension over ipc; `--stdio` works too,
// for other editors and for the tests.
import {
  CodeActionKind,
  createConnection,
  DidChangeWatchedFilesNotification,
  NotebookDocuments,
  ProposedFeatures,
  TextDocuments,
  TextDocumentSyncKind,
} from 'vscode-languageserver/node';
import type { InitializeParams, InitializeResult } from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import * as path from 'path';
import { Worker } from 'worker_threads';
import { initPythonParser } from '../core/analysis';
import { clearProjectConfigCache } from '../core/config';
import { SETTINGS_SECTION } from '../protocol/settings';
import { AnalysisLanes } from './analysisLanes';
import { buildCodeActions, FIX_ALL_KIND, isKindRequested, PROVIDED_CODE_ACTION_KINDS } from './codeActions';
import { FindingStore } from './findingStore';
import { Linter, PYTHON_LANGUAGE } from './linter';
import { ServerLog } from './serverLog';
import { SettingsProvider } from './settingsProvider';
import { brokenStream, stdioTransport } from './stdioTransport';
import { WorkspaceRoots } from './workspaceRoots';

let shutdownRequested = false;
// Over stdio, a stream the reader cannot frame ends the process (stdioTransport.ts); over ipc
// (the extension) the library's transport is kept as it is.
const connection = process.argv.includes('--stdio')
  ? createConnection(ProposedFeatures.all, ...stdioTransport({ broken: brokenStream, closed: () => process.exit(shutdownRequested ? 0 : 1) }))
  : createConnection(ProposedFeatures.all);
const log = new ServerLog(connection.console);
// Analysis runs in worker threads (dist/analysisWorker.js, beside this bundle; two lanes, so that
// no document waits behind another's long analysis): this thread keeps the connection,
// documents, settings and findings, and answers while a file is analysed.
// A crash during an analysis is logged by the linter, with the document; one between analyses here.
// A young generation of 16 MB instead of V8's default for a worker: an analysis makes short-
// lived garbage, which a smaller nursery collects as cheaply, and the server's resident memory
// after opening a 10,000-line file falls from 148-154 MB to 131-137 MB (npm run bench, two
// runs each) with the keystroke p50 unchanged within the noise (53-58 ms against 54-56 ms).
// An old generation of at most 1 GB instead of the 4 GB a worker gets here: V8 lets a heap
// grow to up to 4x what survived its last collection when its limit is 2 GB or more, to ~1.6x
// at 1 GB; 30 real files opened left 200-270 MB of worker heap for 100 MB live, 150-190 MB
// with it (server RSS 524 -> 465 MB). A 50,000-line file's analysis needs some 220 MB.
const ANALYSIS_WORKER_LIMITS = { maxYoungGenerationSizeMb: 16, maxOldGenerationSizeMb: 1024 };
const files = new AnalysisLanes(() => new Worker(path.join(__dirname, 'analysisWorker.js'), { resourceLimits: ANALYSIS_WORKER_LIMITS }), {
  crashed: (reason, uri) => {
    if (uri === undefined) log.warn(`The analysis worker stopped (${reason}); a fresh worker takes the next analysis.`);
  },
});
const store = new FindingStore();
const capabilities = { pullConfiguration: false, versionedEdits: false, watchFiles: false, workspaceFolders: false };
const settings = new SettingsProvider(connection, () => capabilities.pullConfiguration);

// Incremental changes are recorded as they arrive and sent with the next analysis, so that the
// worker's tree can be edited rather than rebuilt.
const documents = new TextDocuments<TextDocument>({
  create: (uri, languageId, version, content) => TextDocument.create(uri, languageId, version, content),
  update: (document, changes, version) => {
    files.recordChanges(document.uri, changes);
    return TextDocument.update(document, changes, version);
  },
});
const notebooks = new NotebookDocuments(TextDocument);
// Searched for imports (cross-file analysis) after each file's own folder and package root.
const roots = new WorkspaceRoots();
const linter = new Linter({ connection, documents, notebooks, files, settings, store, log, workspaceRoots: () => roots.paths });

// A bug in one analysis must never take the server down with it.
process.on('uncaughtException', (error) => log.error('Unexpected error', error));
process.on('unhandledRejection', (error) => log.error('Unexpected rejection', error));

connection.onInitialize(async (params: InitializeParams): Promise<InitializeResult> => {
  const workspace = params.capabilities.workspace;
  capabilities.pullConfiguration = workspace?.configuration === true;
  capabilities.versionedEdits = workspace?.workspaceEdit?.documentChanges === true;
  capabilities.watchFiles = workspace?.didChangeWatchedFiles?.dynamicRegistration === true;
  capabilities.workspaceFolders = workspace?.workspaceFolders === true;
  roots.initialize(params);
  try {
    // This thread's own parser checks that a quick fix adds no syntax error; the worker loads its own.
    await initPythonParser(__dirname);
  } catch (error) {
    log.error('Could not load the Python parser; no analysis will run', error);
  }
  return {
    capabilities: {
      textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental },
      notebookDocumentSync: { notebookSelector: [{ notebook: '*', cells: [{ language: PYTHON_LANGUAGE }] }] },
      codeActionProvider: { codeActionKinds: PROVIDED_CODE_ACTION_KINDS, resolveProvider: false },
      ...(capabilities.workspaceFolders ? { workspace: { workspaceFolders: { supported: true, changeNotifications: true } } } : {}),
    },
    serverInfo: { name: 'Device Doctor' },
  };
});

connection.onInitialized(() => {
  if (capabilities.workspaceFolders) connection.workspace.onDidChangeWorkspaceFolders((event) => roots.change(event));
  if (!capabilities.watchFiles) return;
  // Python files too: a module changed on disk (a save, a git checkout) re-analyses the open
  // documents that import it. The client watches; nothing here walks the workspace.
  connection.client
    .register(DidChangeWatchedFilesNotification.type, { watchers: [{ globPattern: '**/pyproject.toml' }, { globPattern: '**/*.py' }] })
    .catch((error: unknown) => log.error('Could not watch pyproject.toml and Python files', error));
});

connection.onDidChangeConfiguration((change) => {
  const pushed = (change.settings as Record<string, unknown> | null | undefined)?.[SETTINGS_SECTION];
  settings.invalidate(pushed);
  linter.lintAllOpen();
});

connection.onDidChangeWatchedFiles((change) => {
  linter.filesChangedOnDisk(change.changes.map((c) => c.uri).filter((uri) => uri.endsWith('.py')));
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
    // Quick fixes are answered from the latest finished analysis (the store), never waiting
    // for one. Those of an older version (an analysis is pending or running) name that version
    // in their edits, which the client checks before applying; a client that cannot check gets
    // none. An explicit fix-all request (editor.codeActionsOnSave, right after the last
    // keystroke) waits for this document's analysis instead: fix-all from older findings could
    // not be applied, and the save would silently skip it. Waiting is an await: the server
    // answers everything else meanwhile.
    if (params.context.only && isKindRequested(FIX_ALL_KIND, params.context.only) && isStale(uri)) await linter.flushFor(uri);
    const document = documents.get(uri) ?? notebooks.cellTextDocuments.get(uri);
    if (!document) return [];
    const stale = isStale(uri);
    if (stale && (!capabilities.versionedEdits || !isKindRequested(CodeActionKind.QuickFix, params.context.only))) return [];
    const context = stale ? { ...params.context, only: [CodeActionKind.QuickFix] } : params.context;
    return buildCodeActions({
      uri,
      findings: store.get(uri),
      context,
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

/** True when the stored findings of `uri` were computed on an older version than the client's. */
function isStale(uri: string): boolean {
  const document = documents.get(uri) ?? notebooks.cellTextDocuments.get(uri);
  const stored = store.version(uri);
  return document !== undefined && stored !== undefined && stored !== document.version;
}

function lineText(document: TextDocument, line: number): string | undefined {
  if (line < 0 || line >= document.lineCount) return undefined;
  const text = document.getText({ start: { line, character: 0 }, end: { line: line + 1, character: 0 } });
  return text.replace(/\r?\n$|\r$/, '');
}

connection.onShutdown(() => {
  shutdownRequested = true;
  linter.dispose();
  files.dispose();
});

documents.listen(connection);
notebooks.listen(connection);
connection.listen();
