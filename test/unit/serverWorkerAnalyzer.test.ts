// The main thread's side of the analysis worker, with a stand-in worker thread (a few lines
// of JavaScript evaluated in a real worker_threads Worker): requests run one at a time in
// order, changes are forwarded only to a worker that holds the document, and a worker that
// dies costs only the request it was running: a fresh one takes the next, and the linter
// logs it and goes on with other documents.
import * as assert from 'assert';
import { Worker } from 'worker_threads';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { PublishDiagnosticsParams } from 'vscode-languageserver';
import type { Finding } from '../../src/core/analysis';
import { ParserCrashedError } from '../../src/core/python/parser';
import { FindingStore } from '../../src/server/findingStore';
import { Linter, LinterDeps } from '../../src/server/linter';
import { ServerLog } from '../../src/server/serverLog';
import { DEFAULT_SETTINGS } from '../../src/server/settings';
import { AnalysisStoppedError, AnalysisWorkerCrashedError, WorkerAnalyzer } from '../../src/server/workerAnalyzer';

/** Echoes what it was sent as one finding's message; dies on "EXIT", throws on "THROW", "parser-crashes" on "ABORT". */
const STAND_IN = `
const { parentPort } = require('worker_threads');
const held = new Set();
parentPort.on('message', (m) => {
  if (m.kind === 'release') { held.delete(m.uri); return; }
  const text = m.kind === 'file' ? m.text : m.cells.join('|');
  if (text.includes('EXIT')) process.exit(3);
  if (text.includes('THROW')) throw new Error('stand-in bug');
  if (text.includes('ABORT')) {
    parentPort.postMessage({ kind: 'parserCrashed', id: m.id, textLength: text.length, cause: 'Aborted()' });
    setTimeout(() => parentPort.postMessage({ kind: 'parserReloaded', id: m.id, ms: 7, reloads: 1 }), 5);
    return;
  }
  const message = JSON.stringify({ text, changes: m.kind === 'file' ? m.changes.length : 0, held: held.has(m.uri) });
  held.add(m.uri);
  const finding = { code: 'DD003', message, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } }, severity: 'warning', related: [], fixes: [] };
  parentPort.postMessage({ kind: m.kind, id: m.id, findings: [m.kind === 'file' ? finding : { cellIndex: 0, finding }] });
});
`;

const OPTIONS = { noqa: true };

function standIn() {
  const crashes: Array<[string, string | undefined]> = [];
  let started = 0;
  const analyzer = new WorkerAnalyzer(() => new Worker(STAND_IN, { eval: true }), {
    crashed: (reason, uri) => crashes.push([reason, uri]),
    started: (count) => void (started = count),
  });
  return { analyzer, crashes, started: () => started };
}

const echoed = (findings: Finding[]) => JSON.parse(findings[0].message) as { text: string; changes: number; held: boolean };

describe('server: the analysis worker thread (WorkerAnalyzer)', () => {
  it('analyses in order, forwarding changes only for documents the worker holds', async () => {
    const { analyzer } = standIn();
    try {
      analyzer.recordChanges('a.py', [{ text: 'ignored: a.py was never sent' }]);
      const first = analyzer.analyze('a.py', 'x = 1\n', OPTIONS);
      const other = analyzer.analyze('b.py', 'y = 2\n', OPTIONS);
      assert.strictEqual(analyzer.busy, 2);
      assert.deepStrictEqual(echoed(await first), { text: 'x = 1\n', changes: 0, held: false });
      assert.deepStrictEqual(echoed(await other), { text: 'y = 2\n', changes: 0, held: false });
      analyzer.recordChanges('a.py', [{ text: 'x = 12\n' }]);
      assert.deepStrictEqual(echoed(await analyzer.analyze('a.py', 'x = 12\n', OPTIONS)), { text: 'x = 12\n', changes: 1, held: true });
      analyzer.release('a.py');
      analyzer.recordChanges('a.py', [{ text: 'released: not forwarded' }]);
      assert.deepStrictEqual(echoed(await analyzer.analyze('a.py', 'x = 3\n', OPTIONS)), { text: 'x = 3\n', changes: 0, held: false });
      const [cell] = await analyzer.analyzeNotebook(['a = 1', 'b = 2'], OPTIONS, 'nb.ipynb');
      assert.strictEqual(JSON.parse(cell.finding.message).text, 'a = 1|b = 2');
      assert.strictEqual(analyzer.busy, 0);
    } finally {
      analyzer.dispose();
    }
  });

  it('rejects the request a dying worker ran, starts a fresh worker for the queued ones, and forgets the old trees', async () => {
    const { analyzer, crashes, started } = standIn();
    try {
      await analyzer.analyze('a.py', 'x = 1\n', OPTIONS);
      analyzer.recordChanges('a.py', [{ text: 'x = 2\n' }]);
      const doomed = analyzer.analyze('doomed.py', 'EXIT', OPTIONS);
      const queued = analyzer.analyze('b.py', 'y = 2\n', OPTIONS);
      await assert.rejects(doomed, (error: unknown) => error instanceof AnalysisWorkerCrashedError && error.uri === 'doomed.py' && /exit code 3/.test(error.message));
      assert.deepStrictEqual(echoed(await queued), { text: 'y = 2\n', changes: 0, held: false });
      assert.strictEqual(started(), 2);
      assert.deepStrictEqual(crashes.map(([reason, uri]) => [reason, uri]), [['exit code 3', 'doomed.py']]);
      // The fresh worker holds no tree of a.py: its full text goes, with no stale changes.
      assert.deepStrictEqual(echoed(await analyzer.analyze('a.py', 'x = 2\n', OPTIONS)), { text: 'x = 2\n', changes: 0, held: false });

      await assert.rejects(analyzer.analyze('bug.py', 'THROW', OPTIONS), (error: unknown) => error instanceof AnalysisWorkerCrashedError && /stand-in bug/.test(error.message));
      assert.deepStrictEqual(echoed(await analyzer.analyze('c.py', 'z = 3\n', OPTIONS)), { text: 'z = 3\n', changes: 0, held: false });
      assert.strictEqual(started(), 3);
    } finally {
      analyzer.dispose();
    }
  });

  it('passes a parser crash in the worker on as ParserCrashedError, with its reload', async () => {
    const { analyzer, started } = standIn();
    try {
      const error = await analyzer.analyze('dense.py', 'ABORT', OPTIONS).then(() => undefined, (e: unknown) => e);
      assert.ok(error instanceof ParserCrashedError, String(error));
      assert.match(error.message, /crashed on a text of 5 characters \(Aborted\(\)\); it is being reloaded/);
      assert.deepStrictEqual(await error.reloaded, { ms: 7, reloads: 1 });
      assert.strictEqual(echoed(await analyzer.analyze('next.py', 'ok', OPTIONS)).text, 'ok');
      assert.strictEqual(started(), 1, 'a parser crash is handled inside the worker: no restart');
    } finally {
      analyzer.dispose();
    }
  });

  it('rejects what is waiting when disposed, and everything after', async () => {
    const { analyzer } = standIn();
    const running = analyzer.analyze('a.py', 'x = 1\n', OPTIONS);
    analyzer.dispose();
    await assert.rejects(running, AnalysisStoppedError);
    await assert.rejects(analyzer.analyze('a.py', 'x = 1\n', OPTIONS), AnalysisStoppedError);
  });

  it('the linter logs a worker crash, leaves that document alone until reopened, and analyses the others', async () => {
    const { analyzer, crashes } = standIn();
    const published: PublishDiagnosticsParams[] = [];
    const logged: string[] = [];
    const open = new Map<string, TextDocument>();
    const console = { error: (m: string) => logged.push(`error ${m}`), warn: (m: string) => logged.push(`warn ${m}`), info: (m: string) => logged.push(`info ${m}`), log: () => undefined };
    const linter = new Linter({
      connection: { sendDiagnostics: async (p: PublishDiagnosticsParams) => void published.push(p) },
      documents: { get: (uri: string) => open.get(uri), all: () => [...open.values()] },
      notebooks: { findNotebookDocumentForCell: () => undefined, getNotebookDocument: () => undefined },
      files: analyzer,
      settings: { get: async () => DEFAULT_SETTINGS, forget: () => undefined },
      store: new FindingStore(),
      log: new ServerLog(console as never),
    } as unknown as LinterDeps);
    const openFile = async (uri: string, text: string, version = 1) => {
      open.set(uri, TextDocument.create(uri, 'python', version, text));
      linter.fileOpened(uri);
      await linter.flushFor(uri);
    };
    const lastFor = (uri: string) => [...published].reverse().find((p) => p.uri === uri);
    try {
      await openFile('file:///w/doomed.py', 'EXIT');
      assert.deepStrictEqual(lastFor('file:///w/doomed.py')?.diagnostics, []);
      assert.strictEqual(crashes.length, 1);
      const warning = logged.filter((m) => m.includes('doomed.py'));
      assert.strictEqual(warning.length, 1, logged.join('\n'));
      assert.match(warning[0], /^warn The analysis worker stopped while analysing file:\/\/\/w\/doomed\.py \(exit code 3\).*not analysed again until it is closed and reopened/);

      open.set('file:///w/doomed.py', TextDocument.create('file:///w/doomed.py', 'python', 2, 'EXIT again'));
      linter.fileChanged('file:///w/doomed.py');
      await linter.flushFor('file:///w/doomed.py');
      assert.strictEqual(crashes.length, 1, 'not sent to the worker again');

      await openFile('file:///w/fine.py', 'x = 1\n');
      assert.deepStrictEqual(lastFor('file:///w/fine.py')?.diagnostics.map((d) => d.code), ['DD003']);
      assert.ok(!logged.some((m) => m.startsWith('error')), logged.join('\n'));
    } finally {
      linter.dispose();
      analyzer.dispose();
    }
  });
});
