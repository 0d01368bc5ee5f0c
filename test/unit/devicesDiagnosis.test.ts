import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { diagnose, type DiagnosisFacts } from '../../src/core/devices/diagnosis';
import { classifyNvidiaSmiFailure } from '../../src/core/devices/nvidiaFailure';
import type { Problem, TorchStatus } from '../../src/core/devices/report';
import { parseTorchProbe, torchStatusFromRun } from '../../src/core/devices/torchProbe';
import { compareVersions } from '../../src/core/devices/versions';

const PROBES = path.join(__dirname, '..', 'fixtures', 'probes');
const PY = '/usr/bin/python3';
const torchFrom = (file: string): TorchStatus => parseTorchProbe(fs.readFileSync(path.join(PROBES, 'torch-probe', file), 'utf8'), PY);

/** A Linux machine with one NVIDIA GPU whose driver supports CUDA 12.4, unless told otherwise. */
function facts(over: Partial<DiagnosisFacts>): DiagnosisFacts {
  return {
    platform: 'linux',
    torch: null,
    nvidia: { outcome: 'ok', gpuCount: 1, cudaVersion: '12.4' },
    amdGpuCount: 0,
    toolProblems: [],
    ...over,
  };
}

const codes = (problems: Problem[]): string[] => problems.map((problem) => problem.code);

describe('devices: the diagnosis table, row by row', () => {
  it('torch not importable: torch-missing names the interpreter', () => {
    assert.deepStrictEqual(diagnose(facts({ torch: torchFrom('torch-missing.json') })), [
      {
        source: 'torch',
        code: 'torch-missing',
        message: 'PyTorch is not installed in /usr/bin/python3',
        hint: 'choose another interpreter (in the editor: Device Doctor: Choose Interpreter; on the command line: --python) or install a CUDA build in this one (/usr/bin/python3 -m pip install torch --index-url https://download.pytorch.org/whl/cu124)',
      },
    ]);
  });

  it('torch-missing without an NVIDIA GPU: the plain install command', () => {
    const [problem] = diagnose(facts({ torch: torchFrom('torch-missing.json'), nvidia: { outcome: 'not-installed', gpuCount: 0, cudaVersion: null } }));
    assert.strictEqual(problem.hint, 'choose another interpreter (in the editor: Device Doctor: Choose Interpreter; on the command line: --python) or install PyTorch in this one (/usr/bin/python3 -m pip install torch)');
  });

  it('torch that fails to import is also torch-missing, with the reason', () => {
    const [problem] = diagnose(facts({ torch: torchFrom('torch-import-fails.json') }));
    assert.strictEqual(problem.code, 'torch-missing');
    assert.strictEqual(problem.message, 'PyTorch cannot be imported in /usr/bin/python3: OSError: libcudnn.so.9: cannot open shared object file: No such file or directory');
  });

  it('a missing interpreter and a failed probe are said as such, not as a missing torch', () => {
    const missing = torchStatusFromRun({ exitCode: null, stdout: '', stderr: '', errorCode: 'ENOENT' }, '/nope/python');
    assert.deepStrictEqual(diagnose(facts({ torch: missing })).map((p) => [p.source, p.code]), [['interpreter', 'interpreter-not-found']]);
    const garbage = parseTorchProbe('Segmentation fault', PY);
    assert.deepStrictEqual(codes(diagnose(facts({ torch: garbage }))), ['torch-probe-failed']);
  });

  it('GPU present and a CPU-only build: torch-cpu-only-build with the driver CUDA version (Debian python3-torch)', () => {
    assert.deepStrictEqual(diagnose(facts({ torch: torchFrom('debian-cpu-build.json') })), [
      {
        source: 'torch',
        code: 'torch-cpu-only-build',
        message: 'PyTorch was not built with CUDA support',
        hint: 'install a CUDA build of PyTorch; this driver supports CUDA 12.4: /usr/bin/python3 -m pip install --force-reinstall torch --index-url https://download.pytorch.org/whl/cu124',
      },
    ]);
  });

  it('a driver older than every CUDA wheel asks for a driver update first', () => {
    const [problem] = diagnose(facts({ torch: torchFrom('debian-cpu-build.json'), nvidia: { outcome: 'ok', gpuCount: 1, cudaVersion: '11.4' } }));
    assert.strictEqual(problem.hint, 'this driver supports only CUDA 11.4, older than every PyTorch CUDA wheel (11.8 and newer): update the NVIDIA driver, then install a CUDA build of PyTorch');
  });

  it('a CPU-only build on a machine without a GPU is fine', () => {
    assert.deepStrictEqual(diagnose(facts({ torch: torchFrom('debian-cpu-build.json'), nvidia: { outcome: 'not-installed', gpuCount: 0, cudaVersion: null } })), []);
  });

  it('a CPU-only build beside an AMD GPU asks for a ROCm build', () => {
    const [problem] = diagnose(facts({ torch: torchFrom('debian-cpu-build.json'), nvidia: null, amdGpuCount: 1 }));
    assert.strictEqual(problem.code, 'torch-cpu-only-build');
    assert.strictEqual(problem.message, 'PyTorch was not built with ROCm support');
  });

  it('cuda.built, not available, no nvidia-smi: nvidia-driver-missing', () => {
    const [problem, ...rest] = diagnose(facts({ torch: torchFrom('cuda-build-no-gpu.json'), nvidia: { outcome: 'not-installed', gpuCount: 0, cudaVersion: null } }));
    assert.deepStrictEqual(rest, []);
    assert.strictEqual(problem.code, 'nvidia-driver-missing');
    assert.strictEqual(problem.message, 'no NVIDIA driver found (this PyTorch is built for CUDA 12.4)');
    assert.match(problem.hint, /CUDA is not installed properly/);
  });

  it('nvidia-driver-missing needs NVIDIA hardware when the PCI bus says: none there is fine', () => {
    const torch = torchFrom('cuda-build-no-gpu.json');
    const noSmi = { outcome: 'not-installed', gpuCount: 0, cudaVersion: null } as const;
    assert.deepStrictEqual(codes(diagnose(facts({ torch, nvidia: noSmi, nvidiaPciDevices: 0 }))), []);
    assert.deepStrictEqual(codes(diagnose(facts({ torch, nvidia: noSmi, nvidiaPciDevices: 1 }))), ['nvidia-driver-missing']);
  });

  it('nvidia-driver-missing is not claimed for an AMD machine or a Mac', () => {
    const torch = torchFrom('cuda-build-no-gpu.json');
    const noSmi = { outcome: 'not-installed', gpuCount: 0, cudaVersion: null } as const;
    assert.deepStrictEqual(codes(diagnose(facts({ torch, nvidia: noSmi, amdGpuCount: 1 }))), []);
    assert.deepStrictEqual(codes(diagnose(facts({ torch, nvidia: noSmi, platform: 'darwin' }))), ['torch-no-mps-build']);
  });

  it('driver older than torch.version.cuda: driver-too-old, compared numerically (12.4 < 12.8)', () => {
    assert.deepStrictEqual(diagnose(facts({ torch: torchFrom('cuda-driver-too-old.json') })), [
      {
        source: 'torch',
        code: 'driver-too-old',
        message: 'the driver supports CUDA 12.4, this PyTorch needs 12.8',
        hint: 'update the NVIDIA driver, or install a PyTorch build for CUDA 12.4 or older',
      },
    ]);
  });

  it('12.10 is newer than 12.4 (not a string comparison), and an equal or newer driver is fine', () => {
    assert.ok(compareVersions('12.4', '12.10') < 0);
    assert.ok(compareVersions('13.0', '12.10') > 0);
    assert.strictEqual(compareVersions('12.4', '12.4.0'), 0);
    const torch = torchFrom('cuda-driver-too-old.json');
    assert.ok(!('error' in torch));
    const needs1210: TorchStatus = { ...torch, cuda: { ...torch.cuda, version: '12.10' } };
    assert.deepStrictEqual(codes(diagnose(facts({ torch: needs1210 }))), ['driver-too-old']);
    const sameVersion = codes(diagnose(facts({ torch: needs1210, nvidia: { outcome: 'ok', gpuCount: 1, cudaVersion: '12.10' } })));
    assert.ok(!sameVersion.includes('driver-too-old'), sameVersion.join());
    assert.deepStrictEqual(codes(diagnose(facts({ torch: torchFrom('cuda-h200.json'), nvidia: { outcome: 'ok', gpuCount: 1, cudaVersion: '13.0' } }))), []);
  });

  it('an older driver that still runs PyTorch (minor-version compatibility) says so in the hint', () => {
    const torch = torchFrom('cuda-two-devices-fastest-first.json');
    assert.ok(!('error' in torch));
    const [problem] = diagnose(facts({ torch: { ...torch, cuda: { ...torch.cuda, version: '12.6' } } }));
    assert.strictEqual(problem.code, 'driver-too-old');
    assert.match(problem.hint, /minor-version compatibility/);
  });

  it('CUDA_VISIBLE_DEVICES "-1" or "" hides every GPU: cuda-devices-hidden', () => {
    assert.deepStrictEqual(diagnose(facts({ torch: torchFrom('cuda-hidden.json') })), [
      {
        source: 'torch',
        code: 'cuda-devices-hidden',
        message: 'CUDA_VISIBLE_DEVICES="-1" hides every GPU',
        hint: 'unset CUDA_VISIBLE_DEVICES, or list the GPUs to use (e.g. CUDA_VISIBLE_DEVICES=0)',
      },
    ]);
    // Without PyTorch's own environment, the worker's variable is the evidence.
    const [empty] = diagnose(facts({ cudaVisibleDevices: '' }));
    assert.strictEqual(empty.message, 'CUDA_VISIBLE_DEVICES="" hides every GPU');
    // PyTorch's environment wins: it had the variable unset.
    assert.deepStrictEqual(codes(diagnose(facts({ torch: torchFrom('cuda-build-no-gpu.json'), cudaVisibleDevices: '' }))), ['cuda-unavailable']);
    assert.deepStrictEqual(codes(diagnose(facts({ torch: torchFrom('cuda-visible-devices-1.json') }))), []);
  });

  it('nvidia-smi exit 18: nvml-version-mismatch, once, with the tool message', () => {
    const failure = classifyNvidiaSmiFailure({ exitCode: 18, stdout: 'Failed to initialize NVML: Driver/library version mismatch\nNVML library version: 535.161\n', stderr: '' });
    const problems = diagnose(facts({ nvidia: { outcome: failure.kind, gpuCount: 0, cudaVersion: null }, toolProblems: failure.problem ? [failure.problem] : [] }));
    assert.deepStrictEqual(codes(problems), ['nvml-version-mismatch']);
    assert.match(problems[0].message, /535\.161/);
    const withoutToolProblem = diagnose(facts({ nvidia: { outcome: 'version-mismatch', gpuCount: 0, cudaVersion: null } }));
    assert.deepStrictEqual(withoutToolProblem.map((p) => [p.source, p.code]), [['nvidia-smi', 'nvml-version-mismatch']]);
  });

  it('macOS and mps.built false: torch-no-mps-build (only on macOS)', () => {
    const mac = facts({ platform: 'darwin', nvidia: null, torch: torchFrom('macos-no-mps-build.json') });
    assert.deepStrictEqual(codes(diagnose(mac)), ['torch-no-mps-build']);
    assert.strictEqual(diagnose(mac)[0].message, 'PyTorch was not built with MPS enabled');
    assert.deepStrictEqual(codes(diagnose({ ...mac, platform: 'linux' })), []);
  });

  it('mps.built, not available: mps-unavailable', () => {
    const [problem] = diagnose(facts({ platform: 'darwin', nvidia: null, torch: torchFrom('mps-unavailable-old-macos.json') }));
    assert.strictEqual(problem.code, 'mps-unavailable');
    assert.match(problem.hint, /macOS 12\.3/);
  });

  it('MPS available but allocation fails: mps-runtime-failure with the error', () => {
    const [problem] = diagnose(facts({ platform: 'darwin', nvidia: null, torch: torchFrom('mps-allocation-fails.json') }));
    assert.strictEqual(problem.code, 'mps-runtime-failure');
    assert.strictEqual(problem.message, 'MPS unavailable at runtime: MPS backend out of memory (MPS allocated: 0 bytes, other allocations: 0 bytes, max allowed: 0 bytes).');
    assert.deepStrictEqual(codes(diagnose(facts({ platform: 'darwin', nvidia: null, torch: torchFrom('mps-m2-max.json') }))), []);
  });

  it('tfjs-node-gpu loaded without a GPU: tfjs-cuda-mismatch naming CUDA 11.2 and cuDNN 8.1', () => {
    const [problem] = diagnose(facts({ tfjs: { gpuPackageLoaded: true, gpuRegistered: false } }));
    assert.deepStrictEqual([problem.source, problem.code], ['tfjs', 'tfjs-cuda-mismatch']);
    assert.match(problem.hint, /CUDA 11\.2 and cuDNN 8\.1 \(libcudart\.so\.11\.0\)/);
    assert.deepStrictEqual(diagnose(facts({ tfjs: { gpuPackageLoaded: true, gpuRegistered: true } })), []);
    assert.deepStrictEqual(diagnose(facts({ tfjs: null })), []);
  });

  it('beyond the table: a CUDA build that cannot use a GPU nvidia-smi sees, for no known reason', () => {
    const [problem, ...rest] = diagnose(facts({ torch: torchFrom('cuda-build-no-gpu.json') }));
    assert.deepStrictEqual(rest, []);
    assert.strictEqual(problem.code, 'cuda-unavailable');
    assert.match(problem.hint, /torch\.cuda\.init\(\)/);
    assert.deepStrictEqual(codes(diagnose(facts({ torch: torchFrom('cuda-hidden.json') }))), ['cuda-devices-hidden'], 'explained, so not repeated');
  });

  it('a working CUDA or ROCm setup has no problems', () => {
    assert.deepStrictEqual(diagnose(facts({ torch: torchFrom('cuda-h200.json'), nvidia: { outcome: 'ok', gpuCount: 1, cudaVersion: '13.0' } })), []);
    assert.deepStrictEqual(diagnose(facts({ torch: torchFrom('rocm-mi250.json'), nvidia: null, amdGpuCount: 2 })), []);
  });

  it('tool problems come first, then the rows in table order', () => {
    const hung = classifyNvidiaSmiFailure({ exitCode: null, stdout: '', stderr: '', errorCode: 'TIMEOUT', timeoutMs: 15000 });
    const problems = diagnose(facts({
      torch: { ...(torchFrom('cuda-driver-too-old.json') as Exclude<TorchStatus, { error: string }>), cudaVisibleDevices: '-1' },
      toolProblems: hung.problem ? [hung.problem] : [],
    }));
    assert.deepStrictEqual(codes(problems), ['nvidia-smi-timeout', 'driver-too-old', 'cuda-devices-hidden']);
  });
});
