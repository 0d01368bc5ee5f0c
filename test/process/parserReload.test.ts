// Tree-sitter's wasm really aborting: 20 MB of '(' exhausts its 2 GB heap. parser.ts must
// then load a fresh copy, keep parsing, and never touch the dead copy's trees again. In
// this layer because it is slow (the doomed parse takes seconds), not because it spawns.
import * as assert from 'assert';
import { analyzeSource } from '../../src/core/analysis';
import { ParsedDocument } from '../../src/core/python/document';
import { initPythonParser, isLiveTree, isParserReady, parsePython, ParserCrashedError, Tree } from '../../src/core/python/parser';

const DD003_SOURCE = 'import torch\nt = torch.tensor([1.0]).to("cuda" if torch.cuda.is_available() else "cpu")\nt.numpy()\n';
const DOOMED = '('.repeat(20_000_000);

describe('parser: reloaded after tree-sitter\'s wasm aborts', function () {
  this.timeout(180_000);

  it('throws ParserCrashedError for the text that killed it, reloads, and parses the next text normally', async () => {
    await initPythonParser();
    const before = new ParsedDocument('import torch\nx = torch.zeros(3)\n');
    const stray: Tree = parsePython('y = 1\n');
    assert.ok(isLiveTree(stray));

    let crash: unknown;
    try {
      parsePython(DOOMED);
    } catch (error) {
      crash = error;
    }
    assert.ok(crash instanceof ParserCrashedError, `a ParserCrashedError, got ${String(crash)}`);
    assert.match(crash.message, /crashed on a text of 20,000,000 characters \(Aborted\(\)/);
    assert.strictEqual(crash.textLength, 20_000_000);
    assert.ok(!isParserReady(), 'no parsing on the dead module');
    assert.throws(() => parsePython('x = 1\n'), /being reloaded/);

    const reload = await crash.reloaded;
    assert.ok(reload.reloads >= 1);
    assert.ok(reload.ms < 10_000, `reloaded in ${reload.ms} ms`);
    assert.ok(isParserReady());

    // The next text is analysed as if nothing had happened.
    assert.deepStrictEqual(analyzeSource(DD003_SOURCE).map((f) => [f.code, f.range.start.line]), [['DD003', 2]]);

    // Trees of the dead copy: never live again; delete() is harmless, anything else says why.
    assert.ok(!isLiveTree(stray));
    assert.doesNotThrow(() => stray.delete());
    assert.throws(() => stray.rootNode.toString(), /crashed and was replaced/);

    // A document parsed before the crash re-parses its text, and incremental edits go on from there.
    assert.strictEqual(before.tree.rootNode.type, 'module');
    assert.ok(isLiveTree(before.tree));
    before.update([{ range: { start: { line: 2, character: 0 }, end: { line: 2, character: 0 } }, text: 'x.numpy()\n' }]);
    assert.strictEqual(before.text, 'import torch\nx = torch.zeros(3)\nx.numpy()\n');
    assert.strictEqual(before.tree.rootNode.toString(), parsePython(before.text).rootNode.toString());
    before.dispose();
  });

  it('survives a second crash the same way (each reload is a fresh copy)', async () => {
    await initPythonParser();
    const error = (() => {
      try {
        parsePython(DOOMED);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    assert.ok(error instanceof ParserCrashedError, String(error));
    const reload = await error.reloaded;
    assert.ok(reload.reloads >= 2, JSON.stringify(reload));
    assert.strictEqual(parsePython('x = 1\n').rootNode.toString(), '(module (expression_statement (assignment left: (identifier) right: (integer))))');
  });
});
