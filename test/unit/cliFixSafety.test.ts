// --fix must never make a file worse: no fix that adds a syntax error is written, no file is
// written through a symbolic link, and writes are atomic.
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
      assert.strictEqual(out, 'bad.py:3:5: DD003 [*] t may be on an accelerator\nFound 2 errors (1 fixed, 1 remaining).\n');
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

    it('fixes the file a hard link names without writing into the other name', async () => {
      const file = write('a.py', 'x = t.numpy()\n');
      const other = path.join(tmp, 'other.txt');
      fs.linkSync(file, other);
      await lint(['--fix', 'a.py']);
      assert.strictEqual(fs.readFileSync(file, 'utf8'), 'x = t.cpu().numpy()\n');
      assert.strictEqual(fs.readFileSync(other, 'utf8'), 'x = t.numpy()\n');
    });
  });
});
