// `device-doctor bench` imports PyTorch once (issue 14: the default run started probe.py and
// then bench.py, two imports of torch, 7 s of its time on 2 cores): one Python process answers
// detect's probe and runs the torch batch. Counted through an interpreter that appends a line
// per start (and what it was started with) before it becomes Debian's Python (countingPython).
import * as assert from 'assert';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { buildDist, CLI_JS, countingPython, requireDebianTorch, scenarioEnv, tempDir } from './workerTestKit';

function cli(args: string[], cwd?: string): { status: number | null; out: string; err: string } {
  const run = spawnSync(process.execPath, [CLI_JS, ...args], { cwd, env: { ...scenarioEnv(undefined), PYTHONDONTWRITEBYTECODE: '1' }, encoding: 'utf8', timeout: 240_000 });
  return { status: run.status, out: run.stdout, err: run.stderr };
}

describe('cli: PyTorch is imported once per command', function () {
  this.timeout(300_000);
  let dir: string;

  before(() => {
    requireDebianTorch();
    buildDist();
    dir = tempDir('device-doctor-imports-');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('the default bench starts one Python (bench.py serving the probe), and its torch result is measured and checked', () => {
    const { python, starts } = countingPython(fs.mkdtempSync(path.join(dir, 'bench-')));
    const run = cli(['bench', '--json', '--size', '256', '--python', python]);
    assert.strictEqual(run.status, 0, run.err);
    assert.deepStrictEqual(starts().map((s) => path.basename(s)), ['bench.py'], `interpreter starts: ${starts().join(', ')}`);
    const json = JSON.parse(run.out);
    const torch = json.results.find((r: { engine: string }) => r.engine === 'torch');
    assert.ok(torch, run.out);
    assert.strictEqual(torch.timesSec.length, torch.repeats);
    assert.ok(torch.maxRelError < 1e-3, `checked against float64: ${torch.maxRelError}`);
  });

  it('bench --engine torch --device cpu (the agreement check\'s command) starts one Python too', () => {
    const { python, starts } = countingPython(fs.mkdtempSync(path.join(dir, 'single-')));
    const run = cli(['bench', '--engine', 'torch', '--device', 'cpu', '--size', '128', '--json', '--python', python]);
    assert.strictEqual(run.status, 0, run.err);
    assert.strictEqual(starts().length, 1, `interpreter starts: ${starts().join(', ')}`);
  });

  it('detect --json starts one Python: the probe', () => {
    const { python, starts } = countingPython(fs.mkdtempSync(path.join(dir, 'detect-')));
    const run = cli(['detect', '--json', '--python', python]);
    assert.strictEqual(run.status, 0, run.err);
    assert.deepStrictEqual(starts().map((s) => path.basename(s)), ['probe.py']);
    assert.match(JSON.parse(run.out).torch.version, /^\d+\.\d+/);
  });

  it('doctor starts one Python: the bench.py that answers the probe runs every torch batch of the quick benchmark', () => {
    const folder = fs.mkdtempSync(path.join(dir, 'doctor-'));
    const { python, starts } = countingPython(folder);
    const project = fs.mkdtempSync(path.join(dir, 'doctor-project-'));
    const run = cli(['doctor', '--python', python], project);
    assert.strictEqual(run.status, 0, run.err);
    // One bench.py for everything: it answers the probe, then runs every torch batch in turn
    // (a batch per thread count when the CPU is compared with one thread of itself).
    const torchBatches = new Set(run.out.split('\n').filter((line) => /^\s+torch cpu\s/.test(line))).size;
    assert.ok(torchBatches >= 2, `the CPU-only default times two thread counts:\n${run.out}`);
    assert.deepStrictEqual(starts().map((s) => path.basename(s)), ['bench.py'], `interpreter starts: ${starts().join(', ')}`);
    assert.match(run.out, new RegExp(`PyTorch\\s+\\d+\\.\\d+\\S* in ${python.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    assert.match(run.out, /torch cpu(\s+\d+ threads?)?\s+\d+(\.\d+)? GFLOP\/s/);
  });

  it('a bench that never reaches torch (wasm only) still ends: the waiting bench.py is told there is no work', () => {
    const { python, starts } = countingPython(fs.mkdtempSync(path.join(dir, 'wasm-')));
    const run = cli(['bench', '--engine', 'wasm', '--device', 'cpu', '--size', '64', '--json', '--python', python]);
    assert.strictEqual(run.status, 0, run.err);
    assert.strictEqual(JSON.parse(run.out).results[0].engine, 'wasm');
    assert.deepStrictEqual(starts().map((s) => path.basename(s)), ['bench.py']);
  });
});
