// The language server keeps each open file's plain tree and, after an edit, re-reads from
// wasm only the top-level statements whose text changed (pyNode.ts, KeptPlainTree). A
// reused subtree must be indistinguishable from a fresh read: same types, offsets, rows
// and columns, fields and error flags, and the analysis must find the same things.
import * as assert from 'assert';
import { analyzeSource, initPythonParser } from '../../src/core/analysis';
import { parsePython } from '../../src/core/python/parser';
import { recoverFromSyntaxErrors } from '../../src/core/python/recovery';
import { KeptPlainTree, Node, NodeRegistry } from '../../src/core/python/pyNode';
import { FileAnalyzer } from '../../src/server/fileAnalyzer';
import { loadRuleFixtures } from './helpers/fixtures';
import { range } from './serverFindings';

const FIELDS = ['name', 'body', 'function', 'arguments', 'left', 'right', 'operator', 'value', 'object', 'attribute',
  'condition', 'alternative', 'consequence', 'parameters', 'return_type', 'type', 'key', 'subscript', 'module_name', 'alias'];

interface Shape {
  type: string;
  at: string;
  text: string;
  error: boolean;
  fields: Record<string, string>;
  children: Shape[];
}

function shape(node: Node): Shape {
  const fields: Record<string, string> = {};
  for (const f of FIELDS) {
    const c = node.childForFieldName(f);
    if (c) fields[f] = `${c.type}@${c.startIndex}-${c.endIndex}:${c.startPosition.row}.${c.startPosition.column}`;
  }
  const s = node.startPosition;
  const e = node.endPosition;
  return {
    type: node.type, at: `${node.startIndex}-${node.endIndex} ${s.row}.${s.column}-${e.row}.${e.column}`, text: node.text,
    error: node.hasError, fields, children: node.namedChildren.map(shape),
  };
}

function freshShape(text: string): Shape {
  const tree = parsePython(text);
  try {
    return shape(new NodeRegistry().root(tree, text));
  } finally {
    tree.delete();
  }
}

function keptShape(kept: KeptPlainTree, text: string): { shape: Shape; root: Node } {
  const tree = parsePython(text);
  try {
    const root = kept.read(tree, text);
    return { shape: shape(root), root };
  } finally {
    tree.delete();
  }
}

/** Edits a person makes: a line typed in the middle, text before everything, a statement deleted, a half-typed call. */
function editsOf(text: string): string[] {
  const lines = text.split('\n');
  const mid = Math.floor(lines.length / 2);
  const indent = /^\s*/.exec(lines[mid] ?? '')![0];
  return [
    [...lines.slice(0, mid), `${indent}total = total + 1`, ...lines.slice(mid)].join('\n'),
    `# a comment\n\n${text}`,
    [...lines.slice(0, mid), ...lines.slice(mid + 1)].join('\n'),
    [...lines.slice(0, mid), `${indent}print(model(`, ...lines.slice(mid)].join('\n'),
    text.replace(/\n/g, '\r\n'),
    text,
  ];
}

describe('plain tree reuse across edits (KeptPlainTree)', function () {
  // Compute-bound over the whole rule corpus (thousands of analyses or reads): on a busy
  // 2-core CI machine that takes longer than mocha's default 20 s, and nothing here waits.
  this.timeout(240_000);
  before(() => initPythonParser());
  const fixtures = [...loadRuleFixtures('DD001', 'fire'), ...loadRuleFixtures('DD003', 'fire')];

  it('reads the same tree as a fresh read after every edit, on the rule corpus', () => {
    let compared = 0;
    for (const fixture of fixtures) {
      const kept = new KeptPlainTree();
      keptShape(kept, fixture.source);
      // Edits one after another: each read reuses what the one before left.
      for (const edited of editsOf(fixture.source)) {
        assert.deepStrictEqual(keptShape(kept, edited).shape, freshShape(edited), `${fixture.relPath} after an edit`);
        compared++;
      }
    }
    assert.ok(compared >= 60, `compared ${compared} edited trees`);
  });

  it('splices an edit inside a top-level statement to the tree a fresh read gives, or declines', () => {
    let spliced = 0;
    let declined = 0;
    for (const fixture of [...fixtures, ...loadRuleFixtures('DD002', 'fire'), ...loadRuleFixtures('DD015', 'fire')]) {
      const kept = new KeptPlainTree();
      let text = fixture.source;
      keptShape(kept, text);
      // Typed in the middle of every line in turn, then taken back: inside statements, between them, in comments and strings.
      const lines = text.split('\n');
      for (let row = 0; row < lines.length; row++) {
        const start = lines.slice(0, row).reduce((n, l) => n + l.length + 1, 0) + Math.floor(lines[row].length / 2);
        for (const edit of [{ start, oldEnd: start, text: 'z' }, { start, oldEnd: start + 1, text: '' }]) {
          const next = text.slice(0, edit.start) + edit.text + text.slice(edit.oldEnd);
          const root = kept.splice([edit], next);
          if (root) {
            assert.deepStrictEqual(shape(root), freshShape(next), `${fixture.relPath}: spliced at line ${row + 1}`);
            spliced++;
          } else {
            declined++;
            keptShape(kept, next);
          }
          text = next;
        }
      }
    }
    assert.ok(spliced > 200 && declined > 20, `spliced ${spliced}, declined ${declined}`);
  });

  it('after a burst whose later edit cannot be spliced, the read from the text is a fresh read and keeps no line', () => {
    const kept = new KeptPlainTree();
    const before = 'import torch\n\ndef f(x):\n    return x + 1\n\ny = f(torch.ones(2))\n';
    keptShape(kept, before);
    const inside = before.indexOf('x + 1') + 4;
    const first = { start: inside, oldEnd: inside + 1, text: '2' }; // inside f: splices
    const between = before.indexOf('\ny = ');
    const second = { start: between, oldEnd: between, text: '\nz = 3' }; // between statements: cannot
    const after = before.slice(0, inside) + '2' + before.slice(inside + 1, between) + '\nz = 3' + before.slice(between);
    assert.strictEqual(kept.splice([first, second], after), undefined);
    assert.deepStrictEqual(keptShape(kept, after).shape, freshShape(after));
    assert.strictEqual(kept.keptEveryLine, false, 'the statements moved since the last analysis saw them');
  });

  it('after a half-typed statement, the next keystroke keeps every line: it is never spliced into the text with that statement blanked', () => {
    // Analysis reads the text with the broken statement blanked (recovery.ts). The next edit
    // is made to the document's text; spliced into the blanked one it came out as a splice
    // that gave up, which said every statement had moved and re-ran each run that reported.
    const kept = new KeptPlainTree();
    const half = 'import torch\n\ndef f(x):\n    total = total +\n    return x\n\nz = f(torch.ones(2))\n';
    const readRecovered = (text: string) => {
      const tree = parsePython(text);
      const recovered = recoverFromSyntaxErrors(tree, text);
      try {
        assert.ok(recovered.owned, 'the text has a broken statement to blank');
        kept.read(recovered.tree, recovered.text, recovered.owned);
      } finally {
        if (recovered.owned) recovered.tree.delete();
        tree.delete();
      }
    };
    readRecovered(half);
    const at = half.indexOf('total +') + 7;
    const next = `${half.slice(0, at)} ${half.slice(at)}`;
    assert.strictEqual(kept.splice([{ start: at, oldEnd: at, text: ' ' }], next), undefined);
    readRecovered(next);
    assert.strictEqual(kept.keptEveryLine, true, 'no statement moved: findings made on the last analysis are on their lines');
  });

  it('takes over the nodes of statements an edit did not touch, and re-reads the edited one', () => {
    const text = 'import torch\n\ndef f(x):\n    return x + 1\n\ny = f(torch.ones(2))\n';
    const kept = new KeptPlainTree();
    const before = keptShape(kept, text).root;
    const after = keptShape(kept, text.replace('return x + 1', 'return x + 2')).root;
    assert.strictEqual(after.namedChildren[0], before.namedChildren[0], 'the import is the same object');
    assert.strictEqual(after.namedChildren[2], before.namedChildren[2], 'the statement after the edit is the same object, moved');
    assert.notStrictEqual(after.namedChildren[1], before.namedChildren[1], 'the edited function is read again');
    assert.strictEqual(after.namedChildren[1].text, 'def f(x):\n    return x + 2');
  });

  it('moves a statement that shares its line with an edited one to its new columns, and one below to its new rows', () => {
    const kept = new KeptPlainTree();
    const before = 'import torch\nx = 1; y = torch.ones(2)\nz = y.cuda()\n';
    const first = keptShape(kept, before);
    const y = first.root.namedChildren[2]!;
    const z = first.root.namedChildren[3]!;
    assert.strictEqual(y.startPosition.column, 7, 'read (and cached) before the edit');
    const after = 'import torch\nx = 123; y = torch.ones(2)\n\nz = y.cuda()\n';
    const second = keptShape(kept, after);
    assert.deepStrictEqual(second.shape, freshShape(after));
    assert.strictEqual(second.root.namedChildren[2], y, 'y = … was taken over');
    assert.strictEqual(second.root.namedChildren[3], z, 'z = … was taken over');
    assert.deepStrictEqual([y.startPosition, y.endPosition], [{ row: 1, column: 9 }, { row: 1, column: 26 }]);
    assert.deepStrictEqual(z.namedChildren[0]!.startPosition, { row: 3, column: 0 });
  });

  it('never reuses a statement with a syntax error', () => {
    const broken = 'import torch\nx = torch.ones(2\ny = 1\n';
    const kept = new KeptPlainTree();
    keptShape(kept, broken);
    const fixed = 'import torch\nx = torch.ones(2)\ny = 1\n';
    assert.deepStrictEqual(keptShape(kept, fixed).shape, freshShape(fixed));
  });

  it('finds in the server what a fresh analysis finds, after edits', () => {
    const files = new FileAnalyzer();
    try {
      let checked = 0;
      for (const fixture of fixtures) {
        const uri = `file:///w/${fixture.relPath}`;
        let current = fixture.source;
        files.analyze(uri, current, {});
        // One line typed at the top (every statement moves) and removed again, then a mid-file edit.
        const steps: Array<{ line: number; text: string }> = [{ line: 0, text: '# note\n' }];
        for (const step of steps) {
          files.recordChanges(uri, [{ range: range(step.line, 0, step.line, 0), text: step.text }]);
          current = step.text + current;
          assert.deepStrictEqual(files.analyze(uri, current, {}), analyzeSource(current), `${fixture.relPath}`);
          checked++;
        }
        for (const edited of editsOf(current)) {
          files.recordChanges(uri, [{ text: edited }]);
          assert.deepStrictEqual(files.analyze(uri, edited, {}), analyzeSource(edited), `${fixture.relPath} after an edit`);
          checked++;
        }
        files.release(uri);
      }
      assert.ok(checked >= 60, `checked ${checked} analyses`);
    } finally {
      files.dispose();
    }
  });
});
