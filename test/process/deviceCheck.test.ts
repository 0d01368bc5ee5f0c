// `npm run device-check` on a machine without an accelerator (this one, and CI): one JSON
// object on stdout that says so, and exit 2 (nothing was checked), never 0 and never a trace.
// Its virtual-gpu check end to end, with the plain runs on this machine's CPU standing in for
// the real GPU: a CPU is not a GPU, so the check must say the runs disagree, and name where.
import * as assert from 'assert';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { CORPUS_DIR, runPlain, virtualGpuCheck, type VirtualGpuCheckOutcome } from '../../scripts/lib/virtualGpuCheck';
import type { ScriptComparison } from '../../scripts/lib/virtualGpuCompare';
import { buildDist, CLI_JS, DEBIAN_PYTHON, requireDebianTorch, ROOT, scenarioEnv, tempDir } from './workerTestKit';

const DEVICE_CHECK_JS = path.join(ROOT, 'dist', 'device-check.js');

function deviceCheck(python: string): { status: number | null; json: any; err: string } {
  const run = spawnSync(process.execPath, [DEVICE_CHECK_JS, '--python', python], { env: scenarioEnv(undefined), encoding: 'utf8', timeout: 120_000 });
  return { status: run.status, json: JSON.parse(run.stdout), err: run.stderr };
}

describe('device-check without an accelerator', function () {
  this.timeout(180_000);
  before(() => buildDist());

  it('with a CPU-only PyTorch: status no-accelerator, exit 2, the detect check saying why, nothing else run', () => {
    requireDebianTorch();
    const { status, json, err } = deviceCheck(DEBIAN_PYTHON);
    assert.strictEqual(status, 2, err);
    assert.strictEqual(json.status, 'no-accelerator');
    assert.strictEqual(json.accelerator, null);
    assert.deepStrictEqual(json.checks.map((c: { name: string }) => c.name), ['detect']);
    assert.match(json.checks[0].problem, /sees no CUDA device/);
    assert.match(json.torch, /^1\.\d+/);
    assert.match(err, /no accelerator/);
  });

  it('with an interpreter that does not exist: the same status, and the problem names it', () => {
    const { status, json } = deviceCheck('/nonexistent/python3');
    assert.strictEqual(status, 2);
    assert.strictEqual(json.status, 'no-accelerator');
    assert.match(json.checks[0].problem, /\/nonexistent\/python3/);
  });
});

describe('device-check virtual-gpu, the plain runs on the CPU standing in for a GPU', function () {
  this.timeout(400_000);
  let outcome: VirtualGpuCheckOutcome;
  const script = (name: string): ScriptComparison => {
    const found = outcome.scripts.find((s) => s.script === name);
    assert.ok(found, `${name} is in the outcome`);
    return found;
  };

  before(async () => {
    requireDebianTorch();
    buildDist();
    const plainRunOn = 'cpu: Debian PyTorch, no GPU (a stand-in for the real GPU)';
    outcome = await virtualGpuCheck({ python: DEBIAN_PYTHON, cliJs: CLI_JS, corpusDir: path.join(ROOT, CORPUS_DIR), plainDevices: 1, plainRunOn, concurrency: 2 });
  });

  it('every virtual run reports exactly the manifest\'s findings, at their lines, with their raising lines', () => {
    assert.strictEqual(outcome.totals.unlikeManifest, 0, JSON.stringify(outcome.scripts.filter((s) => s.asManifest === false)));
    assert.deepStrictEqual(script('three_mistakes.py').virtual?.map((f) => `${f.rule} ${f.at.line}>${f.raisesAt.line} ${f.fatal}`), ['DD001 9>15 true', 'DD001 12>14 true', 'DD003 20>20 true']);
    assert.deepStrictEqual(script('notebook.ipynb').virtual?.[0].raisesAt, { file: 'notebook.ipynb', cell: 1, line: 3 });
  });

  it('excludes MPS, the endless script and the multi-GPU ones, saying why', () => {
    assert.match(String(script('mps_float64.py').reason), /MPS/);
    assert.match(String(script('endless.py').reason), /never ends/);
    assert.strictEqual(script('two_gpus.py').reason, 'needs 2 devices; the real runs have 1');
    assert.strictEqual(script('data_parallel_ids.py').reason, 'needs 3 devices; the real runs have 1');
    assert.strictEqual(outcome.totals.excluded, 4);
  });

  it('the clean scripts agree; a mistake the CPU never fails on is virtual-only; a hard-coded "cuda" failing at once is real-only', () => {
    assert.deepStrictEqual([script('clean_training.py').verdict, script('load_without_map.py').verdict], ['agrees', 'agrees']);
    assert.strictEqual(script('loss_weight_on_cpu.py').verdict, 'virtual-only');
    assert.deepStrictEqual(script('loss_weight_on_cpu.py').real, { failed: false });
    const midway = script('fails_midway.py');
    assert.strictEqual(midway.verdict, 'real-only');
    assert.deepStrictEqual(midway.real, { failed: true, at: { file: 'fails_midway.py', line: 4 }, type: 'AssertionError', message: 'Torch not compiled with CUDA enabled' });
    assert.deepStrictEqual((script('-m runnable_pkg.evaluate --batch 4').real as { at: unknown }).at, { file: 'runnable_pkg/evaluate.py', line: 7 });
    assert.match(String(script('load_elsewhere.py {tmp}/weights.pt').reason), /^real run: its setup \(save_on_gpu\.py \{tmp\}\/weights\.pt\) raised AssertionError/);
  });

  it('fails, naming the scripts that disagree, and says the plain runs were on a CPU', () => {
    assert.strictEqual(outcome.ok, false);
    assert.match(String(outcome.problem), /disagree on .*fails_midway\.py \(real-only\).*loss_weight_on_cpu\.py \(virtual-only\)/);
    assert.match(outcome.plainRunOn, /^cpu: .*no GPU/);
    assert.match(outcome.virtualRunOn, /^cpu /);
    assert.strictEqual(outcome.totals.compared + outcome.totals.excluded, outcome.totals.scripts);
  });

  it('the plain run places a notebook\'s failure in its code cell, past a %magic line, and takes sys.exit(0) as a clean end', async () => {
    const dir = tempDir('device-doctor-plain-run-');
    try {
      const cells = [{ cell_type: 'markdown', source: ['# notes'] }, { cell_type: 'code', source: ['%matplotlib inline\n', 'x = 1'] }, { cell_type: 'code', source: ['y = x\n', 'raise KeyError(\'batch\')'] }];
      fs.writeFileSync(path.join(dir, 'nb.ipynb'), JSON.stringify({ cells, nbformat: 4 }));
      fs.writeFileSync(path.join(dir, 'done.py'), 'import sys\nsys.exit(0)\nraise ValueError()\n');
      assert.deepStrictEqual(await runPlain(DEBIAN_PYTHON, dir, ['nb.ipynb']), { failed: true, at: { file: 'nb.ipynb', cell: 1, line: 2 }, type: 'KeyError', message: "'batch'" });
      assert.deepStrictEqual(await runPlain(DEBIAN_PYTHON, dir, ['done.py']), { failed: false });
      assert.match(String(await runPlain('/nonexistent/python3', dir, ['done.py'])), /^wrote no report/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
