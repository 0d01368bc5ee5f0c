// Runs in a worker thread (see workerAnalyzer.ts): analyses what the fuzzer sends, so the
// fuzzer's thread can give up on an analysis that does not finish and start a new worker.
import { parentPort } from 'worker_threads';
import { analyzeNotebook, analyzeSource, initPythonParser } from '../../src/core/analysis';

/** `busy` spins for `ms` without answering: the self-check that a hang is caught. */
export type WorkerRequest = { id: number; kind: 'source'; text: string } | { id: number; kind: 'notebook'; cells: string[] } | { id: number; kind: 'busy'; ms: number };
export type WorkerReply = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: { name: string; message: string; stack?: string } };

const port = parentPort!;
const ready = initPythonParser();

port.on('message', (request: WorkerRequest) => {
  void ready.then(() => {
    let reply: WorkerReply;
    try {
      if (request.kind === 'busy') for (const end = Date.now() + request.ms; Date.now() < end; );
      const result = request.kind === 'source' ? analyzeSource(request.text) : request.kind === 'notebook' ? analyzeNotebook(request.cells) : [];
      reply = { id: request.id, ok: true, result };
    } catch (e) {
      const error = e instanceof Error ? e : new Error(String(e));
      reply = { id: request.id, ok: false, error: { name: error.name, message: error.message, stack: error.stack } };
    }
    port.postMessage(reply);
  });
});
