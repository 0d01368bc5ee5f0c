import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import {
  NVIDIA_QUERY_ARGS,
  NVIDIA_QUERY_FIELDS,
  parseNvidiaComputeApps,
  parseNvidiaCudaVersion,
  parseNvidiaDriverVersion,
  parseNvidiaMigList,
  parseNvidiaQueryCsv,
} from '../../src/core/devices/nvidiaSmi';

const PROBES = path.join(__dirname, '..', 'fixtures', 'probes');
const recorded = (file: string): string => fs.readFileSync(path.join(PROBES, file), 'utf8');
const MIB = 1024 * 1024;

describe('devices: nvidia-smi inventory CSV', () => {
  it('asks nvidia-smi for exactly the fields the parser reads', () => {
    assert.strictEqual(
      NVIDIA_QUERY_FIELDS,
      'index,uuid,name,pci.bus_id,memory.total,memory.used,memory.free,utilization.gpu,temperature.gpu,power.draw,driver_version',
    );
    assert.deepStrictEqual(NVIDIA_QUERY_ARGS, [`--query-gpu=${NVIDIA_QUERY_FIELDS}`, '--format=csv,noheader,nounits']);
  });

  it('reads PROBES.md multi-GPU sample: an H200 and an RTX 4070 with power [N/A]', () => {
    const rows = parseNvidiaQueryCsv(recorded('nvidia-smi/h200-rtx4070.txt'));
    assert.deepStrictEqual(rows, [
      {
        index: 0,
        uuid: 'GPU-5d7f3c2a-1b2c-4d3e-9f8a-0123456789ab',
        name: 'NVIDIA H200',
        pciBusId: '00000000:19:00.0',
        memory: { totalBytes: 150754820096, usedBytes: 0, freeBytes: 143156 * MIB },
        utilizationPercent: 0,
        temperatureC: 31,
        powerW: 75.32,
        driverVersion: '580.159.04',
      },
      {
        index: 1,
        uuid: 'GPU-0f1e2d3c-4b5a-6978-8a9b-abcdefabcdef',
        name: 'NVIDIA GeForce RTX 4070',
        pciBusId: '00000000:01:00.0',
        memory: { totalBytes: 12282 * MIB, usedBytes: 531 * MIB, freeBytes: 11474 * MIB },
        utilizationPercent: 3,
        temperatureC: 41,
        powerW: null,
        driverVersion: '550.54.14',
      },
    ]);
  });

  it('keeps byte counts integers (MiB × 1,048,576)', () => {
    for (const row of parseNvidiaQueryCsv(recorded('nvidia-smi/four-a6000.txt'))) {
      for (const value of Object.values(row.memory)) assert.ok(Number.isInteger(value), `${row.name}: ${value}`);
    }
  });

  it('turns [Not Supported] of an older driver into null and keeps the rest of the line', () => {
    const [row] = parseNvidiaQueryCsv(recorded('nvidia-smi/gtx770-not-supported.txt'));
    assert.strictEqual(row.name, 'GeForce GTX 770');
    assert.strictEqual(row.utilizationPercent, null);
    assert.strictEqual(row.powerW, null);
    assert.strictEqual(row.temperatureC, 45);
    assert.strictEqual(row.memory.usedBytes, 312 * MIB);
    assert.strictEqual(row.driverVersion, '390.157');
  });

  it('reads an A100 in MIG mode, whose utilization is [N/A]', () => {
    const [row] = parseNvidiaQueryCsv(recorded('nvidia-smi/a100-mig.txt'));
    assert.strictEqual(row.name, 'NVIDIA A100-SXM4-40GB');
    assert.strictEqual(row.utilizationPercent, null);
    assert.strictEqual(row.memory.totalBytes, 40960 * MIB);
  });

  it('reads four GPUs in index order with their bus ids', () => {
    const rows = parseNvidiaQueryCsv(recorded('nvidia-smi/four-a6000.txt'));
    assert.deepStrictEqual(rows.map((row) => [row.index, row.pciBusId, row.utilizationPercent]), [
      [0, '00000000:1A:00.0', 97],
      [1, '00000000:1B:00.0', 96],
      [2, '00000000:3D:00.0', 0],
      [3, '00000000:3E:00.0', 0],
    ]);
  });

  it('reads Windows line endings', () => {
    const [row] = parseNvidiaQueryCsv(recorded('nvidia-smi/rtx3050-laptop-crlf.txt'));
    assert.strictEqual(row.name, 'NVIDIA GeForce RTX 3050 Laptop GPU');
    assert.strictEqual(row.driverVersion, '552.22');
  });

  it('finds no GPU in the failure texts (exit 6, 9, 18, 255) instead of inventing one', () => {
    for (const file of ['exit6-no-devices', 'exit9-driver-not-loaded', 'exit18-version-mismatch', 'exit255-no-supported-gpus']) {
      assert.deepStrictEqual(parseNvidiaQueryCsv(recorded(`nvidia-smi/${file}.txt`)), [], file);
    }
  });

  it('puts back a GPU name that contains a comma', () => {
    const [row] = parseNvidiaQueryCsv('0, GPU-1, NVIDIA Graphics Device, rev 2, 00000000:01:00.0, 1024, 0, 1024, 0, 30, 10.5, 550.54.14');
    assert.strictEqual(row.name, 'NVIDIA Graphics Device, rev 2');
    assert.strictEqual(row.pciBusId, '00000000:01:00.0');
    assert.strictEqual(row.driverVersion, '550.54.14');
  });

  it('derives free memory from total and used when free is unknown', () => {
    const [row] = parseNvidiaQueryCsv('0, GPU-1, Tesla T4, 00000000:00:1E.0, 15360, 1024, [N/A], 0, 30, 10.5, 535.183.01');
    assert.strictEqual(row.memory.freeBytes, 14336 * MIB);
  });
});

describe('devices: nvidia-smi -q, -L and compute apps', () => {
  it('reads the CUDA version the driver supports from -q', () => {
    assert.strictEqual(parseNvidiaCudaVersion(recorded('nvidia-smi-q/h200.txt')), '13.0');
    assert.strictEqual(parseNvidiaCudaVersion(recorded('nvidia-smi-q/rtx4070-cuda12.4.txt')), '12.4');
    assert.strictEqual(parseNvidiaDriverVersion(recorded('nvidia-smi-q/h200.txt')), '580.159.04');
  });

  it('answers null for "CUDA Version : Not Found" and for text without the line', () => {
    assert.strictEqual(parseNvidiaCudaVersion(recorded('nvidia-smi-q/cuda-not-found.txt')), null);
    assert.strictEqual(parseNvidiaCudaVersion(recorded('nvidia-smi/exit9-driver-not-loaded.txt')), null);
  });

  it('also reads the banner of plain nvidia-smi', () => {
    const banner = '| NVIDIA-SMI 550.54.14              Driver Version: 550.54.14      CUDA Version: 12.4     |';
    assert.strictEqual(parseNvidiaCudaVersion(banner), '12.4');
  });

  it('lists MIG instances under their GPU', () => {
    assert.deepStrictEqual(parseNvidiaMigList(recorded('nvidia-smi-L/a100-mig.txt')), [
      {
        index: 0,
        name: 'NVIDIA A100-SXM4-40GB',
        uuid: 'GPU-4f6c2a1e-8d3b-4c7a-9e2f-1a2b3c4d5e6f',
        mig: [
          { profile: '3g.20gb', deviceIndex: 0, uuid: 'MIG-a1b2c3d4-e5f6-5789-8abc-def012345678' },
          { profile: '3g.20gb', deviceIndex: 1, uuid: 'MIG-b2c3d4e5-f6a7-5890-9bcd-ef0123456789' },
        ],
      },
    ]);
  });

  it('reads the older MIG-GPU-<uuid>/gi/ci identifiers', () => {
    const [gpu] = parseNvidiaMigList(recorded('nvidia-smi-L/a100-mig-legacy-uuid.txt'));
    assert.deepStrictEqual(gpu.mig, [{ profile: '1g.5gb', deviceIndex: 0, uuid: 'MIG-GPU-4f6c2a1e-8d3b-4c7a-9e2f-1a2b3c4d5e6f/7/0' }]);
  });

  it('gives GPUs without MIG an empty list', () => {
    const gpus = parseNvidiaMigList(recorded('nvidia-smi-L/h200-rtx4070.txt'));
    assert.deepStrictEqual(gpus.map((gpu) => [gpu.index, gpu.name, gpu.mig.length]), [
      [0, 'NVIDIA H200', 0],
      [1, 'NVIDIA GeForce RTX 4070', 0],
    ]);
  });

  it('reads per-process memory, with [N/A] as null (containers hide it)', () => {
    assert.deepStrictEqual(parseNvidiaComputeApps(recorded('nvidia-smi-compute-apps/two-processes.txt')), [
      { gpuUuid: 'GPU-5d7f3c2a-1b2c-4d3e-9f8a-0123456789ab', pid: 48213, processName: '/home/ada/.venv/bin/python', usedBytes: 20486 * MIB },
      { gpuUuid: 'GPU-0f1e2d3c-4b5a-6978-8a9b-abcdefabcdef', pid: 51022, processName: 'python3', usedBytes: null },
    ]);
    assert.deepStrictEqual(parseNvidiaComputeApps(recorded('nvidia-smi-compute-apps/none.txt')), []);
  });
});
