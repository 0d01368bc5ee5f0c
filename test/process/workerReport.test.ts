// The report the forked worker answers `detect` with, scenario by scenario: fake tools
// on PATH, fake torch packages on PYTHONPATH, Debian's real PyTorch, no PyTorch, no
// interpreter. The parsers and the diagnosis have their own tests on recorded outputs;
// these prove the worker runs the right tools and hands their outputs over intact.
import * as assert from 'assert';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import type { DeviceReport, Problem } from '../../src/core/devices/report';
import { DetectRequest, StartMonitorRequest, StopMonitorRequest, type ProbeOptions } from '../../src/protocol/worker';
import { buildDist, DEBIAN_PYTHON, FAKE_BIN, FAKE_TORCH, requireDebianTorch, scenarioEnv, tempDir, waitFor, WorkerUnderTest } from './workerTestKit';

const MIB = 1024 ** 2;

function codes(problems: Problem[]): string[] {
  return problems.map((p) => p.code);
}

describe('worker: the device report per scenario', function () {
  this.timeout(60_000);
  let tmp: string;
  const workers: WorkerUnderTest[] = [];

  before(() => buildDist());

  beforeEach(() => {
    tmp = tempDir('dd-report-');
  });

  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.stop()));
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  async function detect(scenario: string | undefined, options: Partial<ProbeOptions>, torchFake?: string): Promise<DeviceReport> {
    const worker = new WorkerUnderTest(scenarioEnv(scenario, torchFake ? { PYTHONPATH: path.join(FAKE_TORCH, torchFake) } : {}));
    workers.push(worker);
    return worker.connection.sendRequest(DetectRequest, { pythonPath: null, pinnedDevice: null, timeoutMs: 30_000, ...options });
  }

  it('two NVIDIA GPUs and a CUDA PyTorch: cuda:N matched to nvidia-smi rows by UUID, bytes as integers', async () => {
    const report = await detect('nvidia-two-gpus', { pythonPath: DEBIAN_PYTHON }, 'cuda-two-devices');
    assert.deepStrictEqual(
      report.accelerators.map((a) => [a.id, a.name, a.uuid, a.pciBusId, a.memory.totalBytes, a.driverVersion, a.cudaVersion]),
      [
        ['cuda:0', 'NVIDIA GeForce RTX 4070', 'GPU-0f1e2d3c-4b5a-6978-8a9b-abcdefabcdef', '00000000:01:00.0', 12282 * MIB, '550.54.14', '12.4'],
        ['cuda:1', 'NVIDIA H200', 'GPU-5d7f3c2a-1b2c-4d3e-9f8a-0123456789ab', '00000000:19:00.0', 143771 * MIB, '580.159.04', '12.4'],
      ],
    );
    const rtx = report.accelerators[0];
    assert.deepStrictEqual(rtx.memory, { totalBytes: 12282 * MIB, usedBytes: 531 * MIB, freeBytes: 11474 * MIB });
    assert.strictEqual(rtx.powerW, null, '[N/A] is null');
    assert.ok(report.torch && !('error' in report.torch));
    assert.strictEqual(report.torch.interpreter, DEBIAN_PYTHON);
    assert.strictEqual(report.torch.cuda.deviceCount, 2);
    assert.deepStrictEqual(report.selected, { device: 'cuda:0', reason: 'CUDA is available to PyTorch' });
    assert.deepStrictEqual(report.problems, []);
  });

  it("honours the user's pinned device", async () => {
    const report = await detect('nvidia-two-gpus', { pythonPath: DEBIAN_PYTHON, pinnedDevice: 'cuda:1' }, 'cuda-two-devices');
    assert.deepStrictEqual(report.selected, { device: 'cuda:1', reason: 'pinned by deviceDoctor.device' });
  });

  it("Debian's real CPU-only PyTorch beside a GPU: torch-cpu-only-build, and the CPU is selected", async () => {
    const version = requireDebianTorch();
    const report = await detect('nvidia-two-gpus', { pythonPath: DEBIAN_PYTHON });
    assert.ok(report.torch && !('error' in report.torch));
    assert.strictEqual(report.torch.version, version);
    assert.strictEqual(report.torch.cuda.built, false);
    assert.deepStrictEqual(codes(report.problems), ['torch-cpu-only-build']);
    assert.match(report.problems[0].hint, /CUDA 12\.4/);
    assert.strictEqual(report.selected.device, 'cpu');
    assert.strictEqual(report.accelerators.length, 2);
  });

  it("a driver older than PyTorch's CUDA: driver-too-old", async () => {
    const report = await detect('nvidia-two-gpus', { pythonPath: DEBIAN_PYTHON }, 'driver-too-old');
    assert.deepStrictEqual(codes(report.problems), ['driver-too-old']);
    assert.match(report.problems[0].message, /12\.4.*12\.8/);
    assert.strictEqual(report.selected.device, 'cpu');
  });

  it('MPS built and available but failing to allocate: mps-runtime-failure, CPU selected', async () => {
    const report = await detect(undefined, { pythonPath: DEBIAN_PYTHON }, 'mps-allocation-fails');
    assert.deepStrictEqual(codes(report.problems), ['mps-runtime-failure']);
    assert.match(report.problems[0].message, /MPS backend out of memory/);
    assert.strictEqual(report.selected.device, 'cpu');
  });

  it('an interpreter without torch: torch-missing, torch is {interpreter, error}', async () => {
    const python = path.join(tmp, 'venv', 'bin', 'python');
    assert.strictEqual(spawnSync(DEBIAN_PYTHON, ['-m', 'venv', '--without-pip', path.join(tmp, 'venv')]).status, 0);
    const report = await detect(undefined, { pythonPath: python });
    assert.deepStrictEqual(report.torch, { interpreter: python, error: "No module named 'torch'" });
    assert.deepStrictEqual(codes(report.problems), ['torch-missing']);
    assert.strictEqual(report.selected.device, 'cpu');
  });

  it('an interpreter that does not exist: a problem, not a crash', async () => {
    const missing = path.join(tmp, 'nowhere', 'python3');
    const report = await detect('nvidia-two-gpus', { pythonPath: missing });
    assert.ok(report.torch && 'error' in report.torch);
    assert.strictEqual(report.torch.interpreter, missing);
    assert.match(report.torch.error, /not found/);
    assert.deepStrictEqual(codes(report.problems), ['interpreter-not-found']);
    assert.strictEqual(report.accelerators.length, 2);
  });

  it('nvidia-smi exit 18 (driver/library mismatch): nvml-version-mismatch with the reboot hint', async () => {
    const report = await detect('nvidia-version-mismatch', {});
    assert.deepStrictEqual(codes(report.problems), ['nvml-version-mismatch']);
    assert.match(report.problems[0].hint, /reboot/);
    assert.deepStrictEqual(report.accelerators, []);
  });

  it('nvidia-smi exit 6 (no devices) is a machine without a GPU, not a problem', async () => {
    const report = await detect('nvidia-no-devices', {});
    assert.deepStrictEqual([report.accelerators, report.problems], [[], []]);
  });

  it('a hung nvidia-smi is in the report as nvidia-smi-timeout', async () => {
    const report = await detect('nvidia-hang', { timeoutMs: 500 });
    assert.deepStrictEqual(codes(report.problems), ['nvidia-smi-timeout']);
    assert.match(report.problems[0].message, /0\.5 s/);
  });

  it('nvidia-smi killed by a signal: the problem names the signal', async () => {
    const report = await detect('nvidia-segfault', {});
    assert.deepStrictEqual(report.problems.map((p) => [p.code, p.message]), [['nvidia-smi-failed', 'nvidia-smi was killed by SIGSEGV']]);
    assert.deepStrictEqual(report.accelerators, []);
  });

  it('nvidia-smi printing without end: stopped, and said as "output too large (over N bytes)"', async () => {
    const report = await detect('nvidia-flood', {});
    assert.deepStrictEqual(codes(report.problems), ['nvidia-smi-failed']);
    assert.match(report.problems[0].message, /^nvidia-smi was stopped: output too large \(over 8388608 bytes\), beginning "WARNING: infoROM is corrupted/);
  });

  it("nvidia-smi's output without a GPU row is unreadable: no phantom GPU, and Debian's CPU-only PyTorch is not blamed", async () => {
    requireDebianTorch();
    const report = await detect('nvidia-garbage', { pythonPath: DEBIAN_PYTHON });
    assert.deepStrictEqual(report.accelerators, []);
    assert.deepStrictEqual(codes(report.problems), ['nvidia-smi-unreadable']);
    assert.strictEqual(report.selected.device, 'cpu');
  });

  it('a Python killed by a signal during the probe: the signal and its fatal error line', async () => {
    const report = await detect(undefined, { pythonPath: path.join(FAKE_BIN, 'python-segfault', 'python3') });
    assert.ok(report.torch && 'error' in report.torch);
    assert.strictEqual(report.torch.error, 'the PyTorch probe was killed by SIGSEGV: Fatal Python error: Segmentation fault');
    assert.deepStrictEqual(codes(report.problems), ['torch-probe-failed']);
  });

  it('an import torch that hangs: torch-import-timeout with the command to try, not "pip install torch"', async () => {
    const python = path.join(FAKE_BIN, 'python-import-hangs', 'python3');
    const report = await detect(undefined, { pythonPath: python, timeoutMs: 500 });
    assert.deepStrictEqual(codes(report.problems), ['torch-import-timeout']);
    assert.strictEqual(report.problems[0].message, 'importing torch did not finish within 0.5 s; the probe was stopped');
    assert.ok(report.problems[0].hint.includes(`${python} -c "import torch"`), report.problems[0].hint);
    assert.doesNotMatch(report.problems[0].hint, /pip install/);
  });

  it('an AMD GPU from rocm-smi (values are strings in its JSON)', async () => {
    const report = await detect('amd-rocm-smi', {});
    assert.strictEqual(report.accelerators.length, 1);
    const [amd] = report.accelerators;
    assert.deepStrictEqual([amd.vendor, amd.name, amd.memory.totalBytes, amd.memory.usedBytes], ['amd', 'Radeon RX 7900 XT', 21458059264, 27856896]);
  });

  it('live samples carry the report ids after a detect (nvidia-smi index 0 is cuda:1 here)', async () => {
    const worker = new WorkerUnderTest(scenarioEnv('nvidia-two-gpus', { PYTHONPATH: path.join(FAKE_TORCH, 'cuda-two-devices') }));
    workers.push(worker);
    await worker.connection.sendRequest(DetectRequest, { pythonPath: DEBIAN_PYTHON, pinnedDevice: null });
    await worker.connection.sendRequest(StartMonitorRequest, { intervalMs: 100 });
    const h200 = await waitFor('an H200 sample at 87%', () => worker.samples.flatMap((n) => n.samples).find((s) => s.utilizationPercent === 87));
    assert.strictEqual(h200.id, 'cuda:1');
    assert.ok(worker.samples.flatMap((n) => n.samples).some((s) => s.id === 'cuda:0' && s.totalBytes === 12282 * MIB));
    await worker.connection.sendRequest(StopMonitorRequest, undefined);
  });
});
