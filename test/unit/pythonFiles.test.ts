// The project walk that finds the files which may import a linted or open file: it finds
// what `lint` would, and it is bounded by files found and by directory entries read.
import { strict as assert } from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { isInsideFolder, pythonFilesUnder, Walker } from '../../src/node/pythonFiles';

describe('project walk (node/pythonFiles)', () => {
  let tmp: string;
  beforeEach(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dd-walk-')));
    for (const name of ['a.py', 'b.py', 'c.ipynb', 'd.py', 'notes.txt']) fs.writeFileSync(path.join(tmp, name), '');
    fs.mkdirSync(path.join(tmp, 'node_modules'));
    fs.writeFileSync(path.join(tmp, 'node_modules', 'x.py'), '');
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('finds Python files and notebooks in sorted order, skipping what lint skips, and stops at the limit', () => {
    assert.deepEqual(pythonFilesUnder([tmp], 10).map((f) => path.basename(f)), ['a.py', 'b.py', 'c.ipynb', 'd.py']);
    assert.deepEqual(pythonFilesUnder([tmp], 2).map((f) => path.basename(f)), ['a.py', 'b.py']);
  });

  it('reads no further folder once its budget of directory entries is spent', () => {
    fs.mkdirSync(path.join(tmp, 'zz'));
    fs.writeFileSync(path.join(tmp, 'zz', 'late.py'), '');
    const walker = new Walker(Infinity, 3);
    walker.walk(tmp);
    assert.ok(![...walker.found].some((f) => f.endsWith('late.py')), [...walker.found].join(', '));
    const unbounded = new Walker();
    unbounded.walk(tmp);
    assert.ok([...unbounded.found].some((f) => f.endsWith('late.py')));
  });

  it('isInsideFolder: strictly below the folder, at any depth', () => {
    assert.ok(isInsideFolder(path.join(tmp, 'a.py'), tmp));
    assert.ok(isInsideFolder(path.join(tmp, 'x', 'y', 'a.py'), tmp));
    assert.ok(!isInsideFolder(tmp, tmp));
    assert.ok(!isInsideFolder(path.join(path.dirname(tmp), 'other.py'), tmp));
    assert.ok(!isInsideFolder(`${tmp}-sibling/a.py`, tmp));
  });
});
