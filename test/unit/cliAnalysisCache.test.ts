// lint's cache of analyses (src/cli/lint/analysisCache.ts): an unchanged file whose imports
// resolve to the same texts is answered from the cache; an edit to the file, to a module it
// imports, or a new module where an import found none, analyses it again; --no-cache and a
// broken entry analyse as if there were no cache; the findings and skipped statements are
// those the analysis made.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parseArgs, type LintOptions } from '../../src/cli/args';
import { runLintCommand } from '../../src/cli/commands/lint';
import { memoryIo } from '../../src/cli/io';
import type { Analyzer } from '../../src/cli/lint/lintFiles';
import { analyzeNotebook, analyzeSource, initPythonParser, type AnalyzeOptions } from '../../src/core/analysis';
import { clearProjectConfigCache } from '../../src/core/config';

function lintOptions(argv: string[]): LintOptions {
  const invocation = parseArgs(['lint', ...argv]);
  if (invocation.command !== 'lint') throw new Error(`not a lint command line: ${JSON.stringify(invocation)}`);
  return invocation.options;
}

describe('cli: lint keeps a cache of analyses', () => {
  let tmp: string;
  let analysed: string[];
  // The real analyzer, counting the files it is asked about.
  const counting: Analyzer = {
    analyzeSource: (source, options: AnalyzeOptions) => {
      analysed.push(path.basename(options.project?.path ?? '?'));
      return analyzeSource(source, options);
    },
    analyzeNotebook: (cells, options) => {
      analysed.push(path.basename(options.project?.path ?? '?'));
      return analyzeNotebook(cells, options);
    },
  };

  before(async () => {
    await initPythonParser();
  });

  beforeEach(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dd-cli-cache-')));
    analysed = [];
    clearProjectConfigCache();
    fs.writeFileSync(path.join(tmp, 'model.py'), 'import torch.nn as nn\n\n\nclass Net(nn.Module):\n    def forward(self, x):\n        return x\n');
    fs.writeFileSync(path.join(tmp, 'train.py'), [
      'import torch', 'from model import Net', 'import helpers', '',
      'device = torch.device("cuda" if torch.cuda.is_available() else "cpu")',
      'net = Net().to(device)', 'x = torch.randn(2, 3)', 'print(net(x))', 'y = net(x.to(device))', 'print(y.numpy())', '',
    ].join('\n'));
  });

  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  async function lint(argv: string[]) {
    const io = memoryIo(tmp);
    const status = await runLintCommand(lintOptions([...argv, '--format', 'json', 'train.py']), io, counting);
    return { status, out: io.out };
  }

  const cacheDir = () => ['--cache-dir', path.join(tmp, 'cache')];

  it('answers an unchanged file from the cache, with the same findings', async () => {
    const first = await lint(cacheDir());
    assert.deepStrictEqual(analysed, ['train.py']);
    assert.match(first.out, /DD003/);
    const second = await lint(cacheDir());
    assert.deepStrictEqual(analysed, ['train.py'], 'the second run analyses nothing');
    assert.strictEqual(second.out, first.out);
    assert.strictEqual(second.status, first.status);
    assert.ok(fs.readFileSync(path.join(tmp, 'cache', '.gitignore'), 'utf8').includes('*'), 'the folder ignores itself in git');
  });

  it('analyses again after an edit to the file, or to a module it imports', async () => {
    await lint(cacheDir());
    fs.appendFileSync(path.join(tmp, 'train.py'), 'print("more")\n');
    await lint(cacheDir());
    assert.deepStrictEqual(analysed, ['train.py', 'train.py']);
    fs.writeFileSync(path.join(tmp, 'model.py'), 'import torch.nn as nn\nNet = nn.Identity\n');
    await lint(cacheDir());
    assert.deepStrictEqual(analysed, ['train.py', 'train.py', 'train.py']);
  });

  it('analyses again when a module appears where an import found none', async () => {
    await lint(cacheDir());
    fs.writeFileSync(path.join(tmp, 'helpers.py'), 'import torch\n');
    await lint(cacheDir());
    assert.deepStrictEqual(analysed, ['train.py', 'train.py']);
  });

  it('analyses every time with --no-cache, and writes nothing', async () => {
    await lint(['--no-cache']);
    await lint(['--no-cache']);
    assert.deepStrictEqual(analysed, ['train.py', 'train.py']);
    assert.ok(!fs.existsSync(path.join(tmp, '.device_doctor_cache')));
  });

  it('ignores an entry it cannot read and writes it anew', async () => {
    const first = await lint(cacheDir());
    const entries = fs.readdirSync(path.join(tmp, 'cache')).filter((d) => d !== '.gitignore')
      .flatMap((d) => fs.readdirSync(path.join(tmp, 'cache', d)).map((f) => path.join(tmp, 'cache', d, f)));
    assert.strictEqual(entries.length, 1);
    fs.writeFileSync(entries[0], '{"imports": [');
    const second = await lint(cacheDir());
    assert.deepStrictEqual(analysed, ['train.py', 'train.py']);
    assert.strictEqual(second.out, first.out);
    await lint(cacheDir());
    assert.deepStrictEqual(analysed, ['train.py', 'train.py'], 'the rewritten entry is read');
  });

  it('is never used by --fix', async () => {
    await lint([...cacheDir(), '--fix']);
    assert.ok(!fs.existsSync(path.join(tmp, 'cache')));
  });
});
