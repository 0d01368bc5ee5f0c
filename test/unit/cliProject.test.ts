// lint gives every file a ProjectContext: its absolute path and a resolver that reads the
// project's .py files (once per run, never throwing). A fake analyzer asks the resolver what
// a real one would, so these tests need no cross-file support in the core.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parseArgs, type LintOptions } from '../../src/cli/args';
import { runLintCommand } from '../../src/cli/commands/lint';
import { memoryIo } from '../../src/cli/io';
import type { Analyzer } from '../../src/cli/lint/lintFiles';
import { projectRoots } from '../../src/cli/lint/projectModules';
import type { AnalyzeOptions } from '../../src/core/analysis';
import { clearProjectConfigCache } from '../../src/core/config';

function lintOptions(argv: string[]): LintOptions {
  const invocation = parseArgs(['lint', ...argv]);
  if (invocation.command !== 'lint') throw new Error(`not a lint command line: ${JSON.stringify(invocation)}`);
  return invocation.options;
}

interface Seen {
  path: string | undefined;
  /** What `import model` resolved to from the analysed file, and its text. */
  model?: { path: string; source: string };
}

describe('cli: lint passes each file its project', () => {
  let tmp: string;
  let seen: Seen[];
  const record = (options: AnalyzeOptions): [] => {
    const project = options.project;
    seen.push({ path: project?.path, model: project ? project.modules.resolve(project.path, 'model', 0) : undefined });
    return [];
  };
  const analyzer: Analyzer = { analyzeSource: (_source, options) => record(options), analyzeNotebook: (_cells, options) => record(options) };

  beforeEach(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dd-cli-project-')));
    seen = [];
    clearProjectConfigCache();
  });

  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  async function lint(argv: string[], cwd = tmp) {
    const io = memoryIo(cwd);
    const status = await runLintCommand(lintOptions(argv), io, analyzer);
    return { status, err: io.err };
  }

  const notebook = JSON.stringify({ cells: [{ cell_type: 'code', source: 'import model\n', metadata: {}, outputs: [] }], metadata: {}, nbformat: 4, nbformat_minor: 5 });

  it('names the file by its absolute path and resolves its imports beside it, for .py files and notebooks', async () => {
    fs.writeFileSync(path.join(tmp, 'train.py'), 'import model\n');
    fs.writeFileSync(path.join(tmp, 'model.py'), 'class Net: pass\n');
    fs.writeFileSync(path.join(tmp, 'explore.ipynb'), notebook);
    await lint(['train.py', 'explore.ipynb']);
    assert.deepStrictEqual(seen, [
      { path: path.join(tmp, 'explore.ipynb'), model: { path: path.join(tmp, 'model.py'), source: 'class Net: pass\n' } },
      { path: path.join(tmp, 'train.py'), model: { path: path.join(tmp, 'model.py'), source: 'class Net: pass\n' } },
    ]);
  });

  it('searches the given folders and the current directory after the file\'s own folder', async () => {
    fs.mkdirSync(path.join(tmp, 'scripts'));
    fs.mkdirSync(path.join(tmp, 'lib'));
    fs.writeFileSync(path.join(tmp, 'scripts', 'train.py'), 'import model\n');
    fs.writeFileSync(path.join(tmp, 'lib', 'model.py'), 'from lib\n');
    await lint(['scripts/train.py', 'lib']);
    const found = seen.find((s) => s.path === path.join(tmp, 'scripts', 'train.py'));
    assert.deepStrictEqual(found?.model, { path: path.join(tmp, 'lib', 'model.py'), source: 'from lib\n' });
    assert.deepStrictEqual(projectRoots(['scripts/train.py', 'lib', 'missing'], tmp), [path.join(tmp, 'scripts'), path.join(tmp, 'lib'), tmp]);
  });

  it('finds nothing outside those roots, and a missing module is undefined, never an error', async () => {
    fs.mkdirSync(path.join(tmp, 'a'));
    fs.mkdirSync(path.join(tmp, 'b'));
    fs.writeFileSync(path.join(tmp, 'a', 'train.py'), 'import model\n');
    fs.writeFileSync(path.join(tmp, 'b', 'model.py'), '');
    const { err } = await lint(['train.py'], path.join(tmp, 'a'));
    assert.strictEqual(err, '');
    assert.deepStrictEqual(seen, [{ path: path.join(tmp, 'a', 'train.py'), model: undefined }]);
  });

  it('does not read a module over --max-bytes, nor one that is not UTF-8 Python', async () => {
    fs.writeFileSync(path.join(tmp, 'train.py'), 'import model\n');
    fs.writeFileSync(path.join(tmp, 'model.py'), `# ${'x'.repeat(500)}\n`);
    await lint(['--max-bytes', '100', 'train.py']);
    assert.deepStrictEqual(seen, [{ path: path.join(tmp, 'train.py'), model: undefined }]);
    seen = [];
    fs.writeFileSync(path.join(tmp, 'model.py'), Buffer.from([0x78, 0x00, 0xff]));
    await lint(['train.py']);
    assert.deepStrictEqual(seen, [{ path: path.join(tmp, 'train.py'), model: undefined }]);
  });

  it('resolves a package folder, never reads the folder itself', async () => {
    fs.writeFileSync(path.join(tmp, 'train.py'), 'import model\n');
    fs.mkdirSync(path.join(tmp, 'model'));
    fs.writeFileSync(path.join(tmp, 'model', '__init__.py'), 'pkg\n');
    await lint(['train.py']);
    assert.deepStrictEqual(seen[0].model, { path: path.join(tmp, 'model', '__init__.py'), source: 'pkg\n' });
  });

  it('runs a file with the files that import it from the folders that hold it, also when only the file is named', async () => {
    const importers: string[][] = [];
    const withImporters: Analyzer = {
      analyzeSource: (_source, options) => {
        importers.push((options.project?.importers?.() ?? []).map((f) => path.relative(tmp, f.path)));
        return [];
      },
      analyzeNotebook: () => [],
    };
    fs.mkdirSync(path.join(tmp, 'pkg'));
    fs.mkdirSync(path.join(tmp, 'elsewhere'));
    fs.writeFileSync(path.join(tmp, 'pkg', 'model.py'), 'class Net: pass\n');
    fs.writeFileSync(path.join(tmp, 'train.py'), 'from pkg.model import Net\n');
    fs.writeFileSync(path.join(tmp, 'pkg', 'other.py'), 'import os\n');
    const lintWith = (argv: string[], cwd: string) => runLintCommand(lintOptions(argv), memoryIo(cwd), withImporters);
    await lintWith(['pkg/model.py'], tmp);
    assert.deepStrictEqual(importers, [['train.py']], 'train.py, not named, is under the current directory that holds model.py');
    importers.length = 0;
    // From a folder that does not hold the file, only the file's own folder is looked through.
    await lintWith([path.join(tmp, 'pkg', 'model.py')], path.join(tmp, 'elsewhere'));
    assert.deepStrictEqual(importers, [[]]);
  });
});
