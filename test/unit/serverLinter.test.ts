// The linter's decisions with the LSP plumbing faked: what gets published when analysis
// throws, is disabled, or meets a file over the line cap; what closing clears.
import * as assert from 'assert';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { PublishDiagnosticsParams } from 'vscode-languageserver';
import type { AnalyzeOptions, Finding } from '../../src/core/analysis';
import { FileAnalyzer } from '../../src/server/fileAnalyzer';
import { FindingStore } from '../../src/server/findingStore';
import { Linter, LinterDeps } from '../../src/server/linter';
import { ServerLog } from '../../src/server/serverLog';
import { DEFAULT_SETTINGS, ServerSettings } from '../../src/server/settings';
import { numpyOnGpu } from './serverFindings';

const URI = 'file:///w/train.py';

class FakeAnalyzer extends FileAnalyzer {
  result: () => Finding[] = () => [];
  lastOptions?: AnalyzeOptions;
  analyze(_uri: string, _text: string, options: AnalyzeOptions): Finding[] {
    this.lastOptions = options;
    return this.result();
  }
}

function setup(settings: Partial<ServerSettings> = {}) {
  const published: PublishDiagnosticsParams[] = [];
  const logged: string[] = [];
  const open = new Map<string, TextDocument>();
  const console = { error: (m: string) => logged.push(`error ${m}`), warn: (m: string) => logged.push(`warn ${m}`), info: () => undefined, log: () => undefined };
  const files = new FakeAnalyzer();
  const store = new FindingStore();
  const deps = {
    connection: { sendDiagnostics: async (p: PublishDiagnosticsParams) => void published.push(p) },
    documents: { get: (uri: string) => open.get(uri), all: () => [...open.values()] },
    notebooks: { findNotebookDocumentForCell: () => undefined, getNotebookDocument: () => undefined },
    files,
    settings: { get: async () => ({ ...DEFAULT_SETTINGS, ...settings }), forget: () => undefined },
    store,
    log: new ServerLog(console as never),
  } as unknown as LinterDeps;
  const linter = new Linter(deps);
  const openFile = async (text: string, uri = URI) => {
    open.set(uri, TextDocument.create(uri, 'python', 1, text));
    linter.fileOpened(uri);
    await linter.flushFor(uri);
  };
  return { linter, files, store, published, logged, open, openFile };
}

describe('server: the linter', () => {
  it('publishes located findings with the document version and stores them for code actions', async () => {
    const { files, store, published, openFile, linter } = setup();
    files.result = () => [numpyOnGpu()];
    await openFile('import torch\nt_gpu.numpy()\n');
    assert.deepStrictEqual(published.map((p) => [p.uri, p.version, p.diagnostics.map((d) => d.code)]), [[URI, 1, ['DD003']]]);
    assert.strictEqual(store.get(URI).length, 1);
    assert.strictEqual(store.version(URI), 1);
    assert.strictEqual(files.lastOptions?.noqa, true, 'noqa comments are honoured');
    linter.dispose();
  });

  it('logs an analysis that throws and publishes no diagnostics instead of crashing', async () => {
    const { files, published, logged, openFile, linter } = setup();
    files.result = () => {
      throw new Error('analyzer bug');
    };
    await openFile('import torch\n');
    assert.deepStrictEqual(published.map((p) => p.diagnostics), [[]]);
    assert.ok(logged.some((m) => m.startsWith('error') && m.includes('analyzer bug')), logged.join('\n'));
    linter.dispose();
  });

  it('publishes nothing when disabled', async () => {
    const { files, published, openFile, linter } = setup({ enable: false });
    files.result = () => [numpyOnGpu()];
    await openFile('t_gpu.numpy()\n');
    assert.deepStrictEqual(published.map((p) => p.diagnostics), [[]]);
    linter.dispose();
  });

  it('skips files over maxFileLines, saying so once per file', async () => {
    const { files, published, logged, openFile, linter } = setup({ maxFileLines: 3 });
    files.result = () => [numpyOnGpu()];
    await openFile('a\nb\nc\nd\ne\n');
    linter.fileChanged(URI);
    await linter.flushFor(URI);
    assert.deepStrictEqual(published.map((p) => p.diagnostics), [[], []]);
    assert.strictEqual(logged.filter((m) => m.includes('maxFileLines')).length, 1);
    linter.dispose();
  });

  it('clears a closed file\'s diagnostics and stored findings', async () => {
    const { files, store, published, openFile, linter, open } = setup();
    files.result = () => [numpyOnGpu()];
    await openFile('t_gpu.numpy()\n');
    open.delete(URI);
    linter.fileClosed(URI);
    assert.deepStrictEqual(published[published.length - 1], { uri: URI, diagnostics: [] });
    assert.strictEqual(store.get(URI).length, 0);
    linter.dispose();
  });

  it('does not analyse documents in other languages', async () => {
    const { published, open, linter } = setup();
    open.set('file:///w/notes.md', TextDocument.create('file:///w/notes.md', 'markdown', 1, '# hi'));
    linter.fileOpened('file:///w/notes.md');
    await linter.flushFor('file:///w/notes.md');
    assert.deepStrictEqual(published, []);
    linter.dispose();
  });

  it('drops a result that an edit made stale, publishing only the newer version', async () => {
    const { files, published, open, linter } = setup({ debounceMs: 0 });
    const gates: Array<() => void> = [];
    const analysed: string[] = [];
    // As WorkerAnalyzer does: the findings come later.
    files.analyze = ((_uri: string, text: string) => {
      analysed.push(text);
      return new Promise<Finding[]>((resolve) => gates.push(() => resolve([numpyOnGpu()])));
    }) as never;
    open.set(URI, TextDocument.create(URI, 'python', 1, 'a\n'));
    linter.fileOpened(URI);
    while (gates.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    TextDocument.update(open.get(URI)!, [{ text: 'b\n' }], 2);
    linter.fileChanged(URI);
    gates.shift()!();
    const flushed = linter.flushFor(URI);
    while (gates.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    gates.shift()!();
    await flushed;
    assert.deepStrictEqual(analysed, ['a\n', 'b\n']);
    assert.deepStrictEqual(published.map((p) => p.version), [2], 'version 1 finished after the edit: dropped');
    linter.dispose();
  });

  it('waits only the debounce after a slow analysis (no wait that grows with its length)', async () => {
    const { files, published, open, linter } = setup({ debounceMs: 10 });
    let slow = true;
    files.analyze = (() => new Promise<Finding[]>((resolve) => setTimeout(() => resolve([]), slow ? 400 : 0))) as never;
    open.set(URI, TextDocument.create(URI, 'python', 1, 'a\n'));
    linter.fileOpened(URI);
    await linter.flushFor(URI);
    slow = false;
    TextDocument.update(open.get(URI)!, [{ text: 'b\n' }], 2);
    const changed = Date.now();
    linter.fileChanged(URI);
    while (published.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.ok(Date.now() - changed < 300, `published ${Date.now() - changed} ms after the edit; the last analysis took 400 ms`);
    linter.dispose();
  });
});
