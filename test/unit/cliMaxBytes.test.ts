// lint skips a file over --max-bytes before parsing it (tree-sitter's wasm aborts on about
// 20 MB of dense input), and reports it as not checked, as it does an unreadable file.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { DEFAULT_MAX_BYTES, parseArgs, type LintOptions } from '../../src/cli/args';
import { runLintCommand } from '../../src/cli/commands/lint';
import { memoryIo } from '../../src/cli/io';
import type { Analyzer } from '../../src/cli/lint/lintFiles';
import { clearProjectConfigCache } from '../../src/core/config';
import { DEFAULT_SETTINGS } from '../../src/server/settings';

function lintOptions(argv: string[]): LintOptions {
  const invocation = parseArgs(['lint', ...argv]);
  if (invocation.command !== 'lint') throw new Error(`not a lint command line: ${JSON.stringify(invocation)}`);
  return invocation.options;
}

describe('cli: lint --max-bytes', () => {
  let tmp: string;
  let analysed: string[];
  /** Records what reached the analyzer (and so the parser); finds one DD003 per text. */
  const analyzer: Analyzer = {
    analyzeSource: (source) => {
      analysed.push(source);
      return [{ code: 'DD003', severity: 'error', related: [], message: 'm', range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } }, fixes: [] }];
    },
    analyzeNotebook: (cells) => {
      analysed.push(cells.join(''));
      return [];
    },
  };

  beforeEach(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dd-max-bytes-')));
    analysed = [];
    clearProjectConfigCache();
  });

  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  async function lint(argv: string[]) {
    const io = memoryIo(tmp);
    const status = await runLintCommand(lintOptions(argv), io, analyzer);
    return { status, out: io.out, err: io.err };
  }

  it('defaults to the editor\'s deviceDoctor.maxFileBytes, and reads --max-bytes N (0: no limit)', () => {
    assert.strictEqual(DEFAULT_MAX_BYTES, DEFAULT_SETTINGS.maxFileBytes);
    assert.strictEqual(lintOptions([]).maxBytes, DEFAULT_MAX_BYTES);
    assert.strictEqual(lintOptions(['--max-bytes', '1000']).maxBytes, 1000);
    assert.strictEqual(lintOptions(['--max-bytes=0']).maxBytes, 0);
    for (const bad of ['-1', '1.5', 'lots', '', '1e3', '99999999999999999999']) {
      const parsed = parseArgs(['lint', '--max-bytes', bad]);
      assert.strictEqual(parsed.command, 'usage-error', bad);
      assert.match((parsed as { message: string }).message, /--max-bytes needs a whole number of bytes, 0 for no limit/, bad);
    }
  });

  it('skips a file over the limit before parsing it: stderr says why, it counts as not checked, exit 1', async () => {
    const big = `x = 1  # ${'é'.repeat(100)}\n`; // 210 bytes in UTF-8, 110 characters
    fs.writeFileSync(path.join(tmp, 'big.py'), big);
    fs.writeFileSync(path.join(tmp, 'small.py'), 'y = 2\n');
    const { status, out, err } = await lint(['--max-bytes', '200', '.']);
    assert.strictEqual(err, 'error: big.py: skipped: 210 bytes, over the limit of 200; --max-bytes to raise it\n');
    assert.deepStrictEqual(analysed, ['y = 2\n'], 'the big file never reached the analyzer');
    assert.match(out, /1 file could not be checked/);
    assert.strictEqual(status, 1);
  });

  it('checks it with a higher limit or with 0, and a file exactly at the limit', async () => {
    fs.writeFileSync(path.join(tmp, 'big.py'), 'x'.repeat(300));
    assert.strictEqual((await lint(['--max-bytes', '300', 'big.py'])).err, '');
    assert.strictEqual((await lint(['--max-bytes', '0', 'big.py'])).err, '');
    assert.strictEqual(analysed.length, 2);
  });

  it('skips a notebook by the size of its code cells, not of its outputs', async () => {
    const notebook = (code: string, output: string) => JSON.stringify({
      cells: [{ cell_type: 'code', execution_count: 1, metadata: {}, outputs: [{ output_type: 'stream', name: 'stdout', text: [output] }], source: [code] }],
      metadata: {}, nbformat: 4, nbformat_minor: 5,
    });
    fs.writeFileSync(path.join(tmp, 'outputs.ipynb'), notebook('x = 1\n', 'o'.repeat(5000)));
    fs.writeFileSync(path.join(tmp, 'code.ipynb'), notebook('x'.repeat(500), ''));
    const { status, err } = await lint(['--max-bytes', '400', '.']);
    assert.strictEqual(err, 'error: code.ipynb: skipped: 500 bytes of code cells, over the limit of 400; --max-bytes to raise it\n');
    assert.deepStrictEqual(analysed, ['x = 1\n']);
    assert.strictEqual(status, 1);
  });

  it('applies the default limit when none is given', async () => {
    fs.writeFileSync(path.join(tmp, 'huge.py'), `s = "${'a'.repeat(DEFAULT_MAX_BYTES)}"\n`);
    const { status, err } = await lint(['huge.py']);
    assert.strictEqual(err, `error: huge.py: skipped: ${DEFAULT_MAX_BYTES + 7} bytes, over the limit of ${DEFAULT_MAX_BYTES}; --max-bytes to raise it\n`);
    assert.strictEqual(analysed.length, 0);
    assert.strictEqual(status, 1);
  });
});
