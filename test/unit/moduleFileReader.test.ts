// ModuleFileReader: the disk side of cross-file analysis. It never throws, reads only .py
// files, and (in the server) notices a file changed on disk by its mtime and size.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ModuleFileReader } from '../../src/node/moduleFileReader';

describe('moduleFileReader', () => {
  let tmp: string;
  beforeEach(() => (tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dd-module-reader-')))));
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('reads .py files and notebooks only (a notebook may import a module), and answers undefined for anything missing, a folder, binary or not UTF-8', () => {
    const reader = new ModuleFileReader({ revalidate: true });
    fs.writeFileSync(path.join(tmp, 'ok.py'), '\uFEFFx = 1\n');
    fs.writeFileSync(path.join(tmp, 'notes.txt'), 'x');
    fs.writeFileSync(path.join(tmp, 'nul.py'), Buffer.from('a\0b'));
    fs.writeFileSync(path.join(tmp, 'latin1.py'), Buffer.from([0x23, 0xe9, 0x0a]));
    fs.mkdirSync(path.join(tmp, 'folder.py'));
    assert.strictEqual(reader.read(path.join(tmp, 'ok.py')), 'x = 1\n', 'the byte-order mark is not part of the text');
    fs.writeFileSync(path.join(tmp, 'lesson.ipynb'), '{"cells": []}');
    assert.strictEqual(reader.read(path.join(tmp, 'lesson.ipynb')), '{"cells": []}');
    for (const name of ['notes.txt', 'nul.py', 'latin1.py', 'folder.py', 'missing.py', 'missing/deeper.py']) {
      assert.strictEqual(reader.read(path.join(tmp, name)), undefined, name);
    }
  });

  it('refuses a file over maxBytes without reading it', () => {
    const reader = new ModuleFileReader({ revalidate: true });
    fs.writeFileSync(path.join(tmp, 'big.py'), 'x'.repeat(1000));
    assert.strictEqual(reader.read(path.join(tmp, 'big.py'), 999), undefined);
    assert.strictEqual(reader.reads, 0);
    assert.strictEqual(reader.read(path.join(tmp, 'big.py'), 1000)?.length, 1000);
    assert.strictEqual(reader.read(path.join(tmp, 'big.py'), 10), undefined, 'the limit applies to a cached text too');
  });

  it('revalidating: reads a file again once its size or mtime changed, else answers from the cache', () => {
    const reader = new ModuleFileReader({ revalidate: true });
    const file = path.join(tmp, 'config.py');
    fs.writeFileSync(file, 'device = "cuda"\n');
    assert.strictEqual(reader.read(file), 'device = "cuda"\n');
    assert.strictEqual(reader.read(file), 'device = "cuda"\n');
    assert.strictEqual(reader.reads, 1);
    fs.writeFileSync(file, 'device = "cpu"\n');
    assert.strictEqual(reader.read(file), 'device = "cpu"\n');
    fs.rmSync(file);
    assert.strictEqual(reader.read(file), undefined);
    fs.writeFileSync(file, 'back\n');
    assert.strictEqual(reader.read(file), 'back\n', 'a file created after a miss is found');
  });

  it('not revalidating (one CLI run): each file is read once, until forgotten', () => {
    const reader = new ModuleFileReader({ revalidate: false });
    const file = path.join(tmp, 'config.py');
    fs.writeFileSync(file, 'one\n');
    assert.strictEqual(reader.read(file), 'one\n');
    fs.writeFileSync(file, 'second\n');
    assert.strictEqual(reader.read(file), 'one\n');
    reader.forget(file);
    assert.strictEqual(reader.read(file), 'second\n');
  });
});
