// src/worker/python/probe.py on its own: exactly one JSON object on stdout, whatever
// torch is (Debian's real CPU build, fake CUDA/MPS/ancient builds, none at all).
import * as assert from 'assert';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { DEBIAN_PYTHON, FAKE_TORCH, requireDebianTorch, ROOT, tempDir, TORCH_INSTALL_COMMAND } from './workerTestKit';

const PROBE = path.join(ROOT, 'src', 'worker', 'python', 'probe.py');

interface ProbeOutput {
  status: number | null;
  stdout: string;
  stderr: string;
  json: Record<string, any>;
}

function runProbe(python: string, pythonPath?: string): ProbeOutput {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.CUDA_VISIBLE_DEVICES;
  if (pythonPath) env.PYTHONPATH = pythonPath;
  else delete env.PYTHONPATH;
  const result = spawnSync(python, [PROBE], { env, encoding: 'utf8', timeout: 60_000 });
  const lines = result.stdout.split('\n').filter((line) => line !== '');
  assert.strictEqual(lines.length, 1, `exactly one line on stdout, got:\n${result.stdout}\nstderr:\n${result.stderr}`);
  return { status: result.status, stdout: result.stdout, stderr: result.stderr, json: JSON.parse(lines[0]) };
}

const TORCH_KEYS = ['version', 'cuda', 'hip', 'mps', 'currentAccelerator', 'cudaVisibleDevices'];
const CUDA_KEYS = ['built', 'available', 'version', 'deviceCount', 'devices', 'cudnnVersion'];
const DEVICE_KEYS = ['index', 'name', 'capability', 'totalMemoryBytes', 'uuid', 'pciBusId', 'freeBytes', 'allocatedBytes', 'reservedBytes'];

describe('probe.py', function () {
  this.timeout(60_000);

  it("reports Debian's real CPU build of PyTorch: built without CUDA, no devices, no MPS", () => {
    const version = requireDebianTorch();
    const { json, status } = runProbe(DEBIAN_PYTHON);
    assert.strictEqual(status, 0);
    assert.deepStrictEqual(Object.keys(json), TORCH_KEYS);
    assert.deepStrictEqual(Object.keys(json.cuda), CUDA_KEYS);
    assert.strictEqual(json.version, version);
    assert.deepStrictEqual(json.cuda, { built: false, available: false, version: null, deviceCount: 0, devices: [], cudnnVersion: null });
    assert.strictEqual(json.hip, null);
    assert.deepStrictEqual(json.mps, { built: false, available: false, allocates: false, error: null });
    assert.strictEqual(json.cudaVisibleDevices, null);
  });

  it('reports two CUDA devices with capability, memory, UUID and PCI bus id, and keeps import banners off stdout', () => {
    const { json, stderr } = runProbe(DEBIAN_PYTHON, path.join(FAKE_TORCH, 'cuda-two-devices'));
    assert.match(stderr, /fake torch: loading CUDA plugins\n/);
    assert.match(stderr, /native library banner on fd 1/);
    assert.deepStrictEqual(
      { ...json.cuda, devices: undefined },
      { built: true, available: true, version: '12.4', deviceCount: 2, devices: undefined, cudnnVersion: 90100 },
    );
    assert.deepStrictEqual(Object.keys(json.cuda.devices[0]), DEVICE_KEYS);
    assert.deepStrictEqual(json.cuda.devices[1], {
      index: 1,
      name: 'NVIDIA H200',
      capability: [9, 0],
      totalMemoryBytes: 150754820096,
      uuid: '5d7f3c2a-1b2c-4d3e-9f8a-0123456789ab',
      pciBusId: '00000000:19:00.0',
      freeBytes: 150754820096 - 512 * 1024 ** 2,
      allocatedBytes: 0,
      reservedBytes: 0,
    });
    assert.strictEqual(json.currentAccelerator, 'cuda');
  });

  it('reports a CUDA build that cannot reach an old driver as built but not available', () => {
    const { json, stderr } = runProbe(DEBIAN_PYTHON, path.join(FAKE_TORCH, 'driver-too-old'));
    assert.deepStrictEqual(json.cuda, { built: true, available: false, version: '12.8', deviceCount: 0, devices: [], cudnnVersion: null });
    assert.match(stderr, /driver on your system is too old/);
  });

  it("reports MPS that is available but cannot allocate, with the error's first line", () => {
    const { json } = runProbe(DEBIAN_PYTHON, path.join(FAKE_TORCH, 'mps-allocation-fails'));
    assert.deepStrictEqual(json.mps, {
      built: true,
      available: true,
      allocates: false,
      error: 'MPS backend out of memory (MPS allocated: 0 bytes, other allocations: 0 bytes, max allowed: 0 bytes).',
    });
    assert.strictEqual(json.currentAccelerator, 'mps');
  });

  it('copes with an old torch that lacks every newer API', () => {
    const { json, status } = runProbe(DEBIAN_PYTHON, path.join(FAKE_TORCH, 'ancient'));
    assert.strictEqual(status, 0);
    assert.deepStrictEqual(json, {
      version: '1.4.0',
      cuda: { built: true, available: false, version: '10.1', deviceCount: 0, devices: [], cudnnVersion: null },
      hip: null,
      mps: { built: false, available: false, allocates: false, error: null },
      currentAccelerator: null,
      cudaVisibleDevices: null,
    });
  });

  it('reports CUDA_VISIBLE_DEVICES as the interpreter sees it', () => {
    const result = spawnSync(DEBIAN_PYTHON, [PROBE], { env: { ...process.env, PYTHONPATH: path.join(FAKE_TORCH, 'ancient'), CUDA_VISIBLE_DEVICES: '-1' }, encoding: 'utf8' });
    assert.strictEqual(JSON.parse(result.stdout).cudaVisibleDevices, '-1');
  });

  it('answers {"error": ...} in an environment without torch (a fresh virtual environment)', () => {
    const tmp = tempDir('dd-venv-');
    try {
      const venv = spawnSync(DEBIAN_PYTHON, ['-m', 'venv', '--without-pip', path.join(tmp, 'venv')], { encoding: 'utf8' });
      assert.strictEqual(venv.status, 0, venv.stderr);
      const { json, status } = runProbe(path.join(tmp, 'venv', 'bin', 'python'), path.join(tmp, 'empty'));
      assert.strictEqual(status, 0);
      assert.deepStrictEqual(json, { error: "No module named 'torch'" });
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('a missing real PyTorch fails the tests with the install command instead of skipping them', () => {
    const tmp = tempDir('dd-venv-');
    try {
      spawnSync(DEBIAN_PYTHON, ['-m', 'venv', '--without-pip', path.join(tmp, 'venv')]);
      assert.throws(
        () => requireDebianTorch(path.join(tmp, 'venv', 'bin', 'python')),
        (err: Error) => err.name === 'AssertionError' && err.message.includes(TORCH_INSTALL_COMMAND) && /No module named 'torch'/.test(err.message),
      );
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it("ends once its answer is out: torch's exit hooks never run, and what it wrote to stderr still arrives", () => {
    // The teardown of a real torch (exit hooks, finalizers) was a quarter of a second of detect.
    const tmp = tempDir('dd-exit-hook-torch-');
    try {
      fs.mkdirSync(path.join(tmp, 'torch'));
      fs.writeFileSync(
        path.join(tmp, 'torch', '__init__.py'),
        'import atexit, sys\n__version__ = "2.0.0"\nsys.stderr.write("fake torch: imported")\natexit.register(lambda: sys.stderr.write("fake torch: torn down\\n"))\n',
      );
      const { json, status, stderr } = runProbe(DEBIAN_PYTHON, tmp);
      assert.strictEqual(status, 0);
      assert.strictEqual(json.version, '2.0.0');
      assert.match(stderr, /fake torch: imported/);
      assert.doesNotMatch(stderr, /torn down/);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('answers {"error": ...} when importing torch raises something other than ImportError', () => {
    const tmp = tempDir('dd-broken-torch-');
    try {
      fs.mkdirSync(path.join(tmp, 'torch'));
      fs.writeFileSync(path.join(tmp, 'torch', '__init__.py'), 'raise OSError("libcudart.so.12: cannot open shared object file")\n');
      const { json } = runProbe(DEBIAN_PYTHON, tmp);
      assert.deepStrictEqual(json, { error: 'OSError: libcudart.so.12: cannot open shared object file' });
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});
