// ParsedDocument takes the ranges a client sends the way the client's own TextDocument does
// (vscode-languageserver-textdocument, which the server also uses): past a line's end, past
// the document's end, negative, reversed. Its text must then equal the client's, and its
// incrementally re-parsed tree the tree of a fresh parse of that text.
import * as assert from 'assert';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { initPythonParser, parsePython } from '../../src/core/python/parser';
import { ParsedDocument, TextChange } from '../../src/core/python/document';

const START = 'import torch\r\nx = torch.zeros(3)\ny = x.to("cuda")\rz = 1\n';

const r = (sl: number, sc: number, el: number, ec: number) => ({ start: { line: sl, character: sc }, end: { line: el, character: ec } });

const CASES: Array<[string, TextChange]> = [
  ['past the end of the document', { range: r(40, 7, 90, 3), text: 'w = 2\n' }],
  ['past the end of a line', { range: r(1, 500, 1, 900), text: '  # zeros' }],
  ['past a line end into a \\r\\n', { range: r(0, 12, 0, 13), text: '' }],
  ['reversed', { range: r(2, 4, 1, 2), text: 'q' }],
  ['reversed past the end', { range: r(9, 9, 2, 100), text: '\n' }],
  ['negative', { range: r(-3, -1, -1, 0), text: '# head\n' }],
  ['negative character on a line', { range: r(2, -5, 2, 1), text: 'Y' }],
  ['empty range past the end', { range: r(1000, 0, 1000, 0), text: 'x.numpy()\n' }],
];

describe('core: ParsedDocument takes odd ranges as an editor does', () => {
  before(() => initPythonParser());

  for (const [what, change] of CASES) {
    it(`${what}: the same text as the client, and the tree of a fresh parse`, () => {
      const doc = new ParsedDocument(START);
      const client = TextDocument.update(TextDocument.create('file:///w/a.py', 'python', 1, START), [change], 2);
      doc.update([change]);
      assert.strictEqual(doc.text, client.getText());
      const fresh = parsePython(doc.text);
      assert.strictEqual(doc.tree.rootNode.toString(), fresh.rootNode.toString());
      assert.deepStrictEqual(doc.tree.rootNode.endPosition, fresh.rootNode.endPosition);
      fresh.delete();
      doc.dispose();
    });
  }

  it('all of them in one burst', () => {
    const doc = new ParsedDocument(START);
    const changes = CASES.map(([, change]) => change);
    const client = TextDocument.update(TextDocument.create('file:///w/a.py', 'python', 1, START), changes, 2);
    doc.update(changes);
    assert.strictEqual(doc.text, client.getText());
    const fresh = parsePython(doc.text);
    assert.strictEqual(doc.tree.rootNode.toString(), fresh.rootNode.toString());
    fresh.delete();
    doc.dispose();
  });
});
