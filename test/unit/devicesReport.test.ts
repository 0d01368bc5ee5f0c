import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { buildDeviceReport, type ProbeRuns } from '../../src/core/devices/buildReport';
import type { SysfsDrmCard } from '../../src/core/devices/amd';
import type { DeviceReport } from '../../src/core/devices/report';
import type { ToolRun } from '../../src/core/devices/toolRun';

const PROBES = path.join(__dirname, '..', 'fixtures', 'probes');
const MIB = 1024 * 1024;

/** A recorded run: stdout from the case file, exit code and stderr from <case>.meta.json. */
function recordedRun(file: string): ToolRun {
  const stdout = fs.readFileSync(path.join(PROBES, file), 'utf8');
  const metaFile = path.join(PROBES, file.replace(/\.(txt|json)$/, '.meta.json'));
  if (!fs.existsSync(metaFile)) return { exitCode: 0, stdout, stderr: '' };
  return { ...(JSON.parse(fs.readFileSync(metaFile, 'utf8')) as ToolRun), stdout };
}

const ok = (stdout: string): ToolRun => ({ exitCode: 0, stdout, stderr: '' });
const torchRun = (file: string, interpreter = '/usr/bin/python3') => ({ interpreter, run: recordedRun(`torch-probe/${file}`) });

/** PROBES.md's example host: 2 AMD EPYC cores with avx2 and fma, 24 GiB. */
const linuxHost: ProbeRuns['host'] = {
  platform: 'linux',
  arch: 'x64',
  cpuModels: ['AMD EPYC', 'AMD EPYC'],
  logicalCores: 2,
  totalMemoryBytes: 25769803776,
  freeMemoryBytes: 24000000000,
  procCpuinfo: 'processor\t: 0\nmodel name\t: AMD EPYC\nflags\t\t: fpu sse2 avx2 fma\n\nprocessor\t: 1\nmodel name\t: AMD EPYC\nflags\t\t: fpu sse2 avx2 fma\n',
};

function h200Runs(over: Partial<ProbeRuns> = {}): ProbeRuns {
  return {
    host: linuxHost,
    nvidia: { query: recordedRun('nvidia-smi/h200.txt'), details: recordedRun('nvidia-smi-q/h200.txt'), list: ok('GPU 0: NVIDIA H200 (UUID: GPU-5d7f3c2a-1b2c-4d3e-9f8a-0123456789ab)\n') },
    rocmSmi: { exitCode: null, stdout: '', stderr: '', errorCode: 'ENOENT' },
    amdSmi: { static: { exitCode: null, stdout: '', stderr: '', errorCode: 'ENOENT' }, metric: null },
    sysfsCards: [],
    systemProfiler: null,
    torch: torchRun('cuda-h200.json'),
    pinnedDevice: null,
    cudaVisibleDevices: null,
    ...over,
  };
}

/** PROBES.md's example report, verbatim except its illustrative problem (a CUDA build cannot also be CPU-only). */
const PROBES_EXAMPLE = JSON.parse(`{
  "schemaVersion": 1,
  "host": {"platform": "linux", "arch": "x64",
           "cpu": {"model": "AMD EPYC", "cores": 2, "flags": ["avx2", "fma"]},
           "memory": {"totalBytes": 25769803776, "freeBytes": 24000000000}},
  "accelerators": [
    {"id": "cuda:0", "vendor": "nvidia", "api": "cuda", "name": "NVIDIA H200",
     "uuid": "GPU-…", "pciBusId": "00000000:19:00.0",
     "memory": {"totalBytes": 150754820096, "usedBytes": 0, "freeBytes": 150110994432},
     "utilizationPercent": 0, "temperatureC": 31, "powerW": 75.32,
     "driverVersion": "580.159.04", "cudaVersion": "13.0", "mig": []}
  ],
  "torch": {"interpreter": "/usr/bin/python3", "version": "2.11.0",
            "cuda": {"built": true, "available": true, "version": "13.0", "deviceCount": 1},
            "mps": {"built": false, "available": false}},
  "selected": {"device": "cuda:0", "reason": "CUDA is available to PyTorch"},
  "problems": [{"source": "torch", "code": "torch-cpu-only-build",
                "message": "PyTorch was not built with CUDA support",
                "hint": "install a CUDA build of PyTorch; this driver supports CUDA 12.4"}]
}`) as Record<string, unknown>;

/** Every key of `expected` is in `actual`, in the same order; objects recursively (the first array item stands for all). */
function assertSameShape(actual: unknown, expected: unknown, where: string, exact: boolean): void {
  if (Array.isArray(expected)) {
    assert.ok(Array.isArray(actual), `${where} is an array`);
    if (expected.length > 0 && actual.length > 0) actual.forEach((item, i) => assertSameShape(item, expected[0], `${where}[${i}]`, exact));
    return;
  }
  if (typeof expected !== 'object' || expected === null) return;
  assert.ok(typeof actual === 'object' && actual !== null, `${where} is an object`);
  const actualKeys = Object.keys(actual);
  const expectedKeys = Object.keys(expected);
  if (exact) assert.deepStrictEqual(actualKeys, expectedKeys, `${where}: keys`);
  else assert.deepStrictEqual(actualKeys.filter((key) => expectedKeys.includes(key)), expectedKeys, `${where}: keys in order`);
  for (const key of expectedKeys) {
    const nested = (actual as Record<string, unknown>)[key];
    assertSameShape(nested, (expected as Record<string, unknown>)[key], `${where}.${key}`, exact && key !== 'torch');
  }
}

/** Every *Bytes value in the report is an integer or null. */
function assertIntegerBytes(value: unknown, where = 'report'): void {
  if (Array.isArray(value)) value.forEach((item, i) => assertIntegerBytes(item, `${where}[${i}]`));
  else if (typeof value === 'object' && value !== null) {
    for (const [key, nested] of Object.entries(value)) {
      if (/Bytes$/.test(key)) assert.ok(nested === null || Number.isInteger(nested), `${where}.${key} = ${String(nested)}`);
      assertIntegerBytes(nested, `${where}.${key}`);
    }
  }
}

describe('devices: the device report (PROBES.md shape)', () => {
  it('has exactly the example keys, in order, for one H200 and a CUDA PyTorch', () => {
    const report = buildDeviceReport(h200Runs());
    assertSameShape(report, PROBES_EXAMPLE, 'report', true);
  });

  it('carries the example values (free memory from the CSV: 143156 MiB)', () => {
    const report = buildDeviceReport(h200Runs());
    assert.deepStrictEqual(report.host, PROBES_EXAMPLE['host']);
    assert.deepStrictEqual(report.accelerators, [
      {
        id: 'cuda:0', vendor: 'nvidia', api: 'cuda', name: 'NVIDIA H200',
        uuid: 'GPU-5d7f3c2a-1b2c-4d3e-9f8a-0123456789ab', pciBusId: '00000000:19:00.0',
        memory: { totalBytes: 150754820096, usedBytes: 0, freeBytes: 143156 * MIB },
        utilizationPercent: 0, temperatureC: 31, powerW: 75.32,
        driverVersion: '580.159.04', cudaVersion: '13.0', mig: [],
      },
    ]);
    assert.deepStrictEqual(report.selected, PROBES_EXAMPLE['selected']);
    assert.deepStrictEqual(report.problems, []);
    const torch = report.torch;
    assert.ok(torch && !('error' in torch));
    assert.deepStrictEqual([torch.interpreter, torch.version, torch.cuda.built, torch.cuda.available, torch.cuda.version, torch.cuda.deviceCount], ['/usr/bin/python3', '2.11.0', true, true, '13.0', 1]);
  });

  it('uses PROBES.md problem shape and key order (Debian CPU torch, a GPU, driver CUDA 12.4)', () => {
    const report = buildDeviceReport(h200Runs({
      nvidia: { query: recordedRun('nvidia-smi/h200-rtx4070.txt'), details: recordedRun('nvidia-smi-q/rtx4070-cuda12.4.txt'), list: null },
      torch: torchRun('debian-cpu-build.json'),
    }));
    // PROBES.md's example, with the exact pip command for the driver's CUDA (issue 13) after its hint.
    const [example] = PROBES_EXAMPLE['problems'] as Array<Record<string, string>>;
    assert.deepStrictEqual(report.problems, [{
      ...example,
      hint: `${example.hint}: /usr/bin/python3 -m pip install --force-reinstall torch --index-url https://download.pytorch.org/whl/cu124`,
    }]);
    assert.deepStrictEqual(report.selected, { device: 'cpu', reason: "GPU present, PyTorch can't use it" });
    assert.deepStrictEqual(report.accelerators.map((a) => a.id), ['nvidia:0', 'nvidia:1'], 'ids do not claim what PyTorch cannot use');
  });

  it('a missing torch is {interpreter, error} and the report still exits cleanly', () => {
    const report = buildDeviceReport(h200Runs({ torch: torchRun('torch-missing.json', '/opt/venv/bin/python') }));
    assert.deepStrictEqual(report.torch, { interpreter: '/opt/venv/bin/python', error: "No module named 'torch'" });
    assert.deepStrictEqual(report.problems.map((p) => p.code), ['torch-missing']);
    assert.strictEqual(report.selected.device, 'cpu');
  });

  it('maps fastest-first torch devices to nvidia-smi rows by UUID and pins cuda:1', () => {
    const report = buildDeviceReport(h200Runs({
      nvidia: { query: recordedRun('nvidia-smi/h200-rtx4070.txt'), details: recordedRun('nvidia-smi-q/rtx4070-cuda12.4.txt'), list: null },
      torch: torchRun('cuda-two-devices-fastest-first.json'),
      pinnedDevice: 'cuda:1',
    }));
    assert.deepStrictEqual(report.accelerators.map((a) => [a.id, a.name]), [['cuda:0', 'NVIDIA H200'], ['cuda:1', 'NVIDIA GeForce RTX 4070']]);
    assert.deepStrictEqual(report.selected, { device: 'cuda:1', reason: 'pinned by deviceDoctor.device' });
  });

  it('honours CUDA_VISIBLE_DEVICES=2: the third A6000 is cuda:0 and comes first', () => {
    const report = buildDeviceReport(h200Runs({ nvidia: { query: recordedRun('nvidia-smi/four-a6000.txt') }, torch: torchRun('cuda-visible-devices-1.json') }));
    assert.deepStrictEqual(report.accelerators.map((a) => [a.id, a.pciBusId]), [
      ['cuda:0', '00000000:3D:00.0'],
      ['nvidia:0', '00000000:1A:00.0'],
      ['nvidia:1', '00000000:1B:00.0'],
      ['nvidia:3', '00000000:3E:00.0'],
    ]);
  });

  it('lists MIG instances on their GPU', () => {
    const report = buildDeviceReport(h200Runs({
      nvidia: { query: recordedRun('nvidia-smi/a100-mig.txt'), details: null, list: recordedRun('nvidia-smi-L/a100-mig.txt') },
      torch: null,
    }));
    assert.deepStrictEqual(report.accelerators[0].mig.map((m) => [m.profile, m.deviceIndex]), [['3g.20gb', 0], ['3g.20gb', 1]]);
    assert.strictEqual(report.accelerators[0].utilizationPercent, null);
  });

  it('nvidia-smi failures become problems, not accelerators (exit 18, hang) or nothing at all (exit 6, ENOENT)', () => {
    const withQuery = (file: string): DeviceReport => buildDeviceReport(h200Runs({ nvidia: { query: recordedRun(file) }, torch: null }));
    assert.deepStrictEqual(withQuery('nvidia-smi/exit18-version-mismatch.txt').problems.map((p) => p.code), ['nvml-version-mismatch']);
    assert.deepStrictEqual(withQuery('nvidia-smi/hang.txt').problems.map((p) => p.code), ['nvidia-smi-timeout']);
    for (const file of ['nvidia-smi/exit6-no-devices.txt', 'nvidia-smi/not-installed.txt']) {
      const report = withQuery(file);
      assert.deepStrictEqual([report.accelerators, report.problems], [[], []], file);
    }
  });

  it('a ROCm PyTorch and rocm-smi: both MI250 dies become cuda:0 and cuda:1', () => {
    const report = buildDeviceReport(h200Runs({ nvidia: { query: recordedRun('nvidia-smi/not-installed.txt') }, rocmSmi: recordedRun('rocm-smi/mi250-two-dies.json'), torch: torchRun('rocm-mi250.json') }));
    assert.deepStrictEqual(report.accelerators.map((a) => [a.id, a.vendor, a.api]), [['cuda:0', 'amd', 'rocm'], ['cuda:1', 'amd', 'rocm']]);
    assert.deepStrictEqual(report.problems, []);
    assert.match(report.selected.reason, /ROCm/);
  });

  it('amd-smi is preferred to rocm-smi, and sysfs stands in when no tool works', () => {
    const amdSmi = { static: recordedRun('amd-smi/mi300x-static.json'), metric: recordedRun('amd-smi/mi300x-metric.json') };
    const viaAmdSmi = buildDeviceReport(h200Runs({ nvidia: null, amdSmi, rocmSmi: recordedRun('rocm-smi/rx7900xt.json'), torch: null }));
    assert.deepStrictEqual(viaAmdSmi.accelerators.map((a) => a.name), ['AMD Instinct MI300X', 'AMD Instinct MI300X']);
    const card = JSON.parse(fs.readFileSync(path.join(PROBES, 'sysfs/rx6700xt.json'), 'utf8')) as SysfsDrmCard;
    const viaSysfs = buildDeviceReport(h200Runs({ nvidia: null, rocmSmi: recordedRun('rocm-smi/warning-no-json.txt'), sysfsCards: [card], torch: null }));
    assert.deepStrictEqual(viaSysfs.accelerators.map((a) => [a.id, a.memory.totalBytes]), [['amd:1', 12868124672]]);
  });

  it('Apple silicon: the GPU is "mps" with the unified (system) memory, selected when it allocates', () => {
    const report = buildDeviceReport({
      host: { platform: 'darwin', arch: 'arm64', cpuModels: ['Apple M2 Max'], logicalCores: 12, totalMemoryBytes: 34359738368, freeMemoryBytes: 8589934592 },
      systemProfiler: recordedRun('system_profiler/m2-max.json'),
      torch: torchRun('mps-m2-max.json', '/opt/homebrew/bin/python3'),
      pinnedDevice: null,
    });
    assert.deepStrictEqual(report.accelerators.map((a) => [a.id, a.vendor, a.api, a.memory]), [
      ['mps', 'apple', 'mps', { totalBytes: 34359738368, usedBytes: 25769803776, freeBytes: 8589934592 }],
    ]);
    assert.strictEqual(report.selected.device, 'mps');
    assert.ok(!JSON.stringify(report).includes('fd626d62'), 'no display serial number');
  });

  it('an Intel Mac lists its integrated and discrete GPUs by vendor', () => {
    const report = buildDeviceReport({
      host: { platform: 'darwin', arch: 'x64', cpuModels: ['Intel(R) Core(TM) i9-9980HK CPU @ 2.40GHz'], totalMemoryBytes: 34359738368, freeMemoryBytes: 1e10 },
      systemProfiler: recordedRun('system_profiler/intel-mac-radeon-pro.json'),
      torch: null,
      pinnedDevice: null,
    });
    assert.deepStrictEqual(report.accelerators.map((a) => [a.id, a.memory.totalBytes]), [['amd:1', 8 * 1024 * MIB], ['intel:0', null]]);
  });

  it('PyTorch sees CUDA but no tool answered: its own devices are listed', () => {
    const report = buildDeviceReport(h200Runs({ nvidia: { query: recordedRun('nvidia-smi/not-installed.txt') } }));
    assert.deepStrictEqual(report.accelerators.map((a) => [a.id, a.name, a.uuid, a.memory.usedBytes]), [
      ['cuda:0', 'NVIDIA H200', 'GPU-5d7f3c2a-1b2c-4d3e-9f8a-0123456789ab', 150754820096 - 150110994432],
    ]);
  });

  it('bytes are integers and unknowns are null in every scenario, and the JSON round-trips', () => {
    const scenarios = [
      h200Runs(),
      h200Runs({ nvidia: { query: recordedRun('nvidia-smi/gtx770-not-supported.txt') }, torch: torchRun('python-crash.txt') }),
      h200Runs({ amdSmi: { static: recordedRun('amd-smi/rx7900xtx-static-gpu-data.json'), metric: recordedRun('amd-smi/rx7900xtx-metric-gpu-data.json') } }),
    ];
    for (const runs of scenarios) {
      const report = buildDeviceReport(runs);
      assertIntegerBytes(report);
      assert.deepStrictEqual(JSON.parse(JSON.stringify(report)), report);
      assert.ok(!JSON.stringify(report).includes('undefined'));
    }
  });
});
