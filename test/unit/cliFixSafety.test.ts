// --fix must never make a file worse: no fix that adds a syntax error is written, no file is
// written through a symbolic link, writes are atomic, and a notebook keeps every byte
// outside the cells that changed.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { AnalyzeOptions, Finding } from '../../src/core/analysis/types';
import { clearProjectConfigCache } from '../../src/core/config';
import { parseArgs, type LintOptions } from '../../src/cli/args';
import { memoryIo } from '../../src/cli/io';
import { runLintCommand } from '../../src/cli/commands/lint';
import type { Analyzer } from '../../src/cli/lint/lintFiles';
import { parseNotebook, serializeNotebook, NotebookWriteError } from '../../src/cli/lint/notebookFile';

/**
 * A stand-in DD003: each `name.numpy()` not after `.cpu()` gets "insert .cpu()"; on a line
 * marked `# bad-fix` the fix inserts `.cpu(` instead, leaving a syntax error behind.
 */
function findings(source: string, _options?: AnalyzeOptions): Finding[] {
  const found: Finding[] = [];
  source.split(/\r\n|\r|\n/).forEach((line, lineNo) => {
    for (const match of line.matchAll(/(\w+)(?<!\.cpu\(\))(?<!\.cpu\()\.numpy\(\)/g)) {
      const start = match.index ?? 0;
      const insertAt = { line: lineNo, character: start + match[1].length };
      found.push({
        code: 'DD003', severity: 'error', related: [], message: `${match[1]} may be on an accelerator`,
        range: { start: { line: lineNo, character: start }, end: { line: lineNo, character: start + match[0].length } },
        fixes: [{ title: 'Insert .cpu() before .numpy()', preferred: true, edits: [{ range: { start: insertAt, end: insertAt }, newText: line.includes('# bad-fix') ? '.cpu(' : '.cpu()' }] }],
      });
    }
  });
  return found;
}

const analyzer: Analyzer = {
  analyzeSource: findings,
  analyzeNotebook: (cells) => cells.flatMap((cell, cellIndex) => findings(cell).map((finding) => ({ finding, cellIndex }))),
};

function lintOptions(argv: string[]): LintOptions {
  const invocation = parseArgs(['lint', ...argv]);
  if (invocation.command !== 'lint') throw new Error(`not a lint command line: ${JSON.stringify(invocation)}`);
  return invocation.options;
}

function notebookText(cells: Array<{ cell_type: string; source: string | string[] }>, indent: number | undefined = 1): string {
  const document = {
    cells: cells.map((c) => (c.cell_type === 'code' ? { ...c, execution_count: null, metadata: {}, outputs: [] } : { ...c, metadata: {} })),
    metadata: { language_info: { name: 'python' } },
    nbformat: 4,
    nbformat_minor: 5,
  };
  return `${JSON.stringify(document, null, indent)}\n`;
}

describe('cli: --fix never makes a file worse', () => {
  let tmp: string;

  beforeEach(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dd-fix-safety-')));
    clearProjectConfigCache();
  });

  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  async function lint(argv: string[], withAnalyzer: Analyzer | undefined = analyzer, cwd = tmp) {
    const io = memoryIo(cwd);
    const status = await runLintCommand(lintOptions(argv), io, withAnalyzer);
    return { status, out: io.out, err: io.err };
  }

  function write(name: string, text: string | Buffer): string {
    const file = path.join(tmp, name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
    return file;
  }

  describe('a fix that would leave a syntax error', () => {
    it('is not written: the file stays as it was, stderr says why, the finding remains, exit 1', async () => {
      const text = 'import torch\nt = torch.ones(2)\nx = t.numpy()  # bad-fix\n';
      const file = write('bad.py', text);
      const good = write('good.py', 'y = u.numpy()\n');
      const { status, out, err } = await lint(['--fix', '.']);
      assert.strictEqual(fs.readFileSync(file, 'utf8'), text);
      assert.strictEqual(err, 'warning: bad.py: fix not applied: it would leave a syntax error (DD003 at line 3: Insert .cpu() before .numpy())\n');
      assert.strictEqual(out, 'bad.py:3:5: DD003 [*] t may be on an accelerator\nFound 2 findings (1 fixed, 1 remaining).\n');
      assert.strictEqual(fs.readFileSync(good, 'utf8'), 'y = u.cpu().numpy()\n');
      assert.strictEqual(status, 1);
    });

    it('keeps the whole file unchanged, the good fixes in it too, and names only the fix to blame', async () => {
      const text = 'a = p.numpy()\nb = q.numpy()  # bad-fix\nc = r.numpy()\n';
      const file = write('mixed.py', text);
      const { status, out, err } = await lint(['--fix', 'mixed.py']);
      assert.strictEqual(fs.readFileSync(file, 'utf8'), text);
      assert.match(err, /^warning: mixed\.py: fix not applied: it would leave a syntax error \(DD003 at line 2: Insert \.cpu\(\) before \.numpy\(\)\)\n$/);
      assert.strictEqual(out.split('\n').filter((l) => l.startsWith('mixed.py:')).length, 3);
      assert.strictEqual(status, 1);
    });

    it('is not written into a notebook either, and the message names the cell', async () => {
      const text = notebookText([{ cell_type: 'markdown', source: '# notes' }, { cell_type: 'code', source: ['x = t.numpy()  # bad-fix\n'] }]);
      const file = write('nb.ipynb', text);
      const { status, err } = await lint(['--fix', 'nb.ipynb']);
      assert.strictEqual(fs.readFileSync(file, 'utf8'), text);
      assert.match(err, /nb\.ipynb: fix not applied: it would leave a syntax error \(DD003 at cell 2, line 1: /);
      assert.strictEqual(status, 1);
    });

    it('still fixes a file that had a syntax error before, as long as the fix adds none', async () => {
      const file = write('broken.py', 'def f(:\n    pass\nx = t.numpy()\n');
      const { err } = await lint(['--fix', 'broken.py']);
      assert.strictEqual(err, '');
      assert.strictEqual(fs.readFileSync(file, 'utf8'), 'def f(:\n    pass\nx = t.cpu().numpy()\n');
    });

    it('lone-CR files are fixed and keep their line breaks (the device analyzer)', async () => {
      const file = write('cr.py', 'import torch\rt = torch.ones(2).to("cuda")\rt.numpy()\r');
      const { status, err } = await lint(['--fix', '--select', 'DD003', 'cr.py'], undefined);
      assert.strictEqual(err, '');
      assert.strictEqual(fs.readFileSync(file, 'utf8'), 'import torch\rt = torch.ones(2).to("cuda")\rt.cpu().numpy()\r');
      assert.strictEqual(status, 0);
    });
  });

  describe('symbolic links and atomic writes', function () {
    before(function () {
      // Creating symbolic links needs a privilege on Windows.
      if (process.platform === 'win32') this.skip();
    });

    it('never writes through a link to a file: reports it as not fixed, still lints it', async () => {
      const outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dd-outside-')));
      try {
        const target = path.join(outside, 'target.py');
        fs.writeFileSync(target, 'x = t.numpy()\n');
        fs.symlinkSync(target, path.join(tmp, 'link.py'));
        const { status, out, err } = await lint(['--fix', '.']);
        assert.strictEqual(fs.readFileSync(target, 'utf8'), 'x = t.numpy()\n');
        assert.ok(fs.lstatSync(path.join(tmp, 'link.py')).isSymbolicLink());
        assert.strictEqual(err, 'warning: link.py: not fixed: a symbolic link\n');
        assert.match(out, /^link\.py:1:5: DD003 \[\*\] t may be on an accelerator\n/);
        assert.strictEqual(status, 1);
        // Without --fix a link is read as before, and nothing is said about it.
        const plain = await lint(['link.py']);
        assert.strictEqual(plain.err, '');
        assert.match(plain.out, /^link\.py:1:5: DD003/);
      } finally {
        fs.rmSync(outside, { recursive: true, force: true });
      }
    });

    it('replaces the file by a rename (a new inode), keeps its mode, and leaves no temporary file', async () => {
      const file = write('train.py', 'x = t.numpy()\n');
      fs.chmodSync(file, 0o751);
      const before = fs.statSync(file);
      const { status } = await lint(['--fix', 'train.py']);
      assert.strictEqual(status, 0);
      const after = fs.statSync(file);
      assert.strictEqual(fs.readFileSync(file, 'utf8'), 'x = t.cpu().numpy()\n');
      assert.notStrictEqual(after.ino, before.ino, 'written in place rather than renamed over');
      assert.strictEqual(after.mode & 0o7777, 0o751);
      assert.deepStrictEqual(fs.readdirSync(tmp), ['train.py']);
    });

    it('--fix on a hard-linked file keeps the link and says so: neither name is changed, the finding is reported', async () => {
      const file = write('a.py', 'x = t.numpy()\n');
      const other = path.join(tmp, 'other.txt');
      fs.linkSync(file, other);
      const { status, out, err } = await lint(['--fix', 'a.py']);
      assert.strictEqual(fs.readFileSync(file, 'utf8'), 'x = t.numpy()\n');
      assert.strictEqual(fs.statSync(file).ino, fs.statSync(other).ino, 'the two names are still one file');
      assert.strictEqual(fs.statSync(file).nlink, 2);
      assert.match(err, /^warning: a\.py: not fixed: the file has 2 hard links; --fix writes a new file, which would split them/);
      assert.match(out, /^a\.py:1:5: DD003 \[\*\]/);
      assert.strictEqual(status, 1);
    });
  });

  describe('notebooks: only the changed cells are rewritten', () => {
    it('leaves every other byte as it was: escapes, big numbers, 1.0, other cells', async () => {
      const text = [
        '{',
        ' "cells": [',
        '  {',
        '   "cell_type": "markdown",',
        '   "metadata": {"ratio": 1.0, "id": 12345678901234567890, "e": 1e400},',
        '   "source": ["Caf\\u00e9 \\/ na\\u00efve"]',
        '  },',
        '  {',
        '   "cell_type": "code",',
        '   "execution_count": 1,',
        '   "metadata": {},',
        '   "outputs": [{"name": "stdout", "output_type": "stream", "text": ["caf\\u00e9\\n"]}],',
        '   "source": [',
        '    "import torch\\n",',
        '    "x = t.numpy()\\n",',
        '    "y = \\"\\u00e9\\""',
        '   ]',
        '  },',
        '  {"cell_type": "code", "execution_count": null, "metadata": {}, "outputs": [], "source": "z = w.numpy()"}',
        ' ],',
        ' "metadata": {"language_info": {"name": "python"}},',
        ' "nbformat": 4,',
        ' "nbformat_minor": 5',
        '}',
        '',
      ].join('\n');
      const file = write('nb.ipynb', text);
      const { status, err } = await lint(['--fix', 'nb.ipynb']);
      assert.strictEqual(err, '');
      assert.strictEqual(status, 0);
      const expected = text
        .replace('"x = t.numpy()\\n"', '"x = t.cpu().numpy()\\n"')
        .replace('"source": "z = w.numpy()"', '"source": "z = w.cpu().numpy()"');
      assert.strictEqual(fs.readFileSync(file, 'utf8'), expected);
    });

    it('keeps non-ASCII as it was written, raw or escaped, in the cells it rewrites', () => {
      const raw = notebookText([{ cell_type: 'code', source: ['s = "é"\n', 'x = t.numpy()'] }]);
      const rawBook = parseNotebook(raw);
      assert.strictEqual(serializeNotebook(rawBook, ['s = "é"\nx = t.cpu().numpy()']), raw.replace('x = t.numpy()', 'x = t.cpu().numpy()'));
      const escaped = raw.replace('é', '\\u00e9');
      const escapedBook = parseNotebook(escaped);
      assert.strictEqual(serializeNotebook(escapedBook, ['s = "é"\nx = t.cpu().numpy()']), escaped.replace('x = t.numpy()', 'x = t.cpu().numpy()'));
    });

    it('lays out lines as the list was laid out: one per line, on one line, or filled in from []', () => {
      const pretty = notebookText([{ cell_type: 'code', source: ['a = 1\n', 'x = t.numpy()'] }]);
      assert.strictEqual(
        serializeNotebook(parseNotebook(pretty), ['a = 1\nx = t.cpu().numpy()\nb = 2']),
        pretty.replace('"x = t.numpy()"', '"x = t.cpu().numpy()\\n",\n    "b = 2"'),
      );
      const compact = notebookText([{ cell_type: 'code', source: ['a = 1\n', 'x = t.numpy()'] }], undefined);
      assert.strictEqual(serializeNotebook(parseNotebook(compact), ['a = 1\nx = t.cpu().numpy()']), compact.replace('x = t.numpy()', 'x = t.cpu().numpy()'));
      const empty = notebookText([{ cell_type: 'code', source: ['x = t.numpy()'] }, { cell_type: 'code', source: [] }]);
      const written = serializeNotebook(parseNotebook(empty), ['x = t.numpy()', 'import numpy\n']);
      assert.strictEqual(written, empty.replace('"source": []', '"source": [\n    "import numpy\\n"\n   ]'));
    });

    it('writes CRLF JSON with CRLF between the lines it adds', () => {
      const crlf = notebookText([{ cell_type: 'code', source: ['a = 1\n', 'x = t.numpy()'] }]).replace(/\n/g, '\r\n');
      const written = serializeNotebook(parseNotebook(crlf), ['a = 1\nx = t.cpu().numpy()\nb = 2']);
      assert.strictEqual(written, crlf.replace('"x = t.numpy()"', '"x = t.cpu().numpy()\\n",\r\n    "b = 2"'));
    });

    it('takes the last of duplicate keys, as JSON.parse does', () => {
      const text = '{"cells": [{"cell_type": "code", "source": "old.numpy()", "source": "x = t.numpy()"}], "metadata": {}}';
      assert.strictEqual(serializeNotebook(parseNotebook(text), ['x = t.cpu().numpy()']), text.replace('"x = t.numpy()"', '"x = t.cpu().numpy()"'));
    });

    it('refuses, rather than guess, when a changed cell has no "source" to write into', async () => {
      const text = '{"cells": [{"cell_type": "code", "metadata": {}}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}\n';
      assert.throws(() => serializeNotebook(parseNotebook(text), ['import numpy\n']), (err: Error) => err instanceof NotebookWriteError && /cell 1 has no "source"/.test(err.message));
    });

    it('refuses to write a notebook it cannot rewrite exactly, and still reports the findings', async () => {
      // A cross-cell fix into a cell with no "source": the notebook is left alone.
      const text = '{"cells": [{"cell_type": "code", "metadata": {}}, {"cell_type": "code", "source": "x = t.numpy()"}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}\n';
      const file = write('odd.ipynb', text);
      const intoFirstCell: Analyzer = {
        analyzeSource: () => [],
        analyzeNotebook: (cells) => analyzer.analyzeNotebook(cells, {}).map((f) => ({
          ...f,
          finding: { ...f.finding, fixes: f.finding.fixes.map((fix) => ({ ...fix, edits: [...fix.edits, { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, newText: 'import numpy\n', cellIndex: 0 }] })) },
        })),
      };
      const { status, out, err } = await lint(['--fix', 'odd.ipynb'], intoFirstCell);
      assert.strictEqual(fs.readFileSync(file, 'utf8'), text);
      assert.match(err, /^warning: odd\.ipynb: fix not applied: cell 1 has no "source" to write the fix into\n$/);
      assert.match(out, /^odd\.ipynb:cell 2:1:5: DD003/);
      assert.strictEqual(status, 1);
    });
  });
});
