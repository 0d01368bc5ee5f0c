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
import { runCli } from '../../src/cli/main';

const FIXTURE = path.join(__dirname, '..', 'fixtures', 'cli', 'project');

function lintOptions(argv: string[]): LintOptions {
  const invocation = parseArgs(['lint', ...argv]);
  if (invocation.command !== 'lint') throw new Error(`not a lint command line: ${JSON.stringify(invocation)}`);
  return invocation.options;
}

/**
 * Stands in for the analyzer's DD003 so the pipeline (config, walking, notebooks, --fix,
 * writing files) is tested on its own: each `name.numpy()` not already after `.cpu()`
 * is a finding whose fix inserts `.cpu()`. It honours the selection and `# noqa` as the
 * real analyzer must.
 */
function fakeFindings(source: string, options: AnalyzeOptions): Finding[] {
  if (!options.select?.includes('DD003') || options.ignore?.includes('DD003')) return [];
  const findings: Finding[] = [];
  source.split('\n').forEach((line, lineNo) => {
    if (options.noqa !== false && /#\s*noqa/.test(line)) return;
    for (const match of line.matchAll(/(\w+)(?<!\.cpu\(\))\.numpy\(\)/g)) {
      const start = match.index ?? 0;
      const insertAt = { line: lineNo, character: start + match[1].length };
      findings.push({
        code: 'DD003', severity: 'error', related: [], message: `${match[1]} may be on an accelerator`,
        range: { start: { line: lineNo, character: start }, end: { line: lineNo, character: start + match[0].length } },
        fixes: [{ title: 'Insert .cpu() before .numpy()', preferred: true, edits: [{ range: { start: insertAt, end: insertAt }, newText: '.cpu()' }] }],
      });
    }
  });
  return findings;
}

const fakeAnalyzer: Analyzer = {
  analyzeSource: fakeFindings,
  analyzeNotebook: (cells, options) => cells.flatMap((cell, cellIndex) => fakeFindings(cell, options).map((finding) => ({ finding, cellIndex }))),
};

describe('cli: lint pipeline', function () {
  let tmp: string;
  let project: string;

  beforeEach(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dd-lint-')));
    project = path.join(tmp, 'project');
    fs.cpSync(FIXTURE, project, { recursive: true });
    clearProjectConfigCache();
  });

  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  async function run(argv: string[], analyzer?: Analyzer, cwd = project) {
    const io = memoryIo(cwd);
    const status = await runLintCommand(lintOptions(argv), io, analyzer);
    return { status, out: io.out, err: io.err };
  }

  describe('with a stand-in analyzer', () => {
    it('reports the project: per-file-ignores honoured, virtualenvs skipped, notebook cells numbered', async () => {
      const { status, out, err } = await run([], fakeAnalyzer);
      assert.strictEqual(err, '');
      assert.strictEqual(out,
        'notebooks/explore.ipynb:cell 3:1:1: DD003 [*] t_gpu may be on an accelerator\n' +
        'train.py:32:5: DD003 [*] t_gpu may be on an accelerator\n' +
        'Found 2 errors (2 fixable with --fix).\n');
      assert.strictEqual(status, 1);
    });

    it('lets --select on the command line replace the pyproject selection', async () => {
      const { status, out } = await run(['--select', 'DD004'], fakeAnalyzer);
      assert.strictEqual(out, 'All checks passed!\n');
      assert.strictEqual(status, 0);
    });

    it('adds --ignore to the pyproject selection', async () => {
      assert.strictEqual((await run(['--ignore', 'DD0'], fakeAnalyzer)).status, 0);
    });

    it('shows paths relative to the working folder, for any path given', async () => {
      const { out } = await run([path.join(project, 'train.py'), 'notebooks'], fakeAnalyzer, project);
      assert.match(out, /^notebooks\/explore\.ipynb:cell 3:/m);
      assert.match(out, /^train\.py:32:5:/m);
      const fromAbove = await run(['project/train.py'], fakeAnalyzer, tmp);
      assert.match(fromAbove.out, /^project\/train\.py:32:5:/m);
    });

    it('honours # noqa unless --ignore-noqa', async () => {
      fs.writeFileSync(path.join(project, 'quiet.py'), 'a.numpy()  # noqa: DD003\n');
      assert.strictEqual((await run(['quiet.py'], fakeAnalyzer)).status, 0);
      assert.match((await run(['quiet.py', '--ignore-noqa'], fakeAnalyzer)).out, /^quiet\.py:1:1: DD003/m);
    });

    it('prints Ruff JSON with absolute filenames and notebook cells', async () => {
      const { out, status } = await run(['--format', 'json'], fakeAnalyzer);
      const entries = JSON.parse(out);
      assert.strictEqual(status, 1);
      assert.deepStrictEqual(entries.map((e: { filename: string; cell: number | null; location: unknown }) => [e.filename, e.cell, e.location]), [
        [path.join(project, 'notebooks', 'explore.ipynb'), 3, { row: 1, column: 1 }],
        [path.join(project, 'train.py'), null, { row: 32, column: 5 }],
      ]);
    });

    it('prints SARIF with paths relative to the working folder', async () => {
      const log = JSON.parse((await run(['--format', 'sarif'], fakeAnalyzer)).out);
      const uris = log.runs[0].results.map((r: any) => r.locations[0].physicalLocation.artifactLocation.uri);
      assert.deepStrictEqual(uris, ['notebooks/explore.ipynb', 'train.py']);
    });

    it('--fix rewrites files and notebooks in place, keeping the notebook layout, then reports nothing left', async () => {
      const notebookPath = path.join(project, 'notebooks', 'explore.ipynb');
      const notebookBefore = fs.readFileSync(notebookPath, 'utf8');
      const legacyBefore = fs.readFileSync(path.join(project, 'legacy', 'old_train.py'), 'utf8');
      const { status, out } = await run(['--fix'], fakeAnalyzer);
      assert.strictEqual(out, 'Found 2 findings (2 fixed, 0 remaining).\n');
      assert.strictEqual(status, 0);
      assert.match(fs.readFileSync(path.join(project, 'train.py'), 'utf8'), /^ {4}t_gpu\.cpu\(\)\.numpy\(\)$/m);
      const notebookAfter = fs.readFileSync(notebookPath, 'utf8');
      assert.strictEqual(notebookAfter, notebookBefore.replace('"t_gpu.numpy()"', '"t_gpu.cpu().numpy()"'));
      assert.strictEqual(fs.readFileSync(path.join(project, 'legacy', 'old_train.py'), 'utf8'), legacyBefore);
      assert.strictEqual((await run(['--fix'], fakeAnalyzer)).out, 'All checks passed!\n');
    });

    it('leaves files untouched without --fix', async () => {
      const before = fs.readFileSync(path.join(project, 'train.py'));
      await run([], fakeAnalyzer);
      assert.ok(fs.readFileSync(path.join(project, 'train.py')).equals(before));
    });

    it('--exit-zero exits 0 with findings; --quiet drops the summary', async () => {
      const { status, out } = await run(['--exit-zero', '--quiet'], fakeAnalyzer);
      assert.strictEqual(status, 0);
      assert.ok(!out.includes('Found'));
      assert.strictEqual(out.split('\n').filter(Boolean).length, 2);
    });
  });

  describe('errors and exit codes', () => {
    it('reports an unreadable notebook and a binary .py on stderr, checks the rest, exits 1', async () => {
      fs.writeFileSync(path.join(project, 'broken.ipynb'), '{"cells": [');
      fs.writeFileSync(path.join(project, 'blob.py'), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 1]));
      const { status, out, err } = await run(['broken.ipynb', 'blob.py', 'evaluate.py'], fakeAnalyzer);
      assert.match(err, /^error: blob\.py: binary file \(contains NUL bytes\), not Python source$/m);
      assert.match(err, /^error: broken\.ipynb: not valid notebook JSON: /m);
      assert.ok(!/\n\s+at /.test(err), 'no stack trace');
      assert.strictEqual(out, 'No findings in the files checked, but 2 files could not be checked (see the errors above).\n');
      assert.strictEqual(status, 1);
    });

    it('exits 2 on a path that does not exist', async () => {
      const { status, err } = await run(['train.py', 'nope.py'], fakeAnalyzer);
      assert.strictEqual(err, 'error: path not found: nope.py\n');
      assert.strictEqual(status, 2);
    });

    it('exits 2 on a bad pyproject configuration, naming the file', async () => {
      fs.writeFileSync(path.join(project, 'pyproject.toml'), '[tool.device-doctor]\nselect = ["DD999"]\n');
      const { status, out, err } = await run([], fakeAnalyzer);
      assert.strictEqual(err, `error: ${path.join(project, 'pyproject.toml')}: [tool.device-doctor] select: unknown rule code "DD999"\n`);
      assert.strictEqual(out, '');
      assert.strictEqual(status, 2);
    });

    it('warns when there is nothing to check, and exits 0', async () => {
      const empty = path.join(tmp, 'empty');
      fs.mkdirSync(empty);
      const { status, out, err } = await run([], fakeAnalyzer, empty);
      assert.match(err, /no Python files or notebooks found/);
      assert.strictEqual(out, 'All checks passed!\n');
      assert.strictEqual(status, 0);
    });

    it('skips notebooks in other languages', async () => {
      fs.writeFileSync(path.join(project, 'r.ipynb'), JSON.stringify({ cells: [{ cell_type: 'code', source: 'x.numpy()' }], metadata: { kernelspec: { language: 'R' } } }));
      assert.strictEqual((await run(['r.ipynb'], fakeAnalyzer)).status, 0);
    });
  });

  describe('through runCli with the device analyzer', () => {
    it('a notebook message names the cell of a place in another cell ("in cell 3, line 10"), as the editor does', async () => {
      fs.copyFileSync(path.join(__dirname, '..', 'fixtures', 'notebooks', 'device_across_cells.ipynb'), path.join(project, 'across.ipynb'));
      const io = memoryIo(project);
      await runCli(['lint', '--no-cache', '--select', 'DD001', 'across.ipynb'], io);
      assert.match(io.out, /^across\.ipynb:cell 5:.*DD001 .*moved to device in cell 3, line 10\)/m, io.out);
    });

    async function cli(argv: string[], cwd = project) {
      const io = memoryIo(cwd);
      const status = await runCli(argv, io);
      return { status, out: io.out, err: io.err };
    }

    it('passes device-correct evaluation code', async () => {
      const { status, out, err } = await cli(['lint', 'evaluate.py']);
      assert.strictEqual(err, '');
      assert.strictEqual(out, 'All checks passed!\n');
      assert.strictEqual(status, 0);
    });

    it('answers usage errors with exit 2 and a pointer to help', async () => {
      const { status, err } = await cli(['lint', '--format', 'yaml']);
      assert.strictEqual(err, "error: unknown format 'yaml' (choose text, json, sarif)\nRun 'device-doctor help lint' for usage.\n");
      assert.strictEqual(status, 2);
    });

    it('answers an unknown command with exit 2 and a pointer to help', async () => {
      const { status, err } = await cli(['benchmark']);
      assert.strictEqual(err, "error: unknown command 'benchmark'\nRun 'device-doctor --help' for usage.\n");
      assert.strictEqual(status, 2);
    });

    it('checks a 20,000-line file with a finding every tenth line, given --max-bytes 0', async function () {
      this.timeout(120_000); // the analyzer's own speed is tested elsewhere; this is about the CLI coping
      const lines = ['import torch', 'device = torch.device("cuda" if torch.cuda.is_available() else "cpu")'];
      for (let i = 0; i < 20_000; i++) {
        lines.push(i % 10 === 0 ? `x${i} = torch.zeros(3).to("cuda").numpy()` : `x${i} = torch.zeros(${i % 7 + 1}, device=device) * 2`);
      }
      fs.writeFileSync(path.join(tmp, 'huge.py'), `${lines.join('\n')}\n`);
      // 849 KB, under the default --max-bytes (2 MiB); lifted anyway, so the test is about the CLI coping, not the limit.
      const { status, out, err } = await cli(['lint', 'huge.py', '--format', 'json', '--max-bytes', '0'], tmp);
      assert.strictEqual(err, '');
      const rows = (JSON.parse(out) as Array<{ location: { row: number } }>).map((e) => e.location.row);
      // needs the analyzer: one DD003 per tenth line.
      assert.strictEqual(rows.length, 2_000);
      assert.strictEqual(rows[1999], 3 + 19_990);
      assert.strictEqual(status, 1);
    });

    // needs the analyzer: these expect the findings ANALYZER.md specifies.
    it('finds DD003 in the script and in the notebook cell (needs the analyzer)', async () => {
      const { status, out } = await cli(['lint', '--format', 'json']);
      const entries = JSON.parse(out) as Array<{ code: string; filename: string; cell: number | null; location: { row: number } }>;
      assert.deepStrictEqual(entries.map((e) => [path.basename(e.filename), e.cell, e.location.row, e.code]), [
        ['explore.ipynb', 2, 3, 'DD005'], // `.to("cuda")` in a notebook that never checks availability
        ['explore.ipynb', 3, 1, 'DD003'],
        ['train.py', null, 32, 'DD003'],
      ]);
      assert.strictEqual(status, 1);
    });

    it('re-enables DD004 with --select over the pyproject ignore (needs the analyzer)', async () => {
      const { out } = await cli(['lint', 'train.py', '--select', 'DD004']);
      assert.match(out, /^train\.py:35:\d+: DD004 \[\*\] /m);
      assert.match(out, /^Found 1 warning \(1 fixable with --fix\)\.$/m);
    });

    it('--fix inserts .cpu() in the script and the notebook, and a second run is clean (needs the analyzer)', async () => {
      const first = await cli(['lint', '--fix']);
      assert.strictEqual(first.status, 0, first.out);
      assert.match(fs.readFileSync(path.join(project, 'train.py'), 'utf8'), /^ {4}t_gpu\.cpu\(\)\.numpy\(\)$/m);
      const notebook = JSON.parse(fs.readFileSync(path.join(project, 'notebooks', 'explore.ipynb'), 'utf8'));
      assert.deepStrictEqual(notebook.cells[2].source, ['t_gpu.cpu().numpy()']);
      const second = await cli(['lint', '--fix']);
      assert.strictEqual(second.out, 'All checks passed!\n');
    });
  });
});
