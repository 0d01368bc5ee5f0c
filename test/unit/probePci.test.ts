import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { probePciDisplayDevices } from '../../src/worker/detect/probes/pci';

function fakeBus(devices: Record<string, { class: string; vendor: string }>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'dd-pci-'));
  for (const [busId, files] of Object.entries(devices)) {
    fs.mkdirSync(path.join(root, busId));
    fs.writeFileSync(path.join(root, busId, 'class'), `${files.class}\n`);
    fs.writeFileSync(path.join(root, busId, 'vendor'), `${files.vendor}\n`);
  }
  return root;
}

describe('worker: PCI display controllers from sysfs', () => {
  it('lists VGA and 3D controllers with their vendor, and nothing else', async () => {
    const root = fakeBus({
      '0000:00:02.0': { class: '0x030000', vendor: '0x8086' }, // Intel iGPU (VGA)
      '0000:19:00.0': { class: '0x030200', vendor: '0x10de' }, // NVIDIA H200 (3D controller)
      '0000:00:1f.2': { class: '0x010601', vendor: '0x8086' }, // SATA controller
    });
    assert.deepStrictEqual(await probePciDisplayDevices('linux', root), [
      { busId: '0000:00:02.0', vendor: '0x8086' },
      { busId: '0000:19:00.0', vendor: '0x10de' },
    ]);
  });

  it('is unknown (null), not empty, off Linux or when the bus cannot be read', async () => {
    assert.strictEqual(await probePciDisplayDevices('darwin', '/nonexistent'), null);
    assert.strictEqual(await probePciDisplayDevices('linux', path.join(os.tmpdir(), 'dd-no-such-bus')), null);
  });
});
