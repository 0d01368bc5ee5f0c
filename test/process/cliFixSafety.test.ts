// The real bundle as a user runs it, on the files that used to hang it or be changed by it:
// a FIFO and /dev/zero named on the command line, a read-only file, a file owned by
// someone else (run as root), a hard-linked file.
import * as assert from 'assert';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const ROOT = path.join(__dirname, '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');
const DD003_SOURCE = 'import torch\nt = torch.ones(2).to("cuda")\nt.numpy()\n';
const FIXED = 'import torch\nt = torch.ones(2).to("cuda")\nt.cpu().numpy()\n';
/** Far longer than a lint of two small files takes; a child still running then was blocked. */
const HANG_MS = 30_000;

function cli(args: string[], cwd: string) {
  const result = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', timeout: HANG_MS });
  return { status: result.status, signal: result.signal, out: result.stdout, err: result.stderr };
}

describe('cli: lint and --fix on files that are not plain, writable, single-named files', function () {
  this.timeout(120_000);
  let tmp: string;

  before(() => {
    const build = spawnSync(process.execPath, [path.join(ROOT, 'esbuild.js')], { cwd: ROOT, encoding: 'utf8' });
    assert.strictEqual(build.status, 0, `npm run build failed:\n${build.stderr}`);
  });

  beforeEach(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dd-process-fix-')));
    fs.writeFileSync(path.join(tmp, 'train.py'), DD003_SOURCE);
  });

  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('a FIFO and /dev/zero on the command line are reported as not regular files without blocking; the rest is checked', () => {
    const made = spawnSync('mkfifo', [path.join(tmp, 'pipe.py')]);
    assert.strictEqual(made.status, 0, `mkfifo: ${made.stderr}`);
    for (const fix of [[], ['--fix']]) {
      const result = cli(['lint', ...fix, '--select', 'DD003', 'pipe.py', '/dev/zero', 'train.py'], tmp);
      assert.strictEqual(result.signal, null, `lint ${fix.join(' ')} was still running after ${HANG_MS} ms: blocked on the FIFO or /dev/zero`);
      assert.strictEqual(result.err, 'error: pipe.py: not a regular file (a named pipe); skipped\nerror: /dev/zero: not a regular file (a character device); skipped\n');
      assert.match(result.out, fix.length > 0 ? /^Found 1 finding \(1 fixed, 0 remaining\)\. 2 files could not be checked/ : /^train\.py:3:3: DD003 /);
      assert.strictEqual(result.status, 1);
    }
    assert.ok(fs.statSync(path.join(tmp, 'pipe.py')).isFIFO());
  });

  it('--fix refuses a read-only file: a clear message, exit 1, the file unchanged', () => {
    const file = path.join(tmp, 'train.py');
    fs.chmodSync(file, 0o444);
    const result = cli(['lint', '--fix', '--select', 'DD003', 'train.py'], tmp);
    assert.strictEqual(result.err, 'error: train.py: not fixed: the file is read-only (mode 0444); make it writable to apply the fixes\n');
    assert.match(result.out, /^train\.py:3:3: DD003 /);
    assert.strictEqual(result.status, 1);
    assert.strictEqual(fs.readFileSync(file, 'utf8'), DD003_SOURCE);
    assert.strictEqual(fs.statSync(file).mode & 0o7777, 0o444);
  });

  it('--fix keeps mode and owner (run as root, the fixed file still belongs to its user and group)', () => {
    const file = path.join(tmp, 'train.py');
    const root = process.getuid?.() === 0;
    const owner = root ? { uid: 1001, gid: 1002 } : { uid: fs.statSync(file).uid, gid: fs.statSync(file).gid };
    fs.chownSync(file, owner.uid, owner.gid);
    fs.chmodSync(file, 0o640);
    const result = cli(['lint', '--fix', '--select', 'DD003', 'train.py'], tmp);
    assert.strictEqual(result.err, '');
    assert.strictEqual(result.status, 0);
    assert.strictEqual(fs.readFileSync(file, 'utf8'), FIXED);
    const after = fs.statSync(file);
    assert.deepStrictEqual({ uid: after.uid, gid: after.gid, mode: after.mode & 0o7777 }, { ...owner, mode: 0o640 });
  });

  it('--fix on a hard-linked file keeps the link and says so', () => {
    const file = path.join(tmp, 'train.py');
    fs.linkSync(file, path.join(tmp, 'backup.py.orig'));
    const result = cli(['lint', '--fix', '--select', 'DD003', 'train.py'], tmp);
    assert.match(result.err, /^warning: train\.py: not fixed: the file has 2 hard links; --fix writes a new file, which would split them/);
    assert.strictEqual(result.status, 1);
    assert.strictEqual(fs.statSync(file).nlink, 2);
    assert.strictEqual(fs.statSync(file).ino, fs.statSync(path.join(tmp, 'backup.py.orig')).ino);
    assert.strictEqual(fs.readFileSync(file, 'utf8'), DD003_SOURCE);
  });
});
