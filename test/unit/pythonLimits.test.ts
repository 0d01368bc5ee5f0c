// The size limits checked before parsing (src/core/python/limits.ts), shared by the
// language server and the CLI: lines as an editor counts them, bytes as UTF-8 on disk.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { countLines, DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, sizeLimitProblem, utf8Length } from '../../src/core/python/limits';
import { generateTrainingScript } from './helpers/bigScript';
import { DEFAULT_SETTINGS, parseSettings } from '../../src/server/settings';

const ROOT = path.resolve(__dirname, '..', '..');

function linesOf(n: number, eol = '\n'): string {
  return Array.from({ length: n }, (_, i) => `x${i} = ${i}`).join(eol);
}

describe('core: size limits before parsing', () => {
  it('counts lines without the empty one after a final line break', () => {
    assert.strictEqual(countLines(''), 0);
    assert.strictEqual(countLines('x'), 1);
    assert.strictEqual(countLines('x\n'), 1);
    assert.strictEqual(countLines('x\ny'), 2);
    assert.strictEqual(countLines('\n'), 1);
    assert.strictEqual(countLines('x\n\n'), 2, 'a blank last line is a line');
    assert.strictEqual(countLines('a\r\nb\r\n'), 2);
    assert.strictEqual(countLines('a\rb\r'), 2, 'a lone \\r ends a line (lines.ts)');
    assert.strictEqual(countLines('a\r\n\rb'), 3);
  });

  it('counts a 10,000-line file as 10,000 lines with or without its final line break, in every line ending', () => {
    for (const eol of ['\n', '\r\n', '\r']) {
      const body = linesOf(10_000, eol);
      assert.strictEqual(countLines(body), 10_000);
      assert.strictEqual(countLines(body + eol), 10_000);
      assert.strictEqual(sizeLimitProblem(body + eol, { maxLines: 10_000 }), undefined, JSON.stringify(eol));
      const over = sizeLimitProblem(body + eol + 'y = 1' + eol, { maxLines: 10_000 });
      assert.deepStrictEqual(over, { limit: 'maxLines', actual: 10_001, max: 10_000, message: '10,001 lines, more than the limit of 10,000' });
    }
  });

  it('counts UTF-8 bytes of multi-byte text as Node encodes it, lone surrogates as U+FFFD', () => {
    assert.strictEqual(utf8Length(''), 0);
    assert.strictEqual(utf8Length('a'), 1);
    assert.strictEqual(utf8Length('é'), 2);
    assert.strictEqual(utf8Length('€'), 3);
    assert.strictEqual(utf8Length('😀'), 4, 'a surrogate pair is one 4-byte character');
    assert.strictEqual(utf8Length('\ud800'), 3);
    assert.strictEqual(utf8Length('\udc00\ud800x'), 7);
    assert.strictEqual(utf8Length('\ud83dx'), 4, 'a high surrogate without its low half');
    const samples = ['# 温度 = température\nx = "😀"\n', '\u0000\u0001\uffff\ufffe', 'a\ud800b\udfffc\ud83d\ude00', '\u07ff\u0800\u0080\u007f'];
    let seed = 7;
    for (let s = 0; s < 20; s++) {
      let text = '';
      for (let i = 0; i < 200; i++) {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        text += String.fromCharCode(seed % 0x10000);
      }
      samples.push(text);
    }
    for (const text of samples) assert.strictEqual(utf8Length(text), Buffer.byteLength(text, 'utf8'), JSON.stringify(text));
  });

  it('refuses a text over the byte limit by its UTF-8 length, not its UTF-16 length', () => {
    const accents = 'é'.repeat(100); // 100 UTF-16 units, 200 bytes
    assert.deepStrictEqual(sizeLimitProblem(accents, { maxBytes: 199 }), {
      limit: 'maxBytes', actual: 200, max: 199, message: '200 bytes, more than the limit of 199',
    });
    assert.strictEqual(sizeLimitProblem(accents, { maxBytes: 200 }), undefined);
    assert.strictEqual(sizeLimitProblem('😀'.repeat(10), { maxBytes: 40 }), undefined);
    assert.strictEqual(sizeLimitProblem('😀'.repeat(10), { maxBytes: 39 })?.actual, 40);
    assert.strictEqual(sizeLimitProblem('x'.repeat(300), { maxBytes: 300 }), undefined);
    assert.strictEqual(sizeLimitProblem('x'.repeat(301), { maxBytes: 300 })?.actual, 301);
  });

  it('treats 0 (or no value) as no limit, and checks lines before bytes', () => {
    const dense = `x = ${'1+'.repeat(5000)}1\n`;
    assert.strictEqual(sizeLimitProblem(dense, {}), undefined);
    assert.strictEqual(sizeLimitProblem(dense, { maxLines: 0, maxBytes: 0 }), undefined);
    assert.strictEqual(sizeLimitProblem(dense, { maxLines: 1, maxBytes: 1000 })?.limit, 'maxBytes');
    assert.strictEqual(sizeLimitProblem(linesOf(50), { maxLines: 10, maxBytes: 10 })?.limit, 'maxLines');
  });

  it('adds up the cells of a notebook', () => {
    const cells = ['import torch\n', 'x = torch.zeros(3)\n', 'é\n'];
    assert.strictEqual(sizeLimitProblem(cells, { maxLines: 3 }), undefined);
    assert.deepStrictEqual(sizeLimitProblem(cells, { maxLines: 2 })?.actual, 3);
    const bytes = cells.reduce((sum, c) => sum + Buffer.byteLength(c), 0);
    assert.strictEqual(sizeLimitProblem(cells, { maxBytes: bytes }), undefined);
    assert.strictEqual(sizeLimitProblem(cells, { maxBytes: bytes - 1 })?.actual, bytes);
  });

  it('lets a file of the default line limit through the default byte limit when it is ordinary code', () => {
    assert.strictEqual(DEFAULT_MAX_LINES, 50_000);
    const script = generateTrainingScript(DEFAULT_MAX_LINES).text.split('\n').slice(0, DEFAULT_MAX_LINES).join('\n') + '\n';
    assert.strictEqual(countLines(script), DEFAULT_MAX_LINES);
    assert.strictEqual(sizeLimitProblem(script, { maxLines: DEFAULT_MAX_LINES, maxBytes: DEFAULT_MAX_BYTES }), undefined);
    assert.strictEqual(sizeLimitProblem(`${script}x = 1\n`, { maxLines: DEFAULT_MAX_LINES, maxBytes: DEFAULT_MAX_BYTES })?.limit, 'maxLines');
  });

  it('is the server\'s deviceDoctor.maxFileLines, with the manifest\'s default', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    assert.strictEqual(manifest.contributes.configuration.properties['deviceDoctor.maxFileLines'].default, DEFAULT_SETTINGS.maxFileLines);
    assert.strictEqual(DEFAULT_SETTINGS.maxFileLines, DEFAULT_MAX_LINES);
  });

  it('is the server\'s deviceDoctor.maxFileBytes, with the manifest\'s default, 0 allowed', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    const schema = manifest.contributes.configuration.properties['deviceDoctor.maxFileBytes'];
    assert.strictEqual(schema.default, DEFAULT_SETTINGS.maxFileBytes);
    assert.strictEqual(DEFAULT_SETTINGS.maxFileBytes, DEFAULT_MAX_BYTES);
    assert.strictEqual(schema.minimum, 0);
    assert.strictEqual(parseSettings({ maxFileBytes: 1000 }).maxFileBytes, 1000);
    assert.strictEqual(parseSettings({ maxFileBytes: 0 }).maxFileBytes, 0);
    assert.strictEqual(parseSettings({ maxFileBytes: -5 }).maxFileBytes, 0);
    assert.strictEqual(parseSettings({ maxFileBytes: 'big' }).maxFileBytes, DEFAULT_SETTINGS.maxFileBytes);
  });
});
