// detect's TensorFlow.js GPU probe, in-process with a fake nvidia-smi on PATH and a fake
// @tensorflow/tfjs-node-gpu in a folder passed as nativeSearchPaths (as the editor passes its
// global storage): the tfjs-cuda-mismatch diagnosis fires from detect exactly when the package
// loads beside an NVIDIA GPU and registers none, and the package is never required otherwise.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import type { ProbeOptions, WorkerLog } from '../../src/protocol/worker';
import { detectDevices, type DetectOutcome } from '../../src/worker/detect/detect';
import { ProbeGate } from '../../src/worker/detect/probes/probeGate';
import { resetNativeTfCache } from '../../src/worker/engines/tfjs/nativeTf';
import { fakeNativePackage, workingNativeFake } from '../unit/helpers/fakeNativeTf';
import { scenarioEnv, tempDir } from './workerTestKit';

const PACKAGE = '@tensorflow/tfjs-node-gpu';

describe('detect: the TensorFlow.js GPU probe (tfjs-cuda-mismatch)', function () {
  this.timeout(60_000);
  let root: string;
  let logs: string[];

  before(() => {
    root = tempDir('dd-detect-tfjs-');
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));
  beforeEach(() => {
    resetNativeTfCache();
    logs = [];
  });

  /** Linux, no interpreter, no sysfs; scenario: a fake tool folder (undefined: no GPU tool at all). */
  function detect(scenario: string | undefined, nativeSearchPaths: unknown): Promise<DetectOutcome> {
    const options = { pythonPath: null, pinnedDevice: null, nativeSearchPaths } as ProbeOptions;
    return detectDevices(options, {
      gate: new ProbeGate(),
      env: scenarioEnv(scenario),
      platform: 'linux',
      log: (level: WorkerLog['level'], message: string) => logs.push(`${level}: ${message}`),
      sysfsDrmRoot: path.join(root, 'no-drm'),
      sysfsPciRoot: path.join(root, 'no-pci'),
    });
  }

  function codes(outcome: DetectOutcome): string[] {
    return outcome.report.problems.map((problem) => problem.code);
  }

  function fakeGpuPackage(prefix: string, gpu: boolean): { folder: string; marker: string } {
    const marker = path.join(root, `${prefix}.loaded`);
    return { folder: fakeNativePackage(root, prefix, 'tfjs-node-gpu', workingNativeFake(gpu, marker)), marker };
  }

  it('the package loads beside an NVIDIA GPU but registers none: the report has tfjs-cuda-mismatch', async () => {
    const { folder, marker } = fakeGpuPackage('mismatch', false);
    const outcome = await detect('nvidia-two-gpus', [folder]);
    assert.deepStrictEqual(outcome.runs.tfjs, { gpuPackageLoaded: true, gpuRegistered: false });
    assert.ok(codes(outcome).includes('tfjs-cuda-mismatch'), codes(outcome).join(', '));
    const problem = outcome.report.problems.find((p) => p.code === 'tfjs-cuda-mismatch');
    assert.strictEqual(problem?.source, 'tfjs');
    assert.match(problem?.hint ?? '', /CUDA 11\.2 and cuDNN 8\.1/);
    assert.strictEqual(outcome.report.accelerators.length, 2, 'the NVIDIA GPUs are still reported');
    assert.strictEqual(fs.readFileSync(marker, 'utf8'), 'loaded\n', 'required once');
  });

  it('the package registers the GPU: no tfjs-cuda-mismatch', async () => {
    const { folder, marker } = fakeGpuPackage('registered', true);
    const outcome = await detect('nvidia-two-gpus', [folder]);
    assert.deepStrictEqual(outcome.runs.tfjs, { gpuPackageLoaded: true, gpuRegistered: true });
    assert.ok(!codes(outcome).includes('tfjs-cuda-mismatch'), codes(outcome).join(', '));
    assert.ok(fs.existsSync(marker));
  });

  it('the package is installed but nvidia-smi lists no GPU: it is not loaded', async () => {
    for (const scenario of [undefined, 'nvidia-no-devices', 'nvidia-driver-not-loaded']) {
      const { folder, marker } = fakeGpuPackage(`no-gpu-${scenario ?? 'no-tool'}`, false);
      const outcome = await detect(scenario, [folder]);
      assert.strictEqual(outcome.runs.tfjs, null, String(scenario));
      assert.ok(!codes(outcome).includes('tfjs-cuda-mismatch'), String(scenario));
      assert.ok(!fs.existsSync(marker), `${String(scenario)}: the package was required`);
    }
  });

  it('the package is absent: nothing is loaded, even beside an NVIDIA GPU', async () => {
    const empty = path.join(root, 'empty');
    fs.mkdirSync(empty, { recursive: true });
    let bundled = true;
    try {
      require.resolve(PACKAGE);
    } catch {
      bundled = false;
    }
    const outcome = await detect('nvidia-two-gpus', [empty]);
    const required = Object.keys(require.cache).filter((file) => file.includes(path.join('@tensorflow', 'tfjs-node-gpu')));
    // The folder holds nothing; only a real install next to this checkout may answer.
    assert.strictEqual(outcome.runs.tfjs === null, !bundled, JSON.stringify(outcome.runs.tfjs));
    if (!bundled) assert.deepStrictEqual(required.filter((file) => !file.startsWith(root)), [], 'nothing of the package was required');
    assert.ok(!codes(outcome).includes('tfjs-cuda-mismatch'));
  });

  it('the package is installed but does not load: a fact without the mismatch, and a warning in the log', async () => {
    const folder = fakeNativePackage(root, 'broken', 'tfjs-node-gpu', "throw new Error('libcudart.so.11.0: cannot open shared object file');");
    const outcome = await detect('nvidia-two-gpus', [folder]);
    assert.deepStrictEqual(outcome.runs.tfjs, { gpuPackageLoaded: false, gpuRegistered: false });
    assert.ok(!codes(outcome).includes('tfjs-cuda-mismatch'), codes(outcome).join(', '));
    assert.ok(logs.some((line) => /^warn: @tensorflow\/tfjs-node-gpu: .* does not load: libcudart\.so\.11\.0/.test(line)), logs.join('\n'));
  });

  it('nativeSearchPaths that are not a list of folders: ignored, never a failed detect', async () => {
    const { folder } = fakeGpuPackage('bad-input', false);
    for (const bad of ['/tmp', 42, { folder }, [null, 7, '']]) {
      const outcome = await detect('nvidia-two-gpus', bad);
      assert.strictEqual(outcome.report.accelerators.length, 2, JSON.stringify(bad));
      assert.ok(!logs.some((line) => line.startsWith('error:')), logs.join('\n'));
    }
  });
});
