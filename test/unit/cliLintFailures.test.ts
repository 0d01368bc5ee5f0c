// When `lint` cannot check a file, it says why in plain words and goes on with the others:
// a device named on the command line, tree-sitter's wasm aborting, a notebook nested
// thousands deep. Never "Aborted(). Build with -sASSERTIONS" or "Maximum call stack size exceeded".
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { analyzeSource, initPythonParser } from '../../src/core/analysis';
import type { AnalyzeOptions, Finding } from '../../src/core/analysis/types';
import { clearProjectConfigCache } from '../../src/core/config';
import { isParserReady, parserReloads } from '../../src/core/python/parser';
import { parseArgs, type LintOptions } from '../../src/cli/args';
import { memoryIo } from '../../src/cli/io';
import { runLintCommand } from '../../src/cli/commands/lint';
import type { Analyzer } from '../../src/cli/lint/lintFiles';
import { jsonDepth } from '../../src/cli/lint/notebookFile';
import { collectFiles } from '../../src/cli/lint/walk';

/** What tree-sitter's wasm throws when it aborts (web-tree-sitter's abort()). */
const WasmRuntimeError = (globalThis as unknown as { WebAssembly: { RuntimeError: ErrorConstructor } }).WebAssembly.RuntimeError;

const DD003_SOURCE = 'import torch\nt = torch.ones(2).to("cuda")\nt.numpy()\n';

function lintOptions(argv: string[]): LintOptions {
  const invocation = parseArgs(['lint', ...argv]);
  if (invocation.command !== 'lint') throw new Error(`not a lint command line: ${JSON.stringify(invocation)}`);
  return invocation.options;
}

/** A stand-in DD003 for `x.numpy()`, fixed by inserting `.cpu()`. */
function standInFindings(source: string): Finding[] {
  return source.split('\n').flatMap((line, lineNo) => [...line.matchAll(/(\w+)\.numpy\(\)/g)].map((match): Finding => {
    const at = { line: lineNo, character: (match.index ?? 0) + match[1].length };
    return {
      code: 'DD003', severity: 'error', related: [], message: `${match[1]} may be on an accelerator`,
      range: { start: at, end: at },
      fixes: [{ title: 'Insert .cpu()', preferred: true, edits: [{ range: { start: at, end: at }, newText: '.cpu()' }] }],
    };
  }));
}

describe('cli: lint says plainly why a file was not checked, and checks the rest', function () {
  this.timeout(30_000);
  let tmp: string;

  beforeEach(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dd-lint-failures-')));
    clearProjectConfigCache();
  });

  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  async function lint(argv: string[], analyzer?: Analyzer) {
    const io = memoryIo(tmp);
    const status = await runLintCommand(lintOptions(argv), io, analyzer);
    return { status, out: io.out, err: io.err };
  }

  it('a device named on the command line is skipped, never read, as not a regular file', async () => {
    const collected = collectFiles(['/dev/null'], tmp);
    assert.deepStrictEqual(collected.files, []);
    assert.deepStrictEqual(collected.notRegular, [{ path: '/dev/null', reason: 'not a regular file (a character device); skipped' }]);
    fs.writeFileSync(path.join(tmp, 'train.py'), DD003_SOURCE);
    const { status, out, err } = await lint(['--select', 'DD003', '/dev/null', 'train.py']);
    assert.strictEqual(err, 'error: /dev/null: not a regular file (a character device); skipped\n');
    assert.match(out, /^train\.py:3:3: DD003 .*\nFound 1 error .*\. 1 file could not be checked/);
    assert.strictEqual(status, 1);
  });

  it('a parser abort is reported as the parser failing on that file; the other files keep their results and the parser is replaced', async () => {
    await initPythonParser();
    const reloadsBefore = parserReloads();
    fs.writeFileSync(path.join(tmp, 'a_aborts.py'), '# tree-sitter aborts on this one\n');
    fs.writeFileSync(path.join(tmp, 'b_fine.py'), DD003_SOURCE);
    const aborting: Analyzer = {
      analyzeSource(source: string, options: AnalyzeOptions) {
        // What web-tree-sitter throws when its wasm aborts while the analysis reads a tree.
        if (source.includes('aborts')) throw new WasmRuntimeError('Aborted(). Build with -sASSERTIONS for more info.');
        return analyzeSource(source, options);
      },
      analyzeNotebook: () => [],
    };
    const { status, out, err } = await lint(['--select', 'DD003', '.'], aborting);
    assert.strictEqual(err, 'error: a_aborts.py: the Python parser failed on this file (tree-sitter stopped, most often for lack of memory on very large or dense code); the file was skipped, and the parser reloaded for the other files\n');
    assert.ok(!/Aborted|ASSERTIONS/.test(out + err), out + err);
    // b_fine.py was analysed by a fresh parser, after the aborted one was discarded.
    assert.match(out, /^b_fine\.py:3:3: DD003 /);
    assert.strictEqual(parserReloads(), reloadsBefore + 1);
    await initPythonParser();
    assert.ok(isParserReady());
    assert.strictEqual(status, 1);
  });

  it('a notebook nested thousands deep: --fix says it is too deep to rewrite, keeps it, and reports its findings', async () => {
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    const text = `{"cells": [{"cell_type": "code", "metadata": {"deep": ${deep}}, "source": "x = t.numpy()\\n"}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}\n`;
    const file = path.join(tmp, 'deep.ipynb');
    fs.writeFileSync(file, text);
    const analyzer: Analyzer = { analyzeSource: standInFindings, analyzeNotebook: (cells) => cells.flatMap((cell, cellIndex) => standInFindings(cell).map((finding) => ({ finding, cellIndex }))) };
    const { status, out, err } = await lint(['--fix', 'deep.ipynb'], analyzer);
    assert.strictEqual(err, "warning: deep.ipynb: fix not applied: the notebook's JSON is nested 5,004 levels deep, too deep to check the rewritten notebook\n");
    assert.match(out, /^deep\.ipynb:cell 1:1:6: DD003 /);
    assert.strictEqual(fs.readFileSync(file, 'utf8'), text);
    assert.strictEqual(status, 1);
  });

  it('counts JSON nesting without recursion, ignoring brackets inside strings', () => {
    assert.strictEqual(jsonDepth('{"a": "[[[{{", "b": [[1], {"c": "\\"]]"}]}'), 3);
    assert.strictEqual(jsonDepth(`${'['.repeat(200_000)}${']'.repeat(200_000)}`), 200_000);
    assert.strictEqual(jsonDepth('1'), 0);
  });
});
