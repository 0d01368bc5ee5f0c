// How every child's output is framed (processOutput.ts), and the rule that keeps it so: only
// src/node/ may touch child_process, so no part of the product starts a process another way.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { ByteCapture, LineSplitter, TextTail } from '../../src/node/processOutput';

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(full) : /\.ts$/.test(entry.name) ? [full] : [];
  });
}

describe('node: process output and the one runner', () => {
  it('hands over whole non-blank lines however the text is chunked, the last one at the end', () => {
    const lines: string[] = [];
    const splitter = new LineSplitter((line) => lines.push(line));
    for (const piece of ['{"a":', '1}\r\n\n  \n{"b"', ':2}\n', 'tail']) splitter.push(piece);
    assert.deepStrictEqual(lines, ['{"a":1}', '{"b":2}']);
    splitter.end();
    assert.deepStrictEqual(lines, ['{"a":1}', '{"b":2}', 'tail']);
  });

  it('drops a runaway line and says so; after close() nothing more is handed over', () => {
    const lines: string[] = [];
    let tooLong = 0;
    const splitter = new LineSplitter((line) => lines.push(line), 10, () => tooLong++);
    splitter.push('x'.repeat(11));
    assert.strictEqual(tooLong, 1);
    splitter.push('ok\n');
    splitter.close();
    splitter.push('late\n');
    splitter.end();
    assert.deepStrictEqual(lines, ['ok']);
  });

  it('stops handing over lines as soon as a line handler closes the splitter', () => {
    const lines: string[] = [];
    const splitter: LineSplitter = new LineSplitter((line) => {
      lines.push(line);
      splitter.close();
    });
    splitter.push('one\ntwo\nthree\n');
    assert.deepStrictEqual(lines, ['one']);
  });

  it('keeps the end of a text, and the start of a byte stream up to its cap', () => {
    const tail = new TextTail(5);
    tail.add('abc');
    tail.add('defg');
    assert.strictEqual(tail.text, 'cdefg');
    const capture = new ByteCapture(4);
    assert.strictEqual(capture.add(Buffer.from('ab')), true);
    assert.strictEqual(capture.add(Buffer.from('cdef')), false);
    assert.deepStrictEqual([capture.text(), capture.truncated], ['abcd', true]);
  });

  it('only src/node/ uses child_process', () => {
    const root = path.join(__dirname, '..', '..', 'src');
    const users = sourceFiles(root)
      .filter((file) => fs.readFileSync(file, 'utf8').includes('child_process'))
      .map((file) => path.relative(root, file).split(path.sep).join('/'));
    assert.ok(users.length > 0);
    assert.deepStrictEqual(users.filter((file) => !file.startsWith('node/')), []);
  });
});
