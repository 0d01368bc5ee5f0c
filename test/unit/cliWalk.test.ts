import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { collectFiles } from '../../src/cli/lint/walk';
import { isLintedFileName } from '../../src/node/pythonFiles';

describe('cli: finding files to lint', () => {
  let tmp: string;

  function touch(relative: string, text = ''): void {
    const file = path.join(tmp, relative);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
  }

  function relative(files: string[]): string[] {
    return files.map((f) => path.relative(tmp, f).split(path.sep).join('/'));
  }

  beforeEach(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dd-walk-')));
  });

  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('finds .py and .ipynb files recursively, in sorted order', () => {
    for (const f of ['z.py', 'a.py', 'pkg/b.py', 'pkg/sub/c.ipynb', 'notes.md', 'data.csv', 'pkg/stub.pyi', 'A.PY']) touch(f);
    assert.deepStrictEqual(relative(collectFiles(['.'], tmp).files), ['A.PY', 'a.py', 'pkg/b.py', 'pkg/sub/c.ipynb', 'z.py']);
  });

  it('skips hidden folders, virtualenvs, caches and build output', () => {
    const skipped = [
      '.git/hooks/x.py', '.venv/lib/x.py', '.tox/x.py', '.ipynb_checkpoints/x.ipynb', 'node_modules/pkg/x.py',
      '__pycache__/x.py', 'venv/lib/x.py', 'lib/site-packages/torch/x.py', 'build/lib/x.py', 'dist/x.py',
    ];
    for (const f of skipped) touch(f);
    touch('myenv/pyvenv.cfg'); // a virtualenv under any name
    touch('myenv/lib/x.py');
    touch('condaenv/conda-meta/history');
    touch('condaenv/lib/x.py');
    touch('src/train.py');
    touch('.hidden_script.py'); // hidden files are checked, only hidden folders are skipped
    assert.deepStrictEqual(relative(collectFiles(['.'], tmp).files), ['.hidden_script.py', 'src/train.py']);
  });

  it('checks a skipped folder when it is named on the command line', () => {
    touch('build/gen.py');
    assert.deepStrictEqual(relative(collectFiles(['build'], tmp).files), ['build/gen.py']);
  });

  it('checks a file named on the command line whatever its extension', () => {
    touch('script');
    assert.deepStrictEqual(relative(collectFiles(['script'], tmp).files), ['script']);
  });

  it('reports missing paths', () => {
    touch('a.py');
    const collected = collectFiles(['a.py', 'nope.py', 'gone/'], tmp);
    assert.deepStrictEqual(relative(collected.files), ['a.py']);
    assert.deepStrictEqual(collected.missing, ['nope.py', 'gone/']);
  });

  it('lists a file once when paths overlap', () => {
    touch('src/a.py');
    assert.deepStrictEqual(relative(collectFiles(['.', 'src', 'src/a.py', './src/../src/a.py'], tmp).files), ['src/a.py']);
  });

  it('does not follow symbolic links to folders, so a loop ends', () => {
    touch('src/a.py');
    // Creating links needs no privilege on Linux and macOS (the platforms CI runs on); a
    // failure here is a real failure, not a reason to skip.
    fs.symlinkSync(tmp, path.join(tmp, 'src/loop'), 'dir');
    fs.symlinkSync(path.join(tmp, 'src/a.py'), path.join(tmp, 'link.py'), 'file');
    fs.symlinkSync(path.join(tmp, 'missing.py'), path.join(tmp, 'dangling.py'), 'file');
    assert.deepStrictEqual(relative(collectFiles(['.'], tmp).files), ['link.py', 'src/a.py']);
  });

  it('recognizes lintable names', () => {
    assert.ok(isLintedFileName('train.py'));
    assert.ok(isLintedFileName('Explore.IPYNB'));
    assert.ok(!isLintedFileName('train.pyc'));
    assert.ok(!isLintedFileName('py'));
  });
});
