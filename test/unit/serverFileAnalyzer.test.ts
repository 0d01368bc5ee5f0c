import * as assert from 'assert';
import { analyzeSource, initPythonParser } from '../../src/core/analysis';
import { applyTextEdits } from '../../src/core/python/edits';
import type { TextChange } from '../../src/core/python/document';
import { FileAnalyzer } from '../../src/server/fileAnalyzer';
import { range } from './serverFindings';

const URI = 'file:///w/train.py';
const START = 'import torch\nmodel = Net().to(device)\nfor xb, yb in train_loader:\n    loss = loss_fn(model(xb), yb)\n';

/** What the client does with the same changes: apply them one after another. */
function applyChanges(text: string, changes: TextChange[]): string {
  return changes.reduce((current, change) => (change.range ? applyTextEdits(current, [{ range: change.range, newText: change.text }]) : change.text), text);
}

describe('server: incremental parsing of open files', () => {
  let files: FileAnalyzer;

  before(() => initPythonParser());
  beforeEach(() => (files = new FileAnalyzer()));
  afterEach(() => files.dispose());

  it('parses on the first analysis and keeps the tree', () => {
    assert.strictEqual(files.parsedText(URI), undefined);
    assert.ok(Array.isArray(files.analyze(URI, START, {})));
    assert.strictEqual(files.parsedText(URI), START);
  });

  it('applies buffered incremental changes in order before the next analysis', () => {
    files.analyze(URI, START, {});
    const burst: TextChange[] = [
      { range: range(3, 0, 3, 0), text: '    xb, yb = xb.to(device), yb.to(device)\n' },
      { range: range(0, 12, 0, 12), text: '\nimport numpy as np' },
      { range: range(5, 30, 5, 32), text: 'yb.to(device)' },
    ];
    files.recordChanges(URI, burst.slice(0, 2));
    files.recordChanges(URI, burst.slice(2));
    const expected = applyChanges(START, burst);
    assert.ok(expected.includes('loss_fn(model(xb), yb.to(device))'), expected);
    files.analyze(URI, expected, {});
    assert.strictEqual(files.parsedText(URI), expected);
    assert.deepStrictEqual(files.parses, { full: 1, incremental: 1, spliced: 0 }, 'one re-parse for the whole burst, no rebuild');
  });

  it('splices an edit inside one top-level statement without parsing the file, and parses with every edit when one falls between statements', () => {
    const text = `${START}\ndef evaluate(model, batch):\n    out = model(batch.to(device))\n    return out\n\nevaluate(model, next(iter(train_loader)))\n`;
    files.analyze(URI, text, {});
    const edits: TextChange[] = [
      { range: range(6, 33, 6, 33), text: ' ' }, // inside evaluate's body
      { range: range(7, 14, 7, 14), text: '.cpu().numpy()' }, // again inside it
    ];
    let expected = text;
    for (const edit of edits) {
      files.recordChanges(URI, [edit]);
      expected = applyChanges(expected, [edit]);
      assert.deepStrictEqual(files.analyze(URI, expected, {}), analyzeSource(expected));
    }
    assert.deepStrictEqual(files.parses, { full: 1, incremental: 0, spliced: 2 }, 'no parse of the file for edits inside a function');
    // A new statement between two: the tree-sitter tree, told both earlier edits, is parsed now.
    const between: TextChange = { range: range(9, 0, 9, 0), text: 'x = torch.zeros(2).cuda().numpy()\n' };
    files.recordChanges(URI, [between]);
    expected = applyChanges(expected, [between]);
    assert.deepStrictEqual(files.analyze(URI, expected, {}), analyzeSource(expected));
    assert.deepStrictEqual(files.parses, { full: 1, incremental: 1, spliced: 2 });
  });

  it('handles a full-text replacement among the changes', () => {
    files.analyze(URI, START, {});
    const changes: TextChange[] = [{ text: 'x = 1\n' }, { range: range(0, 4, 0, 5), text: '2' }];
    files.recordChanges(URI, changes);
    files.analyze(URI, 'x = 2\n', {});
    assert.strictEqual(files.parsedText(URI), 'x = 2\n');
    assert.deepStrictEqual(files.parses, { full: 1, incremental: 1, spliced: 0 });
  });

  it('starts over from the client\'s text if the changes do not reproduce it', () => {
    files.analyze(URI, START, {});
    files.recordChanges(URI, [{ range: range(0, 0, 0, 0), text: '# lost change\n' }]);
    files.analyze(URI, 'print("the client says otherwise")\n', {});
    assert.strictEqual(files.parsedText(URI), 'print("the client says otherwise")\n');
    assert.strictEqual(files.parses.full, 2, 'rebuilt from the client\'s text');
  });

  it('ignores changes to a file it has not parsed, and forgets released files', () => {
    files.recordChanges(URI, [{ range: range(0, 0, 0, 0), text: 'x' }]);
    files.analyze(URI, START, {});
    assert.strictEqual(files.parsedText(URI), START);
    assert.deepStrictEqual(files.parses, { full: 1, incremental: 0, spliced: 0 });
    files.release(URI);
    assert.strictEqual(files.parsedText(URI), undefined);
  });

  it('survives garbage and truncated input', () => {
    for (const text of ['def f(:\n  x = torch.', '\u0000\u0001\uffff', 'for xb in loader:\n', ')))']) {
      assert.ok(Array.isArray(files.analyze(URI, text, {})));
    }
  });
});
