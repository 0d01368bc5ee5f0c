import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { buildHostInfo, parseProcCpuinfo, type HostFacts } from '../../src/core/devices/host';
import { parseTorchProbe, torchStatusFromRun } from '../../src/core/devices/torchProbe';
import type { ToolRun } from '../../src/core/devices/toolRun';

const PROBES = path.join(__dirname, '..', 'fixtures', 'probes');
const recorded = (file: string): string => fs.readFileSync(path.join(PROBES, file), 'utf8');
const PY = '/usr/bin/python3';

describe('devices: /proc/cpuinfo and host facts', () => {
  it('reads an x86 Xeon with AVX-512 and AMX (recorded on the build machine)', () => {
    const cpu = parseProcCpuinfo(recorded('cpuinfo/x86-xeon-amx.txt'));
    assert.strictEqual(cpu.model, 'Intel(R) Xeon(R) Processor');
    assert.strictEqual(cpu.cores, 2);
    assert.deepStrictEqual(cpu.flags, [
      'sse4_2', 'avx', 'avx2', 'fma', 'f16c', 'avx512f', 'avx512bw', 'avx512_vnni', 'avx512_bf16', 'avx512_fp16', 'avx_vnni',
      'amx_tile', 'amx_bf16', 'amx_int8',
    ]);
  });

  it('reads an AMD EPYC without AVX-512', () => {
    assert.deepStrictEqual(parseProcCpuinfo(recorded('cpuinfo/x86-epyc-zen3.txt')), {
      model: 'AMD EPYC 7B13',
      cores: 2,
      flags: ['sse4_2', 'avx', 'avx2', 'fma', 'f16c'],
    });
  });

  it('reads aarch64, which has Features instead of flags and no model name', () => {
    assert.deepStrictEqual(parseProcCpuinfo(recorded('cpuinfo/aarch64-neoverse-n1.txt')), {
      model: 'ARM Neoverse-N1',
      cores: 4,
      flags: ['asimd', 'asimdhp', 'asimddp'],
    });
    assert.deepStrictEqual(parseProcCpuinfo(recorded('cpuinfo/aarch64-neoverse-v1-sve.txt')).flags, ['asimd', 'asimdhp', 'asimddp', 'sve', 'bf16', 'i8mm']);
  });

  it('answers nulls for empty text', () => {
    assert.deepStrictEqual(parseProcCpuinfo(''), { model: null, cores: null, flags: [] });
  });

  const linux: HostFacts = {
    platform: 'linux',
    arch: 'x64',
    cpuModels: ['AMD EPYC 7B13', 'AMD EPYC 7B13'],
    logicalCores: 2,
    totalMemoryBytes: 25769803776,
    freeMemoryBytes: 24000000000,
    procCpuinfo: recorded('cpuinfo/x86-epyc-zen3.txt'),
  };

  it('builds HostInfo in PROBES.md shape from os values and /proc/cpuinfo', () => {
    assert.deepStrictEqual(buildHostInfo(linux), {
      platform: 'linux',
      arch: 'x64',
      cpu: { model: 'AMD EPYC 7B13', cores: 2, flags: ['sse4_2', 'avx', 'avx2', 'fma', 'f16c'] },
      memory: { totalBytes: 25769803776, freeBytes: 24000000000 },
    });
  });

  it('on macOS arm64 takes the model from os.cpus() and knows Advanced SIMD is there', () => {
    const mac = buildHostInfo({ platform: 'darwin', arch: 'arm64', cpuModels: ['Apple M2 Max'], logicalCores: 12, totalMemoryBytes: 34359738368, freeMemoryBytes: 1.5e9 });
    assert.deepStrictEqual(mac.cpu, { model: 'Apple M2 Max', cores: 12, flags: ['asimd'] });
  });

  it('falls back to the cpuinfo count and to null model when Node knows nothing', () => {
    const host = buildHostInfo({ ...linux, cpuModels: ['', ''], logicalCores: undefined, procCpuinfo: recorded('cpuinfo/aarch64-neoverse-n1.txt') });
    assert.deepStrictEqual(host.cpu, { model: 'ARM Neoverse-N1', cores: 4, flags: ['asimd', 'asimdhp', 'asimddp'] });
    const bare = buildHostInfo({ platform: 'linux', arch: 'x64', cpuModels: [], totalMemoryBytes: null, freeMemoryBytes: null });
    assert.deepStrictEqual(bare.cpu, { model: null, cores: null, flags: [] });
    assert.deepStrictEqual(bare.memory, { totalBytes: null, freeBytes: null });
  });
});

describe('devices: the PyTorch probe', () => {
  it('reads Debian python3-torch (a CPU build), recorded on the build machine', () => {
    assert.deepStrictEqual(parseTorchProbe(recorded('torch-probe/debian-cpu-build.json'), PY), {
      interpreter: PY,
      version: '1.13.0a0',
      cuda: { built: false, available: false, version: null, deviceCount: 0, devices: [], cudnnVersion: null },
      hip: null,
      mps: { built: false, available: false, allocates: false, error: null },
      currentAccelerator: null,
      cudaVisibleDevices: null,
    });
  });

  it('reads a CUDA build with one H200 and its device details', () => {
    const status = parseTorchProbe(recorded('torch-probe/cuda-h200.json'), PY);
    assert.ok(!('error' in status));
    assert.deepStrictEqual([status.cuda.built, status.cuda.available, status.cuda.version, status.cuda.deviceCount], [true, true, '13.0', 1]);
    assert.deepStrictEqual(status.cuda.devices?.[0].capability, [9, 0]);
    assert.strictEqual(status.cuda.devices?.[0].totalMemoryBytes, 150754820096);
  });

  it('reads a ROCm build: hip set, devices as cuda', () => {
    const status = parseTorchProbe(recorded('torch-probe/rocm-mi250.json'), PY);
    assert.ok(!('error' in status));
    assert.strictEqual(status.hip, '6.2.41133-dd7f95766');
    assert.strictEqual(status.cuda.version, null);
    assert.strictEqual(status.cuda.deviceCount, 2);
  });

  it('reads MPS that is available but cannot allocate', () => {
    const status = parseTorchProbe(recorded('torch-probe/mps-allocation-fails.json'), PY);
    assert.ok(!('error' in status));
    assert.deepStrictEqual(status.mps, {
      built: true,
      available: true,
      allocates: false,
      error: 'MPS backend out of memory (MPS allocated: 0 bytes, other allocations: 0 bytes, max allowed: 0 bytes).',
    });
  });

  it('a missing torch is a result: {interpreter, error}', () => {
    assert.deepStrictEqual(parseTorchProbe(recorded('torch-probe/torch-missing.json'), PY), { interpreter: PY, error: "No module named 'torch'" });
  });

  it('finds the JSON after a banner a sitecustomize printed', () => {
    const status = parseTorchProbe(recorded('torch-probe/banner-then-json.txt'), PY);
    assert.ok(!('error' in status));
    assert.strictEqual(status.version, '2.5.1');
  });

  it('anything unparsable says the probe printed no valid JSON', () => {
    assert.deepStrictEqual(parseTorchProbe('Segmentation fault\n', PY), { interpreter: PY, error: 'the PyTorch probe printed no valid JSON: Segmentation fault' });
    assert.deepStrictEqual(parseTorchProbe('', PY), { interpreter: PY, error: 'the PyTorch probe printed no valid JSON: (empty output)' });
    const noVersion = parseTorchProbe('{"cuda": {}}', PY);
    assert.ok('error' in noVersion && noVersion.error.startsWith('the PyTorch probe printed no valid JSON'));
  });

  it('distrusts field types: wrong types become safe defaults', () => {
    const status = parseTorchProbe('{"version": "2.0", "cuda": {"built": "yes", "available": true, "deviceCount": -3, "devices": [{"index": 0, "capability": [8]}]}, "mps": null}', PY);
    assert.ok(!('error' in status));
    assert.strictEqual(status.cuda.built, false);
    assert.strictEqual(status.cuda.deviceCount, 1);
    assert.deepStrictEqual(status.cuda.devices?.[0].capability, null);
    assert.deepStrictEqual(status.mps, { built: false, available: false, allocates: false, error: null });
  });

  it('a missing interpreter, a hang and a crash become errors too', () => {
    const run = (over: Partial<ToolRun>): ToolRun => ({ exitCode: 0, stdout: '', stderr: '', ...over });
    assert.deepStrictEqual(torchStatusFromRun(run({ exitCode: null, errorCode: 'ENOENT' }), '/opt/venv/bin/python'), {
      interpreter: '/opt/venv/bin/python',
      error: 'Python interpreter not found: /opt/venv/bin/python',
    });
    assert.deepStrictEqual(torchStatusFromRun(run({ exitCode: null, errorCode: 'TIMEOUT', timeoutMs: 120000 }), PY), {
      interpreter: PY,
      error: 'importing torch did not finish within 120 s; the probe was stopped',
    });
    const meta = JSON.parse(recorded('torch-probe/python-crash.meta.json')) as ToolRun;
    assert.deepStrictEqual(torchStatusFromRun({ ...meta, stdout: recorded('torch-probe/python-crash.txt') }, PY), {
      interpreter: PY,
      error: 'the PyTorch probe failed (exit code 1): SyntaxError: invalid syntax',
    });
    assert.strictEqual(torchStatusFromRun(run({ stdout: recorded('torch-probe/cuda-h200.json') }), PY).interpreter, PY);
  });
});
