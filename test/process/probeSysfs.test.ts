// AMD from sysfs: the recorded cards (test/fixtures/probes/sysfs) laid out as a real
// /sys/class/drm tree, read back by the probe, and polled by the worker's monitor.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import type { SysfsDrmCard } from '../../src/core/devices/amd';
import { DetectRequest, StartMonitorRequest, StopMonitorRequest } from '../../src/protocol/worker';
import { readSysfsDrmCards } from '../../src/worker/detect/probes/sysfs';
import { buildDist, ROOT, scenarioEnv, tempDir, waitFor, WorkerUnderTest } from './workerTestKit';

const RECORDED = path.join(ROOT, 'test', 'fixtures', 'probes', 'sysfs');

function recorded(name: string): SysfsDrmCard {
  return JSON.parse(fs.readFileSync(path.join(RECORDED, `${name}.json`), 'utf8')) as SysfsDrmCard;
}

/** Lays a card out as the kernel does: card<N>/device is a link to the PCI device's folder. */
function layOut(root: string, card: SysfsDrmCard): void {
  const pciDir = path.join(root, 'devices', card.pciBusId ?? 'unknown');
  fs.mkdirSync(pciDir, { recursive: true });
  for (const [key, value] of Object.entries(card)) {
    if (key !== 'card' && key !== 'pciBusId') fs.writeFileSync(path.join(pciDir, key), value as string);
  }
  const drm = path.join(root, 'drm');
  fs.mkdirSync(path.join(drm, card.card), { recursive: true });
  fs.symlinkSync(pciDir, path.join(drm, card.card, 'device'));
}

describe('probes: sysfs', function () {
  this.timeout(20_000);
  let tmp: string;

  beforeEach(() => {
    tmp = tempDir('dd-sysfs-');
  });

  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('reads back every recorded card, connectors and other entries ignored', async () => {
    const igpu = recorded('intel-igpu');
    const radeon = recorded('rx6700xt');
    layOut(tmp, igpu);
    layOut(tmp, radeon);
    fs.mkdirSync(path.join(tmp, 'drm', 'card1-DP-1'));
    fs.writeFileSync(path.join(tmp, 'drm', 'version'), 'drm 1.1.0\n');
    assert.deepStrictEqual(await readSysfsDrmCards(path.join(tmp, 'drm')), [igpu, radeon]);
  });

  it('answers no cards when the folder does not exist', async () => {
    assert.deepStrictEqual(await readSysfsDrmCards(path.join(tmp, 'missing')), []);
  });

  it("feeds the monitor: AMD memory every interval from file reads, under the report's id", async () => {
    buildDist();
    layOut(tmp, recorded('rx6700xt'));
    const worker = new WorkerUnderTest(scenarioEnv(undefined, { DEVICE_DOCTOR_SYSFS_DRM: path.join(tmp, 'drm') }));
    try {
      const report = await worker.connection.sendRequest(DetectRequest, { pythonPath: null, pinnedDevice: null });
      const [amd] = report.accelerators;
      assert.deepStrictEqual([amd.vendor, amd.pciBusId, amd.memory.totalBytes], ['amd', '0000:0b:00.0', 12868124672]);
      await worker.connection.sendRequest(StartMonitorRequest, { intervalMs: 100 });
      const amdSamples = () => worker.samples.flatMap((n) => n.samples).filter((s) => s.id === amd.id);
      await waitFor('three AMD samples', () => amdSamples().length >= 3);
      assert.deepStrictEqual({ ...amdSamples()[0], time: 0 }, { id: amd.id, usedBytes: 1186615296, totalBytes: 12868124672, utilizationPercent: 7, time: 0 });
      fs.writeFileSync(path.join(tmp, 'devices', '0000:0b:00.0', 'mem_info_vram_used'), '2000000000\n');
      await waitFor('the new reading', () => amdSamples().some((s) => s.usedBytes === 2000000000));
      await worker.connection.sendRequest(StopMonitorRequest, undefined);
    } finally {
      await worker.stop();
    }
  });
});
