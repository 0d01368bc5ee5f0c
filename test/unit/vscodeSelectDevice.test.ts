// Select Device: the quick-pick entries and where the choice is written.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import type { DeviceReport } from '../../src/core/devices/report';
import { AUTOMATIC_LABEL, devicePicks, deviceWriteMessage, planDeviceWrite } from '../../src/vscode/devices/devicePicks';

function report(): DeviceReport {
  return JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', 'fixtures', 'fakeWorker', 'report.json'), 'utf8')) as DeviceReport;
}

describe('vscode: Select Device', () => {
  it('offers Automatic, every accelerator, and the CPU, marking the current choice', () => {
    const picks = devicePicks(report(), null);
    assert.deepStrictEqual(picks.map((p) => [p.label, p.device]), [[AUTOMATIC_LABEL, null], ['cuda:0', 'cuda:0'], ['cpu', 'cpu']]);
    assert.strictEqual(AUTOMATIC_LABEL, 'Automatic (CUDA → MPS → CPU)');
    assert.strictEqual(picks[0]!.description, 'now cuda:0 · current');
    assert.strictEqual(picks[1]!.description, 'NVIDIA H200 · 20.0/140.4 GiB');
    assert.strictEqual(picks[2]!.description, 'AMD EPYC 9654');
    assert.strictEqual(devicePicks(report(), 'cpu')[2]!.description, 'AMD EPYC 9654 · current');
  });

  it('flags devices PyTorch cannot use, and keeps a pinned device that is gone', () => {
    const r = report();
    r.torch = { interpreter: '/usr/bin/python3', version: '1.13.1', cuda: { built: false, available: false, version: null, deviceCount: 0 }, mps: { built: false, available: false } };
    r.accelerators.push({ ...r.accelerators[0]!, id: 'amd:0', name: 'Radeon' });
    const picks = devicePicks(r, 'cuda:3');
    assert.deepStrictEqual(picks.map((p) => p.label), [AUTOMATIC_LABEL, 'cuda:0', 'cpu', 'cuda:3'], 'amd:0 is not a PyTorch device id');
    assert.match(picks[1]!.detail ?? '', /PyTorch cannot use this device now/);
    assert.strictEqual(picks[3]!.description, 'current · not found on this machine');
  });

  it('works before any report', () => {
    assert.deepStrictEqual(devicePicks(null, null).map((p) => p.label), [AUTOMATIC_LABEL, 'cpu']);
  });

  describe('where the choice is written', () => {
    it('to the workspace settings by default, also over a user-level pin; to the user settings with no folder open', () => {
      assert.deepStrictEqual(planDeviceWrite({}, 'cuda:1'), { level: 'workspace', value: 'cuda:1' });
      assert.deepStrictEqual(planDeviceWrite({ globalValue: 'cuda:0' }, 'cuda:1'), { level: 'workspace', value: 'cuda:1' });
      assert.deepStrictEqual(planDeviceWrite({}, 'cuda:1', false), { level: 'global', value: 'cuda:1' });
      assert.deepStrictEqual(planDeviceWrite({ globalValue: 'cuda:0' }, 'cuda:1', false), { level: 'global', value: 'cuda:1' });
    });

    it('where the folder already pins one (else the write would be hidden)', () => {
      assert.deepStrictEqual(planDeviceWrite({ globalValue: 'cpu', workspaceValue: 'cuda:0' }, 'cuda:1'), { level: 'workspace', value: 'cuda:1' });
      assert.deepStrictEqual(planDeviceWrite({ workspaceValue: 'cuda:0', workspaceFolderValue: 'mps' }, 'cpu'), { level: 'workspaceFolder', value: 'cpu' });
    });

    it('Automatic removes the pin, or writes "" when a broader pin would show through', () => {
      assert.deepStrictEqual(planDeviceWrite({ globalValue: 'cuda:1' }, null, false), { level: 'global', value: undefined });
      assert.deepStrictEqual(planDeviceWrite({ globalValue: 'cuda:1' }, null), { level: 'workspace', value: '' });
      assert.deepStrictEqual(planDeviceWrite({ workspaceValue: 'cuda:1' }, null), { level: 'workspace', value: undefined });
      assert.deepStrictEqual(planDeviceWrite({ globalValue: 'cuda:0', workspaceValue: 'cuda:1' }, null), { level: 'workspace', value: '' });
      assert.deepStrictEqual(planDeviceWrite({ globalValue: '', workspaceValue: 'cuda:1' }, null), { level: 'workspace', value: undefined });
      assert.deepStrictEqual(planDeviceWrite({}, null), { level: 'workspace', value: undefined });
    });
  });

  describe('what it says after writing', () => {
    it('names the setting, its value, the scope, and what it affects and what not', () => {
      assert.strictEqual(deviceWriteMessage({ level: 'workspace', value: 'cuda:1' }),
        'Device Doctor: deviceDoctor.device is now "cuda:1" in the workspace settings (.vscode/settings.json). '
        + 'It sets the device Device Doctor probes, monitors and benchmarks; the analysis does not depend on it, '
        + 'and your code is not changed: it still picks its own device (Insert Device Selection writes a get_device() helper).');
      assert.match(deviceWriteMessage({ level: 'global', value: undefined }), /is now automatic \(CUDA → MPS → CPU\) in the user settings\./);
    });
  });
});
