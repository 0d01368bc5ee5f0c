// The four-GPU fake (test/fixtures/bin/nvidia-four-a6000) that the topology e2e scenario puts
// on PATH: its recorded answers must describe one machine, or the screenshot shows nonsense.
// Every nvidia-smi run detect makes is recorded, the boards -L lists are the inventory's, and
// `topo -m` links exactly those GPUs.
import * as assert from 'assert';
import { execFileSync, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import type { DeviceReport } from '../../src/core/devices/report';
import { parseNvidiaMigList, parseNvidiaQueryCsv } from '../../src/core/devices/nvidiaSmi';
import { buildDist, CLI_JS, DEBIAN_PYTHON, fakeRuns, scenarioEnv, tempDir } from './workerTestKit';

const FAKE = path.join(__dirname, '..', 'fixtures', 'bin', 'nvidia-four-a6000', 'nvidia-smi');

describe('the four-A6000 fake nvidia-smi', () => {
  let tmp: string;
  before(function () {
    this.timeout(120_000);
    buildDist();
    tmp = tempDir('dd-four-gpus-');
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('lists the same four boards in -L, --query-gpu and -q', () => {
    const listed = parseNvidiaMigList(execFileSync(FAKE, ['-L'], { encoding: 'utf8' }));
    const queried = parseNvidiaQueryCsv(execFileSync(FAKE, ['--query-gpu=index,uuid,name', '--format=csv,noheader,nounits'], { encoding: 'utf8' }));
    const details = execFileSync(FAKE, ['-q'], { encoding: 'utf8' });
    assert.strictEqual(listed.length, 4);
    assert.deepStrictEqual(listed.map((g) => g.uuid), queried.map((g) => g.uuid));
    for (const row of queried) assert.ok(details.includes(`GPU UUID                              : ${row.uuid}`), String(row.uuid));
    assert.ok(details.includes('Attached GPUs                             : 4'));
  });

  it('gives detect a report of four A6000s linked as topo -m says, without one unrecorded run', () => {
    const log = path.join(tmp, 'runs.log');
    const result = spawnSync(process.execPath, [CLI_JS, 'detect', '--json', '--python', DEBIAN_PYTHON], {
      env: scenarioEnv('nvidia-four-a6000', { DD_FAKE_LOG: log }), encoding: 'utf8', timeout: 60_000,
    });
    assert.strictEqual(result.status, 0, result.stderr);
    const report = JSON.parse(result.stdout) as DeviceReport;
    assert.deepStrictEqual(report.accelerators.map((a) => `${a.id} ${a.name} ${a.driverVersion} ${a.cudaVersion}`), [0, 1, 2, 3].map((i) => `nvidia:${i} NVIDIA RTX A6000 550.90.07 12.4`));
    assert.deepStrictEqual(report.problems.filter((p) => p.source === 'nvidia-smi'), []);
    const topology = report.topology;
    assert.ok(topology, 'a topology with four GPUs');
    assert.deepStrictEqual(topology.devices.filter((d) => d.kind === 'gpu').map((d) => d.name), ['GPU0', 'GPU1', 'GPU2', 'GPU3']);
    assert.deepStrictEqual(topology.links[0].slice(0, 4).map((l) => l.code), ['X', 'NV4', 'PXB', 'PXB']);
    const runs = fakeRuns(log);
    assert.ok(runs.includes('nvidia-smi topo -m'), runs.join('\n'));
    assert.ok(runs.length >= 3, runs.join('\n'));
  });
});
