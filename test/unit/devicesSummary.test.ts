import * as assert from 'assert';
import { formatBytes, formatMemory, selectedDeviceText, shortGpuName } from '../../src/core/devices/format';
import type { Accelerator, DeviceReport } from '../../src/core/devices/report';
import { summarizeReport } from '../../src/core/devices/summary';

const GIB = 1024 ** 3;
const MIB = 1024 * 1024;

const h200: Accelerator = {
  id: 'cuda:0', vendor: 'nvidia', api: 'cuda', name: 'NVIDIA H200', uuid: 'GPU-5d7f', pciBusId: '00000000:19:00.0',
  memory: { totalBytes: 143771 * MIB, usedBytes: 0, freeBytes: 143156 * MIB },
  utilizationPercent: 0, temperatureC: 31, powerW: 75.32, driverVersion: '580.159.04', cudaVersion: '13.0', mig: [],
};

function report(over: Partial<DeviceReport>): DeviceReport {
  return {
    schemaVersion: 1,
    host: { platform: 'linux', arch: 'x64', cpu: { model: 'AMD EPYC', cores: 2, flags: ['avx2'] }, memory: { totalBytes: 25769803776, freeBytes: 20186823066 } },
    accelerators: [h200],
    torch: { interpreter: '/usr/bin/python3', version: '2.11.0', cuda: { built: true, available: true, version: '13.0', deviceCount: 1 }, mps: { built: false, available: false } },
    selected: { device: 'cuda:0', reason: 'CUDA is available to PyTorch' },
    problems: [],
    ...over,
  };
}

describe('devices: memory and status bar text', () => {
  it('formats GiB with one decimal; a whole total drops its ".0"', () => {
    assert.strictEqual(formatBytes(20 * GIB), '20.0 GiB');
    assert.strictEqual(formatBytes(null), '?');
    assert.strictEqual(formatMemory(20 * GIB, 143771 * MIB), '20.0/140.4 GiB');
    assert.strictEqual(formatMemory(9.8 * GIB, 16 * GIB), '9.8/16 GiB');
    assert.strictEqual(formatMemory(null, null), '?/? GiB');
  });

  it('shortens GPU names for the status bar', () => {
    assert.strictEqual(shortGpuName('NVIDIA H200'), 'H200');
    assert.strictEqual(shortGpuName('NVIDIA GeForce RTX 4070'), 'RTX 4070');
    assert.strictEqual(shortGpuName('AMD Radeon RX 7900 XT'), 'RX 7900 XT');
    assert.strictEqual(shortGpuName('Tesla T4'), 'Tesla T4');
  });

  it('writes the status bar text of PROBES/issue examples: cuda, MPS, CPU', () => {
    assert.strictEqual(selectedDeviceText(report({}), { usedBytes: 20 * GIB, totalBytes: 143771 * MIB }), 'cuda:0 H200 · 20.0/140.4 GiB');
    assert.strictEqual(selectedDeviceText(report({})), 'cuda:0 H200 · 0.0/140.4 GiB');
    const mps: Accelerator = { ...h200, id: 'mps', vendor: 'apple', api: 'mps', name: 'Apple M1', memory: { totalBytes: 16 * GIB, usedBytes: null, freeBytes: null } };
    assert.strictEqual(selectedDeviceText(report({ accelerators: [mps], selected: { device: 'mps', reason: '' } }), { usedBytes: 9.8 * GIB, totalBytes: 16 * GIB }), 'MPS · 9.8/16 GiB');
    const cpu = report({ accelerators: [], selected: { device: 'cpu', reason: '' }, host: { ...report({}).host, memory: { totalBytes: 23.4 * GIB, freeBytes: 18.2 * GIB } } });
    assert.strictEqual(selectedDeviceText(cpu), 'CPU · 5.2/23.4 GiB');
  });
});

describe('devices: the doctor summary', () => {
  it('lists devices, PyTorch, the selection, and says when nothing is wrong', () => {
    assert.deepStrictEqual(summarizeReport(report({})), [
      'cuda:0   NVIDIA H200 · 0.0/140.4 GiB · 0% busy · 31 °C · driver 580.159.04, CUDA 13.0',
      'PyTorch  2.11.0 in /usr/bin/python3: CUDA 13.0 available, 1 device; no MPS',
      'Selected cuda:0 (CUDA is available to PyTorch)',
      '',
      'No problems found.',
    ]);
  });

  it('gives each problem with its remedy', () => {
    const lines = summarizeReport(report({
      accelerators: [{ ...h200, id: 'nvidia:0' }],
      torch: { interpreter: '/usr/bin/python3', version: '1.13.0a0', cuda: { built: false, available: false, version: null, deviceCount: 0 }, mps: { built: false, available: false } },
      selected: { device: 'cpu', reason: "GPU present, PyTorch can't use it" },
      problems: [{ source: 'torch', code: 'torch-cpu-only-build', message: 'PyTorch was not built with CUDA support', hint: 'install a CUDA build of PyTorch; this driver supports CUDA 13.0' }],
    }));
    assert.deepStrictEqual(lines.slice(1), [
      'PyTorch  1.13.0a0 in /usr/bin/python3: no CUDA; no MPS',
      "Selected cpu (GPU present, PyTorch can't use it)",
      '',
      '1 problem:',
      '  torch-cpu-only-build: PyTorch was not built with CUDA support',
      '    fix: install a CUDA build of PyTorch; this driver supports CUDA 13.0',
    ]);
  });

  it('says so when there is no GPU, no torch, or no interpreter', () => {
    const noTorch = summarizeReport(report({ accelerators: [], torch: { interpreter: '/usr/bin/python3', error: "No module named 'torch'" } }));
    assert.deepStrictEqual(noTorch.slice(0, 2), ['No GPU found.', "PyTorch  not usable in /usr/bin/python3: No module named 'torch'"]);
    assert.strictEqual(summarizeReport(report({ torch: null }))[1], 'PyTorch  not checked (no Python interpreter to ask)');
  });
});
