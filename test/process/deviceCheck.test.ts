// `npm run device-check` on a machine without an accelerator (this one, and CI): one JSON
// object on stdout that says so, and exit 2 (nothing was checked), never 0 and never a trace.
import * as assert from 'assert';
import { spawnSync } from 'child_process';
import * as path from 'path';
import { buildDist, DEBIAN_PYTHON, requireDebianTorch, ROOT, scenarioEnv } from './workerTestKit';

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
