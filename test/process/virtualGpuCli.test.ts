// `device-doctor run` with Debian's real PyTorch (CPU-only): the virtual GPU makes torch
// believe CUDA or MPS is there, and each fixture's mistakes come back at their lines, with
// PyTorch's message, while the run goes on. The fixtures say in a comment what they hold.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { memoryIo } from '../../src/cli/io';
import { runCli } from '../../src/cli/main';
import { DEBIAN_PYTHON, requireDebianTorch, tempDir } from './workerTestKit';

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'virtualGpu');

interface JsonFinding {
  code: string;
  message: string;
  cell: number | null;
  location: { row: number };
}

async function run(args: string[], cwd = FIXTURES): Promise<{ status: number; out: string; err: string }> {
  const io = memoryIo(cwd);
  const status = await runCli(['run', '--python', DEBIAN_PYTHON, ...args], io);
  return { status, out: io.out, err: io.err };
}

async function findings(args: string[], cwd = FIXTURES): Promise<{ status: number; found: JsonFinding[]; err: string }> {
  const result = await run(['--format', 'json', ...args], cwd);
  return { status: result.status, found: JSON.parse(result.out) as JsonFinding[], err: result.err };
}

const rowsAndCodes = (found: JsonFinding[]): string[] => found.map((f) => `${f.location.row} ${f.code}`);

describe('device-doctor run: the virtual GPU on Debian\'s PyTorch', function () {
  this.timeout(120_000);
  before(() => requireDebianTorch());

  it('one run reports every mistake of a script with three independent ones, and exits 1', async () => {
    const { status, found } = await findings(['three_mistakes.py']);
    assert.strictEqual(status, 1);
    // Each mismatch at the line its CPU tensor came from: the loss built around a CPU weight, the batch never moved.
    assert.deepStrictEqual(rowsAndCodes(found), ['9 DD001', '12 DD001', '20 DD003']);
    assert.match(found[0].message, /^Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu! \(in cross_entropy\); the cpu tensor comes from this line/);
    assert.match(found[2].message, /can't convert cuda:0 device type tensor to numpy/);
  });

  it('a mismatch is reported where its CPU tensor was made (the model never moved, a reshape or a loader batch without its move), with the failing use as related', async () => {
    const { status, out } = await run(['mistake_lines.py']);
    assert.strictEqual(status, 1);
    const mistakes = out.split('\n').filter((line) => / DD001 error: /.test(line)).map((line) => line.replace(/: DD001 error: .*\(in (\w+)\); the cpu tensor comes from this line.*$/, ' $1'));
    assert.deepStrictEqual(mistakes, ['mistake_lines.py:21 linear', 'mistake_lines.py:25 cross_entropy', 'mistake_lines.py:26 linear']);
    assert.match(out, /mistake_lines\.py:21: DD001 .*\n {4}at mistake_lines\.py:21 in <module> \(the cpu tensor comes from here\)\n {4}at mistake_lines\.py:17 in forward \(it meets cuda:0 here\)\n {4}at mistake_lines\.py:29 in <module>\n/);
    assert.match(out, /mistake_lines\.py:25: DD001 .*\n {4}at mistake_lines\.py:25 in <module> \(the cpu tensor comes from here\)\n {4}at mistake_lines\.py:28 in <module> \(it meets cuda:0 here\)\n/);
  });

  it('a batch from DataLoader workers that a library module reshapes before the mismatch is still the loop\'s line', async () => {
    const { status, found } = await findings(['batch_from_workers.py']);
    assert.strictEqual(status, 1);
    assert.deepStrictEqual(rowsAndCodes(found), ['14 DD001']);
    assert.match(found[0].message, /\(in linear\); the cpu tensor comes from this line \[2 times\]$/);
  });

  it('a model whose layers are made on several lines of one statement is one mistake, at the statement\'s first line', async () => {
    const { status, found } = await findings(['layers_on_many_lines.py']);
    assert.strictEqual(status, 1);
    assert.deepStrictEqual(rowsAndCodes(found), ['6 DD001']);
    assert.match(found[0].message, /\(in linear\); the cpu tensor comes from this line \[2 times\]$/, 'both Linear layers');
  });

  it('cuda:1 and cuda:0 do not mix (two virtual devices)', async () => {
    const { status, found } = await findings(['--devices', '2', 'two_gpus.py']);
    assert.strictEqual(status, 1);
    assert.deepStrictEqual(rowsAndCodes(found), ['9 DD001']);
    assert.match(found[0].message, /cuda:1 and cuda:0/);
  });

  it('MPS has no float64: the numpy array moved as it is is reported, the one cast to float32 is not', async () => {
    const { status, found } = await findings(['--virtual', 'mps', 'mps_float64.py']);
    assert.strictEqual(status, 1);
    assert.deepStrictEqual(rowsAndCodes(found), ['7 DD001']);
    assert.match(found[0].message, /MPS framework doesn't support float64/);
  });

  it('DataParallel with device_ids that do not start where the model is', async () => {
    const { status, found } = await findings(['--devices', '3', 'data_parallel_ids.py']);
    assert.strictEqual(status, 1);
    assert.deepStrictEqual(rowsAndCodes(found), ['7 DD023'], 'one mistake, no cascade inside the module');
    assert.match(found[0].message, /module must have its parameters and buffers on device cuda:1 \(device_ids\[0\]\) but found one of them on device: cuda:0/);
  });

  it('torch.load without map_location of a checkpoint another run saved on the GPU is DD013; with map_location it is not', async () => {
    const dir = tempDir('device-doctor-checkpoint-');
    try {
      const checkpoint = path.join(dir, 'weights.pt');
      const saved = await run(['save_on_gpu.py', checkpoint]);
      assert.strictEqual(saved.status, 0, saved.out + saved.err);
      const { status, found } = await findings(['load_elsewhere.py', checkpoint]);
      assert.strictEqual(status, 1);
      assert.deepStrictEqual(rowsAndCodes(found), ['6 DD013']);
      assert.match(found[0].message, /saved on cuda:0/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a checkpoint this run saved on the GPU and loads back (by path, open file or buffer) is where it was saved: nothing to report', async () => {
    const { status, out, err } = await run(['load_without_map.py']);
    assert.strictEqual(status, 0, out + err);
    assert.match(out, /^cuda:0 cuda:0 cuda:0$/m);
  });

  it('a notebook runs cell by cell and its mistake is reported in its cell, at the cell\'s line', async () => {
    const { status, found } = await findings(['notebook.ipynb']);
    assert.strictEqual(status, 1);
    assert.deepStrictEqual(found.map((f) => [f.cell, f.location.row, f.code]), [[3, 1, 'DD001']], 'the batch made in the cell\'s first line');
  });

  it('a correct training loop (DataLoader with pin_memory, Adam, StepLR, autocast, GradScaler, clip_grad_norm_, a checkpoint loaded with map_location) has nothing to report', async () => {
    const { status, out, err } = await run(['clean_training.py']);
    assert.strictEqual(status, 0, out + err);
    assert.match(out, /No device mistakes on 1 virtual CUDA device/);
    assert.match(out, /^1 /m, 'the script printed its second epoch: it ran to the end');
  });

  it('PyTorch\'s own exceptions hold: a CPU index into a GPU tensor and a 0-dim CPU tensor are fine, a GPU index into a CPU tensor is not', async () => {
    const { found } = await findings(['indexing_rules.py']);
    assert.deepStrictEqual(rowsAndCodes(found), ['9 DD001']);
    assert.match(found[0].message, /indices should be either on cpu or on the same device as the indexed tensor \(cpu\)/);
  });

  it('a move whose result is thrown away, alone or at the head of a chain, is DD004 at its line; a loss read every step is a DD007 note', async () => {
    const { status, found } = await findings(['discarded_and_syncs.py']);
    assert.deepStrictEqual(rowsAndCodes(found), ['11 DD004', '16 DD007', '18 DD004']);
    assert.match(found[1].message, /in every training step \(1\.0 per step over 4 steps\)/);
    assert.strictEqual(status, 1, 'DD004 is a mistake');
  });

  it('--steps stops the run after that many optimizer steps, and says so', async () => {
    const { status, out } = await run(['--steps', '2', 'clean_training.py']);
    assert.strictEqual(status, 0);
    assert.match(out, /stopped after 2 optimizer steps \(--steps\)/);
    assert.doesNotMatch(out, /^0 /m, 'the first epoch never finished');
  });

  it('a script outside the working folder is the user\'s too: its mistakes have its lines; --virtual mps makes .cuda() a DD005', async () => {
    const { status, found } = await findings(['--virtual', 'mps', path.join(FIXTURES, 'runnable_pkg', 'evaluate.py'), '--batch', '2'], os.tmpdir());
    assert.strictEqual(status, 1);
    assert.deepStrictEqual(rowsAndCodes(found), ['7 DD005', '8 DD001'], 'the model taken to the Mac\'s GPU meets a batch that was never moved');
    assert.strictEqual(found[0].message, 'Torch not compiled with CUDA enabled [2 times]', 'the weight and the bias');
  });

  it('--time stops a script that would never end, and says so', async () => {
    const { status, out } = await run(['--time', '1', 'endless.py']);
    assert.strictEqual(status, 0);
    assert.match(out, /No device mistakes .*; stopped after 0 optimizer steps \(--time\)/);
  });

  it('-m runs a module with its own arguments, and the script\'s output stays on stdout in text format', async () => {
    const { status, out } = await run(['-m', 'runnable_pkg.evaluate', '--batch', '4']);
    assert.strictEqual(status, 1);
    assert.match(out, /^scores /m);
    assert.match(out, /runnable_pkg\/evaluate\.py:8: DD001 error/);
  });

  it('a script that fails for its own reason: its mistake and its error are both reported, exit 1', async () => {
    const { status, out } = await run(['fails_midway.py']);
    assert.strictEqual(status, 1);
    assert.match(out, /fails_midway\.py:5: DD001/);
    assert.match(out, /The script stopped with ValueError: the dataset folder is empty\n {4}at fails_midway\.py:6 in <module>/);
  });

  it('--format sarif is lint\'s SARIF, with the script\'s own output kept off stdout', async () => {
    const { status, out, err } = await run(['--format', 'sarif', 'three_mistakes.py']);
    assert.strictEqual(status, 1);
    const sarif = JSON.parse(out);
    const results = sarif.runs[0].results as Array<{ ruleId: string; level: string; locations: Array<{ physicalLocation: { region: { startLine: number } } }> }>;
    assert.deepStrictEqual(results.map((r) => `${r.locations[0].physicalLocation.region.startLine} ${r.ruleId} ${r.level}`), ['9 DD001 error', '12 DD001 error', '20 DD003 error']);
    assert.match(err, /\(8, 2\)/, 'the script\'s print went to stderr');
  });

  it('an interpreter without PyTorch, or none at all, is a clear error with exit 2 and no stack trace', async () => {
    const dir = tempDir('device-doctor-no-torch-');
    try {
      // Debian's Python without its site packages: the same interpreter, no torch.
      const noTorch = path.join(dir, 'python3');
      fs.writeFileSync(noTorch, `#!/bin/sh\nexec ${DEBIAN_PYTHON} -S "$@"\n`, { mode: 0o755 });
      const io = memoryIo(FIXTURES);
      const status = await runCli(['run', '--python', noTorch, 'three_mistakes.py'], io);
      assert.strictEqual(status, 2);
      assert.match(io.err, /^error: PyTorch cannot be imported by this interpreter: No module named 'torch'/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    const missing = await run(['--python', '/nonexistent/python3', 'three_mistakes.py']);
    assert.strictEqual(missing.status, 2);
    assert.match(missing.err, /^error: could not start \/nonexistent\/python3/);
    assert.doesNotMatch(missing.err, /\n\s+at /);
  });
});
