// The analysis worker thread (dist/analysisWorker.js): keeps one ParsedDocument per open
// file (FileAnalyzer: incremental re-parse), analyses what the main thread sends, one
// request at a time, and answers with plain findings. The main thread keeps the LSP
// connection, so a long analysis here never delays its answers.
import { parentPort } from 'worker_threads';
import { initPythonParser, ParserCrashedError } from '../core/python/parser';
import type { AnalysisReply, AnalysisRequest } from './analysisMessages';
import { FileAnalyzer } from './fileAnalyzer';
import { IdleCollection } from './idleCollection';

const port = parentPort;
if (!port) throw new Error('analysisWorker.js runs as a worker thread of the language server');
const files = new FileAnalyzer();
const send = (reply: AnalysisReply) => port.postMessage(reply);
const idleCollection = new IdleCollection();

async function handle(request: AnalysisRequest): Promise<void> {
  if (request.kind === 'release') {
    files.release(request.uri);
    return;
  }
  if (request.kind === 'filesChanged') {
    files.filesChanged(request.paths);
    return;
  }
  // Open documents' texts first: even an analysis that fails below must leave them current.
  files.projectFiles.applyOverlay(request.overlay);
  try {
    // A parser that crashed on an earlier request is reloading: wait for it.
    await initPythonParser(__dirname);
    if (request.kind === 'file') {
      files.recordChanges(request.uri, request.changes);
      send({ kind: 'file', id: request.id, ...files.analyzeFile(request.uri, request.text, request.options, request.project) });
    } else {
      send({ kind: 'notebook', id: request.id, ...files.analyzeCells(request.cells, request.options, request.project) });
    }
  } catch (error) {
    if (error instanceof ParserCrashedError) {
      const cause = error.cause instanceof Error ? error.cause.message : String(error.cause);
      send({ kind: 'parserCrashed', id: request.id, textLength: error.textLength, cause });
      error.reloaded.then(
        (reload) => send({ kind: 'parserReloaded', id: request.id, ms: reload.ms, reloads: reload.reloads }),
        (reloadError: unknown) => send({ kind: 'parserReloadFailed', id: request.id, message: String(reloadError) }),
      );
    } else {
      send({ kind: 'failed', id: request.id, message: error instanceof Error ? error.message : String(error), stack: error instanceof Error ? error.stack : undefined });
    }
  }
}

// Requests are handled in order, each to its end: the main thread sends one analysis at a time.
let queue = Promise.resolve();
let waiting = 0;
port.on('message', (request: AnalysisRequest) => {
  waiting++;
  idleCollection.cancel();
  queue = queue.then(() => handle(request)).finally(() => {
    if (--waiting === 0) idleCollection.schedule();
  });
});

initPythonParser(__dirname).then(
  () => send({ kind: 'ready' }),
  // Reported again by the first request, which waits for the parser too.
  () => send({ kind: 'ready' }),
);
