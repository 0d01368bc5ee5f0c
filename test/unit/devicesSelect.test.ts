import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { mapTorchToNvidia, normalizeGpuUuid, normalizePciBusId } from '../../src/core/devices/gpuMapping';
import { parseNvidiaQueryCsv } from '../../src/core/devices/nvidiaSmi';
import type { Accelerator, TorchDevice, TorchStatus } from '../../src/core/devices/report';
import { selectDevice } from '../../src/core/devices/select';
import { parseTorchProbe } from '../../src/core/devices/torchProbe';

const PROBES = path.join(__dirname, '..', 'fixtures', 'probes');
const PY = '/usr/bin/python3';
const recorded = (file: string): string => fs.readFileSync(path.join(PROBES, file), 'utf8');
const torchFrom = (file: string): TorchStatus => parseTorchProbe(recorded(`torch-probe/${file}`), PY);

const H200_AND_4070 = parseNvidiaQueryCsv(recorded('nvidia-smi/h200-rtx4070.txt'));
const FOUR_A6000 = parseNvidiaQueryCsv(recorded('nvidia-smi/four-a6000.txt'));

function device(index: number, over: Partial<TorchDevice> = {}): TorchDevice {
  return { index, name: 'NVIDIA RTX A6000', capability: [8, 6], totalMemoryBytes: null, uuid: null, pciBusId: null, freeBytes: null, allocatedBytes: null, reservedBytes: null, ...over };
}

const GPU: Accelerator = {
  id: 'nvidia:0', vendor: 'nvidia', api: 'cuda', name: 'NVIDIA H200', uuid: null, pciBusId: null,
  memory: { totalBytes: null, usedBytes: null, freeBytes: null },
  utilizationPercent: null, temperatureC: null, powerW: null, driverVersion: null, cudaVersion: null, mig: [],
};

describe('devices: selecting the device (get_device() order)', () => {
  it('CUDA first when PyTorch can use it', () => {
    assert.deepStrictEqual(selectDevice(torchFrom('cuda-h200.json'), [], null), { device: 'cuda:0', reason: 'CUDA is available to PyTorch' });
  });

  it('a ROCm build reports AMD GPUs as cuda', () => {
    const selected = selectDevice(torchFrom('rocm-mi250.json'), [], null);
    assert.strictEqual(selected.device, 'cuda:0');
    assert.match(selected.reason, /ROCm/);
  });

  it('then MPS, when it is available and a tensor can be allocated', () => {
    assert.deepStrictEqual(selectDevice(torchFrom('mps-m2-max.json'), [], null), { device: 'mps', reason: 'MPS is available and a tensor can be allocated there' });
  });

  it('CPU when MPS is available but allocation fails', () => {
    assert.deepStrictEqual(selectDevice(torchFrom('mps-allocation-fails.json'), [], null), { device: 'cpu', reason: 'MPS is available but a tensor cannot be allocated there' });
  });

  it('CPU with a reason: GPU present but unusable, no torch, no interpreter, nothing at all', () => {
    assert.deepStrictEqual(selectDevice(torchFrom('debian-cpu-build.json'), [GPU], null), { device: 'cpu', reason: "GPU present, PyTorch can't use it" });
    assert.deepStrictEqual(selectDevice(torchFrom('debian-cpu-build.json'), [], null), { device: 'cpu', reason: 'no accelerator is available to PyTorch' });
    assert.deepStrictEqual(selectDevice(torchFrom('torch-missing.json'), [GPU], null), { device: 'cpu', reason: 'PyTorch is not usable in /usr/bin/python3' });
    assert.deepStrictEqual(selectDevice(null, [], null), { device: 'cpu', reason: 'no Python interpreter was asked about PyTorch' });
  });

  it('a valid pin wins: cuda:1, cpu, and "cuda" meaning cuda:0', () => {
    const two = torchFrom('cuda-two-devices-fastest-first.json');
    assert.deepStrictEqual(selectDevice(two, [], 'cuda:1'), { device: 'cuda:1', reason: 'pinned by deviceDoctor.device' });
    assert.deepStrictEqual(selectDevice(two, [], 'cpu'), { device: 'cpu', reason: 'pinned by deviceDoctor.device' });
    assert.strictEqual(selectDevice(two, [], ' CUDA ').device, 'cuda:0');
    assert.strictEqual(selectDevice(torchFrom('mps-m2-max.json'), [], 'mps').device, 'mps');
  });

  it('an empty or "auto" pin follows the default order', () => {
    assert.strictEqual(selectDevice(torchFrom('cuda-h200.json'), [], '').reason, 'CUDA is available to PyTorch');
    assert.strictEqual(selectDevice(torchFrom('cuda-h200.json'), [], 'auto').reason, 'CUDA is available to PyTorch');
  });

  it('an invalid pin is ignored, and the reason says why', () => {
    assert.deepStrictEqual(selectDevice(torchFrom('cuda-two-devices-fastest-first.json'), [], 'cuda:2'), {
      device: 'cuda:0',
      reason: 'deviceDoctor.device is "cuda:2" but PyTorch sees 2 CUDA devices; CUDA is available to PyTorch',
    });
    assert.deepStrictEqual(selectDevice(torchFrom('debian-cpu-build.json'), [], 'cuda:0'), {
      device: 'cpu',
      reason: 'deviceDoctor.device is "cuda:0" but CUDA is not available to PyTorch; no accelerator is available to PyTorch',
    });
    assert.match(selectDevice(torchFrom('mps-allocation-fails.json'), [], 'mps').reason, /"mps" but a tensor cannot be allocated on MPS/);
    assert.match(selectDevice(torchFrom('cuda-h200.json'), [], 'tpu').reason, /"tpu" but PyTorch has no such device; CUDA/);
  });
});

describe('devices: mapping torch cuda:N to nvidia-smi rows', () => {
  it('normalises UUIDs and PCI bus ids across spellings', () => {
    assert.strictEqual(normalizeGpuUuid('GPU-5D7F3C2A-1b2c'), '5d7f3c2a-1b2c');
    assert.strictEqual(normalizePciBusId('00000000:19:00.0'), '0000:19:00.0');
    assert.strictEqual(normalizePciBusId('0000:19:00.0'), '0000:19:00.0');
    assert.strictEqual(normalizePciBusId('00000000:1A:00.0'), '0000:1a:00.0');
    assert.strictEqual(normalizePciBusId('3b:00.0'), '0000:3b:00.0');
    assert.strictEqual(normalizePciBusId('not a bus'), null);
  });

  it('matches by UUID (torch prints it without "GPU-"), whatever the order', () => {
    const torch = torchFrom('cuda-two-devices-fastest-first.json');
    assert.ok(!('error' in torch));
    const reversed = [...H200_AND_4070].reverse().map((row, i) => ({ ...row, index: i }));
    assert.deepStrictEqual(mapTorchToNvidia(torch.cuda.devices ?? [], reversed, null), [
      { torchIndex: 0, toolIndex: 1, matchedBy: 'uuid' },
      { torchIndex: 1, toolIndex: 0, matchedBy: 'uuid' },
    ]);
  });

  it('matches by PCI bus id, torch "0000:1a:00.0" against nvidia-smi "00000000:1A:00.0"', () => {
    const devices = [device(0, { pciBusId: '0000:3e:00.0' }), device(1, { pciBusId: '0000:1a:00.0' })];
    assert.deepStrictEqual(mapTorchToNvidia(devices, FOUR_A6000, null), [
      { torchIndex: 0, toolIndex: 3, matchedBy: 'pci-bus-id' },
      { torchIndex: 1, toolIndex: 0, matchedBy: 'pci-bus-id' },
    ]);
  });

  it('honours CUDA_VISIBLE_DEVICES as indices: "2" makes nvidia-smi GPU 2 torch cuda:0', () => {
    assert.deepStrictEqual(mapTorchToNvidia([device(0)], FOUR_A6000, '2'), [{ torchIndex: 0, toolIndex: 2, matchedBy: 'visible-devices' }]);
    assert.deepStrictEqual(mapTorchToNvidia([device(0), device(1)], FOUR_A6000, '3,1'), [
      { torchIndex: 0, toolIndex: 3, matchedBy: 'visible-devices' },
      { torchIndex: 1, toolIndex: 1, matchedBy: 'visible-devices' },
    ]);
  });

  it('honours CUDA_VISIBLE_DEVICES as UUID prefixes', () => {
    assert.deepStrictEqual(mapTorchToNvidia([device(0)], FOUR_A6000, 'GPU-11111111-2222-3333-4444-555555555553'), [
      { torchIndex: 0, toolIndex: 3, matchedBy: 'visible-devices' },
    ]);
    assert.deepStrictEqual(mapTorchToNvidia([device(0, { name: 'NVIDIA GeForce RTX 4070' })], H200_AND_4070, 'GPU-0f1e2d3c'), [
      { torchIndex: 0, toolIndex: 1, matchedBy: 'visible-devices' },
    ]);
  });

  it('stops at the first entry CUDA cannot use, as CUDA does', () => {
    assert.deepStrictEqual(mapTorchToNvidia([device(0), device(1)], FOUR_A6000, '1,7,2'), [{ torchIndex: 0, toolIndex: 1, matchedBy: 'visible-devices' }]);
    assert.deepStrictEqual(mapTorchToNvidia([device(0)], FOUR_A6000, '-1'), []);
  });

  it('without ids: a unique name, then the order when counts and names agree', () => {
    const fastestFirst = [device(0, { name: 'NVIDIA H200' }), device(1, { name: 'NVIDIA GeForce RTX 4070' })];
    assert.deepStrictEqual(mapTorchToNvidia([...fastestFirst].reverse().map((d, i) => ({ ...d, index: i })), H200_AND_4070, null), [
      { torchIndex: 0, toolIndex: 1, matchedBy: 'name' },
      { torchIndex: 1, toolIndex: 0, matchedBy: 'name' },
    ]);
    assert.deepStrictEqual(mapTorchToNvidia([0, 1, 2, 3].map((i) => device(i)), FOUR_A6000, null).map((m) => [m.torchIndex, m.toolIndex, m.matchedBy]), [
      [0, 0, 'order'], [1, 1, 'order'], [2, 2, 'order'], [3, 3, 'order'],
    ]);
  });

  it('maps nothing it cannot justify, and never one row twice', () => {
    assert.deepStrictEqual(mapTorchToNvidia([device(0), device(1)], FOUR_A6000, null), []);
    const same = [device(0, { uuid: 'GPU-11111111-2222-3333-4444-555555555550' }), device(1, { uuid: 'GPU-11111111-2222-3333-4444-555555555550' })];
    assert.deepStrictEqual(mapTorchToNvidia(same, FOUR_A6000, null), [{ torchIndex: 0, toolIndex: 0, matchedBy: 'uuid' }]);
  });
});
