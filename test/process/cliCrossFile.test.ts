// Cross-file analysis through the bundled CLI: train.py's DD001 is certain only because
// model.py defines Net (an nn.Module) and config.py says the device is CUDA. Alone, train.py
// gets a hedged one ("may be on an accelerator": `device` is unknown); with a CPU device in
// config.py, none. A factory function in model.py that uses config.py's device (an import
// of an import) is silent alone and found across the three files.
import * as assert from 'assert';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { buildDist, CLI_JS as CLI, ROOT } from './workerTestKit';

const PROJECT = path.join(ROOT, 'test', 'fixtures', 'workspace', 'crossfile');

interface JsonRow {
  code: string;
  message: string;
  filename: string;
  location: { row: number; column: number };
}

function lintJson(args: string[], cwd: string): JsonRow[] {
  const result = spawnSync(process.execPath, [CLI, 'lint', '--format', 'json', ...args], { cwd, encoding: 'utf8', timeout: 60_000 });
  assert.strictEqual(result.stderr, '', 'nothing on stderr');
  return JSON.parse(result.stdout) as JsonRow[];
}

/** `code file:row:column`, the filename relative to `base`, and whether the finding hedges ("may be"). */
function rows(found: JsonRow[], base: string): string[] {
  return found.map((f) => `${f.code} ${path.relative(base, f.filename)}:${f.location.row}:${f.location.column}${/ may be /.test(f.message) ? ' (may be)' : ''}`);
}

describe('cli: lint across files', function () {
  this.timeout(120_000);
  let tmp: string;

  before(() => buildDist());

  beforeEach(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dd-crossfile-')));
    for (const name of ['train.py', 'model.py', 'config.py']) fs.copyFileSync(path.join(PROJECT, name), path.join(tmp, name));
  });

  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('finds the model input left on the CPU, through the imported Net and device', () => {
    // `model(x)` on line 8: x (column 7) never moved to config.py's CUDA device.
    // config.py's torch.device("cuda") is hard-coded CUDA (DD005), true as well.
    assert.deepStrictEqual(rows(lintJson(['.'], tmp), tmp), ['DD005 config.py:4:23', 'DD001 train.py:8:7']);
  });

  it('finds it when only train.py is named: its own folder is searched first', () => {
    assert.deepStrictEqual(rows(lintJson(['train.py'], tmp), tmp), ['DD001 train.py:8:7']);
  });

  it('finds it from another directory, through the path given', () => {
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'dd-crossfile-cwd-'));
    try {
      assert.deepStrictEqual(rows(lintJson([path.join(tmp, 'train.py')], elsewhere), tmp), ['DD001 train.py:8:7']);
    } finally {
      fs.rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('only hedges on train.py alone: without config.py its device is unknown', () => {
    fs.rmSync(path.join(tmp, 'model.py'));
    fs.rmSync(path.join(tmp, 'config.py'));
    assert.deepStrictEqual(rows(lintJson(['.'], tmp), tmp), ['DD001 train.py:8:7 (may be)']);
  });

  it('says nothing when config.py puts the device on the CPU', () => {
    fs.writeFileSync(path.join(tmp, 'config.py'), 'import torch\n\ndevice = torch.device("cpu")\n');
    assert.deepStrictEqual(rows(lintJson(['.'], tmp), tmp), []);
  });

  it('follows a factory function of model.py that uses config.py\'s device; silent without them', () => {
    fs.appendFileSync(path.join(tmp, 'model.py'), '\n\nfrom config import device\n\n\ndef build():\n    return Net().to(device)\n');
    fs.writeFileSync(path.join(tmp, 'train.py'), 'import torch\nfrom model import build\n\nmodel = build()\nx = torch.randn(4, 10)\nmodel(x)\n');
    assert.deepStrictEqual(rows(lintJson(['train.py'], tmp), tmp), ['DD001 train.py:6:7']);
    fs.rmSync(path.join(tmp, 'model.py'));
    assert.deepStrictEqual(rows(lintJson(['train.py'], tmp), tmp), []);
  });

  describe('facts from the files that import the linted one', () => {
    const IMPORTERS = path.join(ROOT, 'test', 'fixtures', 'workspace', 'importers');
    let project: string;
    beforeEach(() => {
      project = path.join(tmp, 'importers');
      fs.mkdirSync(project);
      for (const name of ['tagger.py', 'run_tagger.py']) fs.copyFileSync(path.join(IMPORTERS, name), path.join(project, name));
    });

    it('finds DD015 in tagger.py because run_tagger.py moves the model; the related place is in run_tagger.py', () => {
      assert.deepStrictEqual(rows(lintJson(['--no-cache', '.'], project), project), ['DD015 tagger.py:14:17']);
      const sarif = spawnSync(process.execPath, [CLI, 'lint', '--no-cache', '--format', 'sarif', '.'], { cwd: project, encoding: 'utf8', timeout: 60_000 });
      const result = JSON.parse(sarif.stdout).runs[0].results[0];
      const places = result.relatedLocations.map((r: { physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number } } }) =>
        `${r.physicalLocation.artifactLocation.uri}:${r.physicalLocation.region.startLine}`);
      assert.ok(places.includes('run_tagger.py:6'), places.join(', '));
      assert.match(result.message.text, /line 6 of run_tagger\.py/);
    });

    it('gives tagger.py linted alone what `lint .` gives it, and is silent once the importer stops moving the model (the cache follows the importer)', () => {
      assert.deepStrictEqual(rows(lintJson(['tagger.py'], project), project), ['DD015 tagger.py:14:17']);
      assert.deepStrictEqual(rows(lintJson(['.'], project), project), ['DD015 tagger.py:14:17']);
      const runner = path.join(project, 'run_tagger.py');
      fs.writeFileSync(runner, fs.readFileSync(runner, 'utf8').replace('Tagger().to(device)', 'Tagger()').replace(', device=device)', ')'));
      assert.deepStrictEqual(rows(lintJson(['.'], project), project), []);
      assert.deepStrictEqual(rows(lintJson(['tagger.py'], project), project), []);
    });
  });
});
