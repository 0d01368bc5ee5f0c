// The optional native engines. @tensorflow/tfjs-node(-gpu) cannot be installed here
// (their install downloads libtensorflow), so: the real "not installed" result, and small
// fake packages laid out as `npm install --prefix <dir>` would leave the real ones, for
// "installed but broken", "loaded but no GPU registered" and a full run through a folder
// given at run time (the fake runs tfjs's cpu kernels under the backend name "tensorflow").
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { EngineOutcome, RunResult } from '../../src/core/bench/model';
import { BenchPlan, planBenchmark } from '../../src/core/bench/plan';
import { createTfjsEngines } from '../../src/worker/engines';
import { loadNativeTf, resetNativeTfCache } from '../../src/worker/engines/tfjs/nativeTf';
import { TfjsNodeEngine } from '../../src/worker/engines/tfjs/tfjsNode';
import { TfjsNodeGpuEngine } from '../../src/worker/engines/tfjs/tfjsNodeGpu';
import { fakeNativePackage, workingNativeFake } from './helpers/fakeNativeTf';

let root: string;

/** A fake package under this run's root (helpers/fakeNativeTf.ts). */
function fakePackage(prefix: string, name: string, indexJs: string): string {
  return fakeNativePackage(root, prefix, name, indexJs);
}

function planFor(engine: { id: string; capabilities: Parameters<typeof planBenchmark>[1] }, device: string, size = 64): BenchPlan {
  const result = planBenchmark({ engine: engine.id, device, size, repeats: 2 }, engine.capabilities);
  assert.strictEqual(result.kind, 'plan', JSON.stringify(result));
  return (result as { plan: BenchPlan }).plan;
}

function outcomeOf(value: RunResult | EngineOutcome | 'ok', status: EngineOutcome['status']): EngineOutcome {
  assert.notStrictEqual(value, 'ok');
  assert.strictEqual((value as EngineOutcome).status, status, JSON.stringify(value));
  return value as EngineOutcome;
}

describe('engines: native TensorFlow.js (tfjs-node, tfjs-node-gpu)', function () {
  this.timeout(30000);

  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'dd-native-tf-'));
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));
  beforeEach(() => resetNativeTfCache());

  for (const [Engine, pkg, device] of [
    [TfjsNodeEngine, '@tensorflow/tfjs-node', 'cpu'],
    [TfjsNodeGpuEngine, '@tensorflow/tfjs-node-gpu', 'cuda:0'],
  ] as const) {
    it(`${pkg} absent: "not installed" with the install command and the npm line as remedy`, async () => {
      const empty = path.join(root, 'empty');
      fs.mkdirSync(empty, { recursive: true });
      const engine = new Engine({ searchPaths: [empty], searchPathsOnly: true });
      const outcome = outcomeOf(await engine.availability(), 'not-installed');
      assert.strictEqual(outcome.engine, engine.id);
      assert.strictEqual(outcome.message, `Native TensorFlow.js (${pkg}) is not installed.`);
      assert.match(outcome.remedy ?? '', /Device Doctor: Install Native TensorFlow Backend/);
      assert.ok(outcome.remedy?.includes(`npm install ${pkg}@4.22.0`));
      assert.match(outcome.remedy ?? '', /needs the internet/);
      assert.deepStrictEqual(await engine.devices(), []);
      const run = outcomeOf(await engine.run(planFor(engine, device)), 'not-installed');
      assert.deepStrictEqual([run.device, run.dtype, run.size], [device, 'float32', 64], 'the run outcome says which run it was');
    });

    it(`${pkg} with the default search (this checkout): "not installed" exactly when npm could not install it`, async () => {
      let installed = true;
      try {
        require.resolve(pkg);
      } catch {
        installed = false;
      }
      const availability = await new Engine().availability();
      assert.strictEqual(availability !== 'ok' && availability.status === 'not-installed', !installed);
    });

    it(`${pkg} installed but failing to load: a "failed" result naming the folder, never a throw`, async () => {
      const prefix = fakePackage(`broken-${device}`, pkg.split('/')[1], "throw new Error('libtensorflow.so.2: cannot open shared object file: No such file or directory\\n    at Module._load');");
      const outcome = outcomeOf(await new Engine({ searchPaths: [prefix], searchPathsOnly: true }).availability(), 'failed');
      assert.match(outcome.message, /is installed in .*node_modules[\\/]@tensorflow[\\/]tfjs-node.* but does not load: libtensorflow\.so\.2: cannot open shared object file/);
      assert.ok(!outcome.message.includes('Module._load'), 'first line only');
      assert.match(outcome.remedy ?? '', /^Reinstall it: /);
    });
  }

  it('tfjs-node-gpu loaded but no GPU registered: the tfjs-cuda-mismatch result with the CUDA 11.2 / cuDNN 8.1 hint', async () => {
    const prefix = fakePackage('gpu-mismatch', 'tfjs-node-gpu', workingNativeFake(false));
    const engine = new TfjsNodeGpuEngine({ searchPaths: [prefix], searchPathsOnly: true });
    const outcome = outcomeOf(await engine.availability(), 'tfjs-cuda-mismatch');
    assert.strictEqual(outcome.message, '@tensorflow/tfjs-node-gpu 4.22.0-fake loaded, but TensorFlow registered no GPU: it would run on the CPU.');
    assert.match(outcome.remedy ?? '', /CUDA 11\.2 and cuDNN 8\.1 \(libcudart\.so\.11\.0/);
    assert.deepStrictEqual(await engine.devices(), []);
    assert.strictEqual((await engine.run(planFor(engine, 'cuda:0'))).status, 'tfjs-cuda-mismatch', 'never a CPU result labelled as GPU');
  });

  it('tfjs-node found in a folder given at run time runs a checked benchmark', async () => {
    const prefix = fakePackage('cpu-ok', 'tfjs-node', workingNativeFake(undefined));
    const engine = new TfjsNodeEngine({ searchPaths: [path.join(root, 'nowhere'), prefix], searchPathsOnly: true });
    assert.strictEqual(await engine.availability(), 'ok');
    assert.deepStrictEqual(await engine.devices(), ['cpu']);
    const run = await engine.run(planFor(engine, 'cpu', 96));
    assert.strictEqual(run.status, 'ok', JSON.stringify(run));
    if (run.status !== 'ok') return;
    assert.strictEqual(run.result.engine, 'tfjs-node');
    assert.match(run.result.detail ?? '', /^@tensorflow\/tfjs-node 4\.22\.0-fake(; timed in \d+ row slices of \d+)?$/);
    assert.ok(run.result.maxRelError < 1e-5);
  });

  it('tfjs-node-gpu with a registered GPU offers cuda:0 and measures there', async () => {
    const prefix = fakePackage('gpu-ok', 'tfjs-node-gpu', workingNativeFake(true));
    const engine = new TfjsNodeGpuEngine({ searchPaths: [prefix], searchPathsOnly: true });
    assert.strictEqual(await engine.availability(), 'ok');
    assert.deepStrictEqual(await engine.devices(), ['cuda:0']);
    const run = await engine.run(planFor(engine, 'cuda:0'));
    assert.strictEqual(run.status === 'ok' && run.result.device, 'cuda:0');
    assert.strictEqual(planBenchmark({ engine: 'tfjs-node-gpu', device: 'cuda:1', size: 64 }, engine.capabilities).kind, 'outcome', 'only the first GPU');
  });

  it('a successful load is remembered; a missing package is looked for again (an install made meanwhile is found)', () => {
    const later = path.join(root, 'later');
    assert.strictEqual(loadNativeTf('@tensorflow/tfjs-node', [later], true).kind, 'not-installed');
    fakePackage('later', 'tfjs-node', workingNativeFake(undefined));
    const first = loadNativeTf('@tensorflow/tfjs-node', [later], true);
    assert.strictEqual(first.kind, 'loaded');
    assert.strictEqual(loadNativeTf('@tensorflow/tfjs-node', [], true), first);
  });

  it('createTfjsEngines lists tfjs-node-gpu, tfjs-node, wasm, js; the native ones use the given folders', async () => {
    const engines = createTfjsEngines({ nativeSearchPaths: [path.join(root, 'empty')] });
    assert.deepStrictEqual(engines.map((e) => e.id), ['tfjs-node-gpu', 'tfjs-node', 'wasm', 'js']);
    assert.strictEqual(await engines[3].availability(), 'ok');
  });
});
