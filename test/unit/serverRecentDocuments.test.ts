// The server keeps trees and taped runs only for the documents analysed last (recentDocuments.ts):
// kept for every open document, 30 files of a real repository took it to 800 MB. A document
// left out is parsed and analysed whole again, with the same findings.
import * as assert from 'assert';
import { Worker } from 'worker_threads';
import { analyzeSource, initPythonParser, ModuleTrees } from '../../src/core/analysis';
import type { KeptModule } from '../../src/core/analysis/moduleTrees';
import type { Node } from '../../src/core/python/pyNode';
import { FileAnalyzer } from '../../src/server/fileAnalyzer';
import { KEPT_DOCUMENTS, RecentDocuments } from '../../src/server/recentDocuments';
import { WorkerAnalyzer } from '../../src/server/workerAnalyzer';

const source = (i: number) => `import torch\nx${i} = torch.zeros(2).cuda()\ny${i} = x${i}.numpy()\n`;
const uri = (i: number) => `file:///w/f${i}.py`;

describe('server: state is kept only for the documents analysed last', () => {
  before(() => initPythonParser());

  it('drops the least recently analysed documents past the count, oldest first', () => {
    const recent = new RecentDocuments(2, 1_000);
    assert.deepStrictEqual(recent.use('a', 10), []);
    assert.deepStrictEqual(recent.use('b', 10), []);
    assert.deepStrictEqual(recent.use('a', 10), [], 'a used again: b is now the oldest');
    assert.deepStrictEqual(recent.use('c', 10), ['b']);
    assert.deepStrictEqual([...recent.entries()].map(([u]) => u), ['a', 'c']);
  });

  it('drops documents past the budget of text, but always keeps the one analysed last', () => {
    const recent = new RecentDocuments(4, 100);
    recent.use('a', 40);
    recent.use('b', 40);
    assert.deepStrictEqual(recent.use('c', 40), ['a']);
    assert.deepStrictEqual(recent.use('huge', 500), ['b', 'c']);
    assert.deepStrictEqual([...recent.entries()], [['huge', 500]]);
    assert.ok(recent.forget('huge') && recent.size === 0 && !recent.forget('huge'));
  });

  it('FileAnalyzer keeps the trees of the last two of three documents, and the first, parsed again, finds the same', () => {
    const files = new FileAnalyzer(new RecentDocuments(2, 1_000_000));
    try {
      const first = [0, 1, 2].map((i) => files.analyze(uri(i), source(i), {}));
      assert.strictEqual(files.size, 2);
      assert.strictEqual(files.parsedText(uri(0)), undefined, 'the oldest document keeps no tree');
      assert.strictEqual(files.parsedText(uri(2)), source(2));
      // Its changes reach no tree: the next analysis parses the client's text whole.
      files.recordChanges(uri(0), [{ text: 'ignored' }]);
      const again = files.analyze(uri(0), source(0), {});
      assert.deepStrictEqual(again, first[0]);
      assert.deepStrictEqual(again, analyzeSource(source(0)));
      assert.ok(again.length > 0, 'the sample has findings to compare');
      assert.deepStrictEqual(files.parses, { full: 4, incremental: 0, spliced: 0 });
      assert.strictEqual(files.parsedText(uri(1)), undefined, 'analysing the first again dropped the second');
    } finally {
      files.dispose();
    }
  });

  it('WorkerAnalyzer forgets what its worker drops: no changes forwarded, a whole analysis next', async () => {
    const sent: Array<{ uri: string; changes: number }> = [];
    const echo = `const { parentPort } = require('worker_threads');
      parentPort.on('message', (m) => { if (m.kind === 'file') parentPort.postMessage({ kind: 'file', id: m.id, findings: [{ message: JSON.stringify({ uri: m.uri, changes: m.changes.length }) }] }); });`;
    const analyzer = new WorkerAnalyzer(() => new Worker(echo, { eval: true }));
    try {
      const analyse = async (i: number) => sent.push(JSON.parse((await analyzer.analyze(uri(i), source(i), {}))[0].message));
      for (let i = 0; i <= KEPT_DOCUMENTS; i++) await analyse(i);
      assert.ok(!analyzer.holds(uri(0)) && analyzer.holds(uri(1)) && analyzer.holds(uri(KEPT_DOCUMENTS)));
      const last = KEPT_DOCUMENTS;
      analyzer.recordChanges(uri(0), [{ text: source(0) }]);
      analyzer.recordChanges(uri(last), [{ text: source(last) }]);
      await analyse(last);
      await analyse(0);
      assert.deepStrictEqual(sent.slice(-2), [{ uri: uri(last), changes: 1 }, { uri: uri(0), changes: 0 }]);
    } finally {
      analyzer.dispose();
    }
  });
});

describe('imported modules kept parsed (ModuleTrees)', () => {
  const kept = (text: string): KeptModule => ({ fileText: text, source: text, root: {} as Node, lines: [text], eol: '\n', skipped: [] });

  it('never evicts, past its budget, a module the running analysis used; evicts it once the next begins', () => {
    const trees = new ModuleTrees(10);
    trees.beginAnalysis();
    trees.put('a.py', kept('aaaaaa'));
    trees.put('b.py', kept('bbbbbb'));
    assert.strictEqual(trees.size, 2, 'both belong to the running analysis');
    assert.ok(trees.get('a.py', 'aaaaaa'));
    trees.beginAnalysis();
    assert.ok(trees.get('a.py', 'aaaaaa'), 'used again by the next analysis');
    trees.put('c.py', kept('cccccc'));
    assert.deepStrictEqual([trees.get('a.py', 'aaaaaa') !== undefined, trees.get('b.py', 'bbbbbb'), trees.size], [true, undefined, 2]);
    assert.strictEqual(trees.sourceBytes, 12);
  });

  it('without analyses begun, evicts the least recently used past its budget', () => {
    const trees = new ModuleTrees(10);
    trees.put('a.py', kept('aaaaaa'));
    trees.put('b.py', kept('bbbbbb'));
    assert.deepStrictEqual([trees.size, trees.get('a.py', 'aaaaaa'), trees.sourceBytes], [1, undefined, 6]);
  });
});
