// What the linter keeps per document, and when it lets go: trees are released when a file
// closes, a notebook keeps none between analyses, a text over a size limit never reaches
// the parser, and a document that crashed the parser is left alone while others go on.
// Real FileAnalyzer and parser; the LSP connection is faked.
import * as assert from 'assert';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { PublishDiagnosticsParams } from 'vscode-languageserver';
import type { AnalyzeOptions, Finding } from '../../src/core/analysis';
import { initPythonParser, ParserCrashedError } from '../../src/core/python/parser';
import { FileAnalyzer } from '../../src/server/fileAnalyzer';
import { FindingStore } from '../../src/server/findingStore';
import { Linter, LinterDeps } from '../../src/server/linter';
import { ServerLog } from '../../src/server/serverLog';
import { DEFAULT_SETTINGS, ServerSettings } from '../../src/server/settings';

const DD003_SOURCE = 'import torch\nt = torch.tensor([1.0]).to("cuda" if torch.cuda.is_available() else "cpu")\nt.numpy()\n';

interface FakeNotebook {
  uri: string;
  cells: Array<{ kind: number; document: string }>;
}

/** Counts releases, and can be told to crash (as parsePython does) on one document. */
class WatchedAnalyzer extends FileAnalyzer {
  readonly released: string[] = [];
  analysed: string[] = [];
  crashOn?: string;

  analyze(uri: string, text: string, options: AnalyzeOptions): Finding[] {
    this.analysed.push(uri);
    if (uri === this.crashOn) throw new ParserCrashedError(text.length, Promise.resolve({ ms: 42, reloads: 1 }), new Error('Aborted()'));
    return super.analyze(uri, text, options);
  }

  release(uri: string): void {
    this.released.push(uri);
    super.release(uri);
  }
}

function setup(settings: Partial<ServerSettings> = {}) {
  const published: PublishDiagnosticsParams[] = [];
  const logged: string[] = [];
  const open = new Map<string, TextDocument>();
  const notebooks = new Map<string, FakeNotebook>();
  const console = { error: (m: string) => logged.push(`error ${m}`), warn: (m: string) => logged.push(`warn ${m}`), info: (m: string) => logged.push(`info ${m}`), log: () => undefined };
  const files = new WatchedAnalyzer();
  const store = new FindingStore();
  const deps = {
    connection: { sendDiagnostics: async (p: PublishDiagnosticsParams) => void published.push(p) },
    documents: { get: (uri: string) => open.get(uri), all: () => [...open.values()] },
    notebooks: {
      findNotebookDocumentForCell: (cell: string) => [...notebooks.values()].find((n) => n.cells.some((c) => c.document === cell)),
      getNotebookDocument: (uri: string) => notebooks.get(uri),
      getCellTextDocument: (cell: { document: string }) => open.get(cell.document),
    },
    files,
    settings: { get: async () => ({ ...DEFAULT_SETTINGS, ...settings }), forget: () => undefined },
    store,
    log: new ServerLog(console as never),
  } as unknown as LinterDeps;
  const linter = new Linter(deps);
  const openFile = async (uri: string, text: string, version = 1) => {
    open.set(uri, TextDocument.create(uri, 'python', version, text));
    linter.fileOpened(uri);
    await linter.flushFor(uri);
  };
  const changeFile = async (uri: string, text: string, version: number) => {
    open.set(uri, TextDocument.create(uri, 'python', version, text));
    linter.fileChanged(uri);
    await linter.flushFor(uri);
  };
  const closeFile = (uri: string) => {
    open.delete(uri);
    linter.fileClosed(uri);
  };
  const lastFor = (uri: string) => [...published].reverse().find((p) => p.uri === uri);
  return { linter, files, store, published, logged, open, notebooks, openFile, changeFile, closeFile, lastFor };
}

describe('server: memory and size limits per document', () => {
  before(() => initPythonParser());

  it('keeps a tree while a file is open and releases it on close', async () => {
    const { files, openFile, closeFile, lastFor, store, linter } = setup();
    await openFile('file:///w/a.py', DD003_SOURCE);
    await openFile('file:///w/b.py', 'import torch\n');
    assert.deepStrictEqual(lastFor('file:///w/a.py')?.diagnostics.map((d) => d.code), ['DD003']);
    assert.strictEqual(files.size, 2);
    assert.strictEqual(files.parsedText('file:///w/a.py'), DD003_SOURCE);

    closeFile('file:///w/a.py');
    assert.deepStrictEqual(files.released, ['file:///w/a.py']);
    assert.strictEqual(files.parsedText('file:///w/a.py'), undefined);
    assert.strictEqual(files.size, 1, 'the other file keeps its tree');
    assert.deepStrictEqual(lastFor('file:///w/a.py'), { uri: 'file:///w/a.py', diagnostics: [] });
    assert.strictEqual(store.get('file:///w/a.py').length, 0);
    closeFile('file:///w/b.py');
    assert.strictEqual(files.size, 0);
    linter.dispose();
  });

  it('keeps no tree for a notebook between analyses and clears its cells on close', async () => {
    const { files, open, notebooks, linter, lastFor, store } = setup();
    const cell = (id: string) => `vscode-notebook-cell:/w/nb.ipynb#${id}`;
    open.set(cell('a'), TextDocument.create(cell('a'), 'python', 1, 'import torch\nt = torch.tensor([1.0]).to("cuda")\n'));
    open.set(cell('b'), TextDocument.create(cell('b'), 'python', 1, 't.numpy()\n'));
    notebooks.set('file:///w/nb.ipynb', { uri: 'file:///w/nb.ipynb', cells: [{ kind: 2, document: cell('a') }, { kind: 2, document: cell('b') }] });
    linter.notebookOpened('file:///w/nb.ipynb');
    await linter.flushFor(cell('a'));
    assert.deepStrictEqual(lastFor(cell('b'))?.diagnostics.map((d) => d.code), ['DD003']);
    assert.strictEqual(files.size, 0, 'analyzeNotebook frees its trees itself');

    notebooks.delete('file:///w/nb.ipynb');
    linter.notebookClosed('file:///w/nb.ipynb');
    assert.deepStrictEqual(lastFor(cell('b')), { uri: cell('b'), diagnostics: [] });
    assert.strictEqual(store.get(cell('b')).length, 0);
    assert.strictEqual(files.size, 0);
    linter.dispose();
  });

  it('never parses a file over maxFileBytes, says so once, and analyses it once it shrinks', async () => {
    const { files, openFile, changeFile, logged, lastFor, linter } = setup({ maxFileBytes: 1000 });
    const uri = 'file:///w/dense.py';
    const dense = `${DD003_SOURCE}x = ${'1+'.repeat(600)}1\n`;
    await openFile(uri, dense);
    await changeFile(uri, `${dense}\n`, 2);
    assert.deepStrictEqual(files.analysed, [], 'not even parsed');
    assert.strictEqual(files.parses.full, 0);
    assert.deepStrictEqual(lastFor(uri)?.diagnostics, []);
    const warnings = logged.filter((m) => m.includes('maxFileBytes'));
    assert.strictEqual(warnings.length, 1, logged.join('\n'));
    assert.ok(warnings[0].includes(`dense.py has ${Buffer.byteLength(dense).toLocaleString('en-US')} bytes, more than the limit of 1,000 (deviceDoctor.maxFileBytes)`), warnings[0]);

    await changeFile(uri, DD003_SOURCE, 3);
    assert.deepStrictEqual(lastFor(uri)?.diagnostics.map((d) => d.code), ['DD003']);
    linter.dispose();
  });

  it('counts a 50,000-line file with a final line break as 50,000 lines: analysed at the default limit', async () => {
    const { files, openFile, logged, linter } = setup({ maxFileBytes: 0 });
    const text = `import torch\n${Array.from({ length: 49_999 }, (_, i) => `x${i} = ${i}`).join('\n')}\n`;
    await openFile('file:///w/long.py', text);
    assert.deepStrictEqual(files.analysed, ['file:///w/long.py'], logged.join('\n'));
    await openFile('file:///w/longer.py', `${text}y = 1\n`);
    assert.deepStrictEqual(files.analysed, ['file:///w/long.py']);
    assert.ok(logged.some((m) => m.includes('longer.py has 50,001 lines, more than the limit of 50,000 (deviceDoctor.maxFileLines)')), logged.join('\n'));
    linter.dispose();
  });

  it('leaves a document that crashed the parser alone until it is reopened, and analyses the others', async () => {
    const { files, openFile, changeFile, closeFile, logged, lastFor, linter } = setup();
    const doomed = 'file:///w/doomed.py';
    files.crashOn = doomed;
    await openFile(doomed, DD003_SOURCE);
    assert.deepStrictEqual(lastFor(doomed)?.diagnostics, []);
    await changeFile(doomed, `${DD003_SOURCE}\n`, 2);
    assert.deepStrictEqual(files.analysed, [doomed], 'tried once, not on every change');
    await new Promise((resolve) => setImmediate(resolve));
    const crashLog = logged.filter((m) => m.includes('doomed.py') && m.includes('crashed'));
    assert.strictEqual(crashLog.length, 1, logged.join('\n'));
    assert.match(crashLog[0], /^warn .*not analysed again until it is closed and reopened/);
    assert.ok(logged.includes('info The Python parser was reloaded in 42 ms (reload 1 in this process).'), logged.join('\n'));
    assert.ok(!logged.some((m) => m.startsWith('error')), 'a crash is not an analyzer bug');

    await openFile('file:///w/fine.py', DD003_SOURCE);
    assert.deepStrictEqual(lastFor('file:///w/fine.py')?.diagnostics.map((d) => d.code), ['DD003']);

    closeFile(doomed);
    files.crashOn = undefined;
    await openFile(doomed, DD003_SOURCE, 3);
    assert.deepStrictEqual(lastFor(doomed)?.diagnostics.map((d) => d.code), ['DD003'], 'reopened: tried again');
    linter.dispose();
  });
});
