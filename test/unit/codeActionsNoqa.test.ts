import * as assert from 'assert';
import { initPythonParser } from '../../src/core/analysis';
import { applyTextEdits } from '../../src/core/python/edits';
import { parsePython } from '../../src/core/python/parser';
import { noqaEdit } from '../../src/server/noqaEdit';

/** Applies the noqa edit for `code` to a one-line text; undefined when no edit is offered. */
function suppress(line: string, code = 'DD003'): string | undefined {
  const edit = noqaEdit(line, 0, code);
  return edit ? applyTextEdits(line, [edit]) : undefined;
}

describe('code actions: "Ignore DDxxx on this line"', () => {
  before(() => initPythonParser());

  it('appends a noqa comment to a line without a comment', () => {
    assert.strictEqual(suppress('t_gpu.numpy()'), 't_gpu.numpy()  # noqa: DD003');
  });

  it('keeps the indentation and drops trailing blanks', () => {
    assert.strictEqual(suppress('        preds.append(out.numpy())   '), '        preds.append(out.numpy())  # noqa: DD003');
  });

  it('appends after an existing ordinary comment, as Ruff does', () => {
    assert.strictEqual(suppress('arr = t.numpy()  # for matplotlib'), 'arr = t.numpy()  # for matplotlib  # noqa: DD003');
  });

  it('adds the code to an existing noqa list', () => {
    assert.strictEqual(suppress('x.to(device)  # noqa: E501', 'DD004'), 'x.to(device)  # noqa: E501, DD004');
    assert.strictEqual(suppress('x.to(device)  # noqa: E501, DD001', 'DD004'), 'x.to(device)  # noqa: E501, DD001, DD004');
    assert.strictEqual(suppress('x.to(device)  # noqa:DD001 because reasons', 'DD004'), 'x.to(device)  # noqa:DD001, DD004 because reasons');
    assert.strictEqual(suppress('x.to(device)  # type: ignore  # noqa: E501', 'DD004'), 'x.to(device)  # type: ignore  # noqa: E501, DD004');
  });

  it('offers nothing when the code is already listed or a bare noqa covers the line', () => {
    assert.strictEqual(suppress('t.numpy()  # noqa: DD003'), undefined);
    assert.strictEqual(suppress('t.numpy()  # noqa: E501,DD003'), undefined);
    assert.strictEqual(suppress('t.numpy()  # NOQA: dd003'), undefined);
    assert.strictEqual(suppress('t.numpy()  # noqa'), undefined);
    assert.strictEqual(suppress('t.numpy()  #noqa'), undefined);
  });

  it('is idempotent: applying its own edit again changes nothing', () => {
    for (const line of ['t.numpy()', 'x.to(d)  # move', 'x.to(d)  # noqa: E501']) {
      const once = suppress(line);
      assert.ok(once, line);
      assert.strictEqual(suppress(once), undefined, once);
    }
  });

  it('is not fooled by # inside strings', () => {
    assert.strictEqual(suppress('print("# noqa", t.numpy())'), 'print("# noqa", t.numpy())  # noqa: DD003');
    assert.strictEqual(suppress("label = f'{x}#{t.numpy()}'"), "label = f'{x}#{t.numpy()}'  # noqa: DD003");
    assert.strictEqual(suppress('s = "a\\"#b"; t.numpy()'), 's = "a\\"#b"; t.numpy()  # noqa: DD003');
    assert.strictEqual(suppress('s = """#"""; t.numpy()'), 's = """#"""; t.numpy()  # noqa: DD003');
  });

  it('offers nothing where a comment would break the code', () => {
    assert.strictEqual(suppress('y = t.numpy() + \\'), undefined, 'after a backslash continuation');
    assert.strictEqual(suppress('doc = """starts here t.numpy()'), undefined, 'inside an open triple-quoted string');
    assert.strictEqual(suppress('    '), undefined, 'blank line');
  });

  it('edits only the given line of a longer file, and the result still parses', () => {
    const source = 'import torch\nt_gpu = torch.tensor([1.0]).to("cuda")\nt_gpu.numpy()\nprint(t_gpu)\n';
    const lines = source.split('\n');
    const edit = noqaEdit(lines[2], 2, 'DD003');
    assert.ok(edit);
    const fixed = applyTextEdits(source, [edit]);
    assert.strictEqual(fixed, 'import torch\nt_gpu = torch.tensor([1.0]).to("cuda")\nt_gpu.numpy()  # noqa: DD003\nprint(t_gpu)\n');
    const tree = parsePython(fixed);
    try {
      assert.strictEqual(tree.rootNode.hasError, false);
    } finally {
      tree.delete();
    }
  });
});
