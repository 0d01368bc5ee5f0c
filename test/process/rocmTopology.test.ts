// detect with two AMD GPUs (test/fixtures/bin/amd-mi250-two-dies: one MI250, two dies, as
// rocm-smi lists them): rocm-smi --showtopo is asked and its xGMI link is the report's
// topology; with one AMD GPU it is not asked at all.
import * as assert from 'assert';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import type { DeviceReport } from '../../src/core/devices/report';
import { buildDist, CLI_JS, DEBIAN_PYTHON, fakeRuns, scenarioEnv, tempDir } from './workerTestKit';

function detect(scenario: string, log: string) {
  const result = spawnSync(process.execPath, [CLI_JS, 'detect', '--json', '--python', DEBIAN_PYTHON], { env: scenarioEnv(scenario, { DD_FAKE_LOG: log }), encoding: 'utf8', timeout: 60_000 });
  assert.strictEqual(result.status, 0, result.stderr);
  return JSON.parse(result.stdout) as DeviceReport;
}

describe('detect: rocm-smi --showtopo', function () {
  this.timeout(120_000);
  let tmp: string;
  before(() => {
    buildDist();
    tmp = tempDir('dd-rocm-topo-');
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('reads the xGMI link between the two dies of an MI250 into the report', () => {
    const log = path.join(tmp, 'mi250.log');
    const report = detect('amd-mi250-two-dies', log);
    assert.strictEqual(report.accelerators.filter((a) => a.vendor === 'amd').length, 2);
    assert.ok(report.topology, 'a topology');
    assert.strictEqual(report.topology.source, 'rocm-smi');
    assert.deepStrictEqual(report.topology.links.map((row) => row.map((l) => l.kind)), [['self', 'xgmi'], ['xgmi', 'self']]);
    assert.ok(fakeRuns(log, 'rocm-smi').includes('rocm-smi --showtopo'), fakeRuns(log, 'rocm-smi').join('\n'));
  });

  it('does not ask it for one AMD GPU', () => {
    const log = path.join(tmp, 'one.log');
    const report = detect('amd-rocm-smi', log);
    assert.ok(!('topology' in report));
    const runs = fakeRuns(log, 'rocm-smi');
    assert.ok(runs.length >= 1 && !runs.includes('rocm-smi --showtopo'), runs.join('\n'));
  });
});
