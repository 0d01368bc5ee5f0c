// `device-doctor bench --devices all` through the bundled CLI. No machine here has two GPUs:
// Debian's CPU-only torch is refused at once (exit 2); the two-GPU fakes (nvidia-smi and a
// torch that reports two CUDA devices but cannot multiply) run the whole sequence, alone and
// all at once, and every failed run is named, not hidden (exit 1). Then four fake GPUs that do
// multiply (Debian's torch under the fake-cuda-devices shim, the fourth device's products
// slowed to half speed) and a fake nvidia-smi whose clock stream holds the fourth GPU at
// 1.41 GHz and 84 °C: real numbers through the whole path, exactly that device flagged in
// both passes, with the readings of its own run, and no nvidia-smi left running.
// The verdicts themselves are unit-tested (benchEveryDevice.test.ts).
import * as assert from 'assert';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { isRunning, removeShims, shimDir } from './benchTorchKit';
import { buildDist, CLI_JS, DEBIAN_PYTHON, FAKE_TORCH, fakeRuns, requireDebianTorch, scenarioEnv, tempDir } from './workerTestKit';

function cli(args: string[], env: NodeJS.ProcessEnv) {
  const result = spawnSync(process.execPath, [CLI_JS, 'bench', '--devices', 'all', '--python', DEBIAN_PYTHON, ...args], { env, encoding: 'utf8', timeout: 120_000 });
  return { status: result.status, out: result.stdout, err: result.stderr };
}

describe('cli: bench --devices all', function () {
  this.timeout(180_000);
  before(() => {
    requireDebianTorch();
    buildDist();
  });
  after(() => removeShims());

  it('refuses a PyTorch that sees no accelerator, saying what to run instead', () => {
    const { status, out, err } = cli([], scenarioEnv(undefined));
    assert.strictEqual(status, 2, err);
    assert.strictEqual(out, '');
    assert.match(err, /^error: --devices all compares accelerators with each other, and PyTorch in \/usr\/bin\/python3 sees no CUDA or ROCm device; run 'device-doctor bench' for one device$/m);
  });

  it('runs each of two GPUs alone and then together, naming each failed run, with names from nvidia-smi', () => {
    const env = scenarioEnv('nvidia-two-gpus', { PYTHONPATH: path.join(FAKE_TORCH, 'cuda-two-devices') });
    const { status, out, err } = cli(['--size', '64', '--repeats', '2'], env);
    assert.strictEqual(status, 1, err);
    // Failed runs have no readings of their own: dashes, not the inventory's temperature.
    assert.match(out, /^cuda:0 +NVIDIA GeForce RTX 4070 +failed +- +- +- +-$/m);
    assert.match(out, /^cuda:1 +NVIDIA H200 +failed +- +- +- +-$/m);
    for (const device of ['cuda:0', 'cuda:1']) for (const pass of ['alone', 'all at once']) assert.ok(out.includes(`${device} (${pass}): The torch engine failed on ${device}`), `${device} ${pass}`);
    assert.match(out, /Fewer than two devices were measured: nothing to compare\./);
    const json = cli(['--size', '64', '--repeats', '2', '--json'], env);
    const report = JSON.parse(json.out) as { schemaVersion: number; devices: { device: string; alone: { error?: string } }[] };
    assert.strictEqual(report.schemaVersion, 2);
    assert.deepStrictEqual(report.devices.map((d) => [d.device, typeof d.alone.error]), [['cuda:0', 'string'], ['cuda:1', 'string']]);
  });

  it('measures four GPUs that multiply, flags exactly the slow one in both passes with the clock and temperature of its own run', () => {
    const dir = tempDir('dd-every-device-');
    const pids = path.join(dir, 'pids');
    const log = path.join(dir, 'runs.log');
    const env = scenarioEnv('nvidia-four-a6000-one-hot', {
      PYTHONPATH: shimDir('fake-cuda-devices'), PYTHONDONTWRITEBYTECODE: '1', DD_FAKE_CUDA_DELAYS_MS: '20,20,20,40', DD_FAKE_PIDS: pids, DD_FAKE_LOG: log,
    });
    const { status, out, err } = cli(['--size', '64', '--repeats', '15', '--json'], env);
    assert.strictEqual(status, 0, err);
    type Run = { gflops?: number; error?: string; during?: { smClockMHz: number; maxSmClockMHz: number; temperatureC: number; powerW: number } | null };
    type Verdict = { slow: boolean; belowPeers: number };
    const report = JSON.parse(out) as { devices: { device: string; name: string; alone: Run; together: Run; aloneVerdict: Verdict; togetherVerdict: Verdict }[]; findings: string[] };
    assert.deepStrictEqual(report.devices.map((d) => [d.device, d.name, d.aloneVerdict.slow, d.togetherVerdict.slow]), [
      ['cuda:0', 'NVIDIA RTX A6000', false, false], ['cuda:1', 'NVIDIA RTX A6000', false, false], ['cuda:2', 'NVIDIA RTX A6000', false, false], ['cuda:3', 'NVIDIA RTX A6000', true, true],
    ]);
    for (const d of report.devices) {
      for (const run of [d.alone, d.together]) assert.ok((run.gflops ?? 0) > 0, `${d.device}: ${JSON.stringify(run)}`);
      // Half speed from the shim's delays; the sleeps leave some slack on two shared cores.
      if (d.device === 'cuda:3') for (const v of [d.aloneVerdict, d.togetherVerdict]) assert.ok(v.belowPeers > 0.35 && v.belowPeers < 0.65, JSON.stringify(v));
    }
    // Each device's own row of the clock stream: nvidia-smi's UUIDs mapped to the torch devices.
    assert.deepStrictEqual(report.devices.map((d) => [d.alone.during?.smClockMHz, d.together.during?.temperatureC]), [[1905, 62], [1890, 61], [1905, 63], [1410, 84]]);
    assert.deepStrictEqual(report.devices[3].alone.during && { max: report.devices[3].alone.during.maxSmClockMHz, power: report.devices[3].alone.during.powerW }, { max: 2100, power: 241.36 });
    assert.strictEqual(report.findings.length, 2, report.findings.join('\n'));
    for (const [i, pass] of ['alone', 'all at once'].entries()) {
      assert.match(report.findings[i], new RegExp(`^cuda:3 is \\d+ % below the median of its 3 peers \\([\\d.]+ vs [\\d.]+ GFLOP/s\\); its SM clock ran at 1\\.41 of 2\\.1 GHz at 84 °C and 241 W during the run \\(${pass}\\)$`));
    }
    // One clock query per pass (not one per device), each stopped with its pass.
    assert.strictEqual(fakeRuns(log).filter((line) => /clocks\.sm.*-lms 200$/.test(line)).length, 2, fakeRuns(log).join('\n'));
    const started = fs.readFileSync(pids, 'utf8').split('\n').filter(Boolean).map(Number);
    assert.deepStrictEqual(started.filter(isRunning), [], 'every fake nvidia-smi ended with the CLI');
  });
});
