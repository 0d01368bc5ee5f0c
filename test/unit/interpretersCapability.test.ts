// What each discovered interpreter can do, in the words the quick pick and the CLI show, from
// recorded probe outputs; and the table that maps a driver's CUDA version to PyTorch's wheel index.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import type { Accelerator, TorchStatus } from '../../src/core/devices/report';
import { parseTorchProbe } from '../../src/core/devices/torchProbe';
import { interpreterCapability, torchCapability } from '../../src/core/interpreters/capability';
import { CUDA_WHEEL_INDEXES, cudaPipCommand, wheelIndexForDriver } from '../../src/core/interpreters/cudaWheels';
import { mergeCandidates } from '../../src/core/interpreters/model';
import { mayRun } from '../../src/core/interpreters/trust';
import { condaEnvironmentName, condaInterpreter, parseCondaEnvList, parseEnvironmentsTxt } from '../../src/core/interpreters/conda';

const PROBES = path.join(__dirname, '..', 'fixtures', 'probes', 'torch-probe');
const torchFrom = (file: string): TorchStatus => parseTorchProbe(fs.readFileSync(path.join(PROBES, file), 'utf8'), '/usr/bin/python3');

function accelerator(vendor: Accelerator['vendor'], api: Accelerator['api']): Accelerator {
  return {
    id: api === 'mps' ? 'mps' : 'cuda:0', vendor, api, name: 'GPU', uuid: null, pciBusId: null,
    memory: { totalBytes: null, usedBytes: null, freeBytes: null },
    utilizationPercent: null, temperatureC: null, powerW: null, driverVersion: null, cudaVersion: '12.4', mig: [],
  };
}
const H200 = [accelerator('nvidia', 'cuda')];

describe('interpreter capability labels', () => {
  it('a CUDA build that sees the GPU: version without the local tag, its CUDA, the device it can use', () => {
    const torch = torchFrom('cuda-h200.json');
    assert.ok(!('error' in torch));
    const label = torchCapability(torch, H200).label;
    assert.match(label, /^torch \d+\.\d+\.\d+ · CUDA \d+\.\d+ · can use cuda:0$/);
    assert.ok(!label.includes('+'), label);
    assert.strictEqual(torchCapability(torch, H200).usesGpu, true);
  });

  it('exactly "torch 2.5.1 · CUDA 12.4 · can use cuda:0" for such a probe', () => {
    const torch: TorchStatus = {
      interpreter: '/opt/py', version: '2.5.1+cu124', mps: { built: false, available: false },
      cuda: { built: true, available: true, version: '12.4', deviceCount: 1 },
    };
    assert.strictEqual(torchCapability(torch, H200).label, 'torch 2.5.1 · CUDA 12.4 · can use cuda:0');
  });

  it('no torch module: "no PyTorch"', () => {
    assert.deepStrictEqual(torchCapability(torchFrom('torch-missing.json'), H200), { kind: 'no-torch', label: 'no PyTorch', usesGpu: false });
  });

  it('a missing dependency of torch is not a missing torch', () => {
    const numpy = torchCapability({ interpreter: '/p', error: "ModuleNotFoundError: No module named 'numpy'" }, H200);
    assert.strictEqual(numpy.kind, 'broken');
    assert.strictEqual(torchCapability({ interpreter: '/p', error: "No module named 'torch._C'" }, H200).kind, 'broken');
  });

  it('a torch that fails to import is not "no PyTorch": the error is said', () => {
    const capability = torchCapability(torchFrom('torch-import-fails.json'), H200);
    assert.strictEqual(capability.kind, 'broken');
    assert.match(capability.label, /^PyTorch not usable: .*libcudnn/);
  });

  it('Debian\'s CPU build beside an NVIDIA GPU: "CPU-only build beside an NVIDIA GPU"', () => {
    const capability = torchCapability(torchFrom('debian-cpu-build.json'), H200);
    assert.strictEqual(capability.kind, 'cpu-only-beside-gpu');
    assert.match(capability.label, /^torch [\d.a-z]+ · CPU-only build beside an NVIDIA GPU$/);
  });

  it('the same build on a machine without a GPU is just CPU-only, not a problem', () => {
    assert.strictEqual(torchCapability(torchFrom('debian-cpu-build.json'), []).kind, 'cpu');
    assert.match(torchCapability(torchFrom('debian-cpu-build.json'), []).label, / · CPU-only · no GPU here$/);
  });

  it('a CUDA build that cannot see the GPU says it cannot use it', () => {
    const capability = torchCapability(torchFrom('cuda-build-no-gpu.json'), H200);
    assert.strictEqual(capability.kind, 'gpu-unusable');
    assert.match(capability.label, /· cannot use an NVIDIA GPU$/);
  });

  it('ROCm builds name ROCm; MPS that allocates can use mps', () => {
    assert.match(torchCapability(torchFrom('rocm-mi250.json'), [accelerator('amd', 'rocm')]).label, /· ROCm [\d.]+.* · can use cuda:0$/);
    assert.match(torchCapability(torchFrom('mps-m2-max.json'), [accelerator('apple', 'mps')]).label, /· MPS · can use mps$/);
    assert.strictEqual(torchCapability(torchFrom('mps-allocation-fails.json'), [accelerator('apple', 'mps')]).usesGpu, false);
  });

  it('an interpreter left unprobed in Restricted Mode reads "not probed: untrusted"', () => {
    const label = interpreterCapability({ path: '/w/.venv/bin/python', origins: ['venv'], torch: null, notProbed: 'untrusted' }, H200).label;
    assert.strictEqual(label, 'not probed: untrusted');
  });
});

describe('CUDA wheel index for a driver', () => {
  it('picks the newest index not newer than the driver', () => {
    assert.strictEqual(wheelIndexForDriver('12.4')?.tag, 'cu124');
    assert.strictEqual(wheelIndexForDriver('12.5')?.tag, 'cu124');
    assert.strictEqual(wheelIndexForDriver('12.7')?.tag, 'cu126');
    assert.strictEqual(wheelIndexForDriver('13.0')?.tag, 'cu130');
    assert.strictEqual(wheelIndexForDriver('13.2')?.tag, 'cu130');
    assert.strictEqual(wheelIndexForDriver('12.10')?.tag, 'cu129', '12.10 is newer than 12.9');
    assert.strictEqual(wheelIndexForDriver('11.8')?.tag, 'cu118');
  });

  it('has no index for a driver older than every wheel, nor for an unreadable version', () => {
    assert.strictEqual(wheelIndexForDriver('11.4'), null);
    assert.strictEqual(wheelIndexForDriver('N/A'), null);
  });

  it('the table is newest first, so the first match is the newest', () => {
    const versions = CUDA_WHEEL_INDEXES.map((i) => i.cuda.split('.').map(Number));
    for (let i = 1; i < versions.length; i++) assert.ok(versions[i - 1][0] * 100 + versions[i - 1][1] > versions[i][0] * 100 + versions[i][1]);
    for (const index of CUDA_WHEEL_INDEXES) assert.strictEqual(index.tag, `cu${index.cuda.replace('.', '')}`);
  });

  it('the pip command installs into that interpreter from PyTorch\'s index, forcing out a CPU build', () => {
    const index = wheelIndexForDriver('12.4');
    assert.ok(index);
    assert.strictEqual(cudaPipCommand('/usr/bin/python3', index, false), '/usr/bin/python3 -m pip install torch --index-url https://download.pytorch.org/whl/cu124');
    assert.strictEqual(cudaPipCommand('/opt/my env/python', index, true), '"/opt/my env/python" -m pip install --force-reinstall torch --index-url https://download.pytorch.org/whl/cu124');
  });
});

describe('discovered candidates', () => {
  it('one executable found twice is listed once with both origins', () => {
    const merged = mergeCandidates([
      { path: '/bin/python3', origins: ['path'] },
      { path: '/usr/bin/python3', origins: ['system'] },
      { path: '/w/.venv/bin/python', origins: ['venv'] },
    ], (p) => p.replace(/^\/bin\//, '/usr/bin/'));
    assert.deepStrictEqual(merged.map((c) => [c.path, c.origins]), [['/bin/python3', ['path', 'system']], ['/w/.venv/bin/python', ['venv']]]);
  });

  it('Restricted Mode runs nothing inside a workspace folder (also through a symlink) nor named by a workspace setting', () => {
    const facts = { trusted: false, workspaceFolders: ['/w'], aliases: (p: string) => (p === '/opt/link/python' ? ['/w/.venv/bin/python'] : []) };
    assert.strictEqual(mayRun({ path: '/w/.venv/bin/python', origins: ['venv'] }, facts), false);
    assert.strictEqual(mayRun({ path: '/opt/link/python', origins: ['python-extension'] }, facts), false);
    assert.strictEqual(mayRun({ path: '/usr/bin/python3', origins: ['setting'], namedByWorkspace: true }, facts), false);
    assert.strictEqual(mayRun({ path: '/usr/bin/python3', origins: ['system'] }, facts), true);
    assert.strictEqual(mayRun({ path: '/wx/bin/python', origins: ['path'] }, facts), true, '/wx is not inside /w');
    assert.strictEqual(mayRun({ path: '/w/.venv/bin/python', origins: ['venv'] }, { ...facts, trusted: true }), true);
  });

  it('reads conda\'s env list and environments.txt, and names envs as conda does', () => {
    assert.deepStrictEqual(parseCondaEnvList('{"envs": ["/opt/conda", "/opt/conda/envs/torch", 3]}'), ['/opt/conda', '/opt/conda/envs/torch']);
    assert.deepStrictEqual(parseCondaEnvList('not json'), []);
    assert.deepStrictEqual(parseEnvironmentsTxt('/opt/conda\n\n# comment\n/home/u/envs/x\r\n'), ['/opt/conda', '/home/u/envs/x']);
    assert.strictEqual(condaInterpreter('/opt/conda/envs/torch', 'linux'), '/opt/conda/envs/torch/bin/python');
    assert.strictEqual(condaInterpreter('C:\\conda', 'win32'), 'C:\\conda\\python.exe');
    assert.strictEqual(condaEnvironmentName('/opt/conda/envs/torch'), 'torch');
    assert.strictEqual(condaEnvironmentName('/opt/conda'), 'base');
  });
});
