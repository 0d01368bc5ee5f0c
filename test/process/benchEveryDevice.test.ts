// `device-doctor bench --devices all` through the bundled CLI. No machine here has two GPUs:
// Debian's CPU-only torch is refused at once (exit 2); the two-GPU fakes (nvidia-smi and a
// torch that reports two CUDA devices but cannot multiply) run the whole sequence, alone and
// all at once, and every failed run is named, not hidden (exit 1). The verdicts themselves
// are unit-tested (benchEveryDevice.test.ts).
import * as assert from 'assert';
import { spawnSync } from 'child_process';
import * as path from 'path';
import { buildDist, CLI_JS, DEBIAN_PYTHON, FAKE_TORCH, requireDebianTorch, scenarioEnv } from './workerTestKit';

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

  it('refuses a PyTorch that sees no accelerator, saying what to run instead', () => {
    const { status, out, err } = cli([], scenarioEnv(undefined));
    assert.strictEqual(status, 2, err);
    assert.strictEqual(out, '');
    assert.match(err, /^error: --devices all compares accelerators with each other, and PyTorch in \/usr\/bin\/python3 sees no CUDA or ROCm device; run 'device-doctor bench' for one device$/m);
  });

  it('runs each of two GPUs alone and then together, naming each failed run, with names and temperatures from nvidia-smi', () => {
    const env = scenarioEnv('nvidia-two-gpus', { PYTHONPATH: path.join(FAKE_TORCH, 'cuda-two-devices') });
    const { status, out, err } = cli(['--size', '64', '--repeats', '2'], env);
    assert.strictEqual(status, 1, err);
    assert.match(out, /^cuda:0 +NVIDIA GeForce RTX 4070 +failed +- +failed +- +41°C +-$/m);
    assert.match(out, /^cuda:1 +NVIDIA H200 +failed +- +failed +- +31°C +75\.32 W$/m);
    for (const device of ['cuda:0', 'cuda:1']) for (const pass of ['alone', 'all at once']) assert.ok(out.includes(`${device} (${pass}): The torch engine failed on ${device}`), `${device} ${pass}`);
    assert.match(out, /Fewer than two devices were measured: nothing to compare\./);
    const json = cli(['--size', '64', '--repeats', '2', '--json'], env);
    const report = JSON.parse(json.out) as { schemaVersion: number; devices: { device: string; alone: { error?: string } }[] };
    assert.strictEqual(report.schemaVersion, 1);
    assert.deepStrictEqual(report.devices.map((d) => [d.device, typeof d.alone.error]), [['cuda:0', 'string'], ['cuda:1', 'string']]);
  });
});
