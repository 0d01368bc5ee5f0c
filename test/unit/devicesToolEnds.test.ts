// How a tool's run ended, said in words the user can act on: a crash names its signal, a flood
// of output names the cap, a hung `import torch` is not a missing torch, and a line of
// nvidia-smi's inventory that is not a GPU row is dropped with a warning, never a phantom GPU.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { buildDeviceReport, type ProbeRuns } from '../../src/core/devices/buildReport';
import { diagnose } from '../../src/core/devices/diagnosis';
import { classifyNvidiaSmiFailure } from '../../src/core/devices/nvidiaFailure';
import { parseNvidiaInventory, parseNvidiaQueryCsv } from '../../src/core/devices/nvidiaSmi';
import type { Problem } from '../../src/core/devices/report';
import type { ToolRun } from '../../src/core/devices/toolRun';
import { torchStatusFromRun } from '../../src/core/devices/torchProbe';

const PROBES = path.join(__dirname, '..', 'fixtures', 'probes');
const PY = '/usr/bin/python3';

/** A recorded run: stdout from the case file, exit code, signal and stderr from <case>.meta.json. */
function recordedRun(file: string): ToolRun {
  const stdout = fs.readFileSync(path.join(PROBES, file), 'utf8');
  const metaFile = path.join(PROBES, file.replace(/\.(txt|json)$/, '.meta.json'));
  if (!fs.existsSync(metaFile)) return { exitCode: 0, stdout, stderr: '' };
  return { ...(JSON.parse(fs.readFileSync(metaFile, 'utf8')) as ToolRun), stdout };
}

const codes = (problems: Problem[]): string[] => problems.map((p) => p.code);

const host: ProbeRuns['host'] = { platform: 'linux', arch: 'x64', cpuModels: ['AMD EPYC'], logicalCores: 1, totalMemoryBytes: 2 ** 34, freeMemoryBytes: 2 ** 33 };

function runsWith(query: string, torch = 'debian-cpu-build.json'): ProbeRuns {
  return {
    host,
    nvidia: { query: recordedRun(`nvidia-smi/${query}`), details: recordedRun('nvidia-smi-q/h200.txt'), list: null },
    sysfsCards: [],
    torch: { interpreter: PY, run: recordedRun(`torch-probe/${torch}`) },
    pinnedDevice: null,
  };
}

describe('devices: a tool killed by a signal says which', () => {
  it('nvidia-smi killed by SIGSEGV, not "exited with code unknown"', () => {
    const result = classifyNvidiaSmiFailure(recordedRun('nvidia-smi/killed-sigsegv.txt'));
    assert.strictEqual(result.kind, 'unknown');
    assert.strictEqual(result.problem?.code, 'nvidia-smi-failed');
    assert.strictEqual(result.problem?.message, 'nvidia-smi was killed by SIGSEGV');
  });

  it('the PyTorch probe killed by SIGSEGV, with Python\'s own fatal error line', () => {
    const torch = torchStatusFromRun(recordedRun('torch-probe/killed-sigsegv.txt'), PY);
    assert.deepStrictEqual(torch, { interpreter: PY, error: 'the PyTorch probe was killed by SIGSEGV: Fatal Python error: Segmentation fault' });
    assert.deepStrictEqual(codes(diagnose({ platform: 'linux', torch, nvidia: null, amdGpuCount: 0, toolProblems: [] })), ['torch-probe-failed']);
  });

  it('an exit code is still said as an exit code', () => {
    assert.strictEqual(classifyNvidiaSmiFailure({ exitCode: 3, signal: null, stdout: '', stderr: '' }).problem?.message, 'nvidia-smi exited with code 3');
  });
});

describe('devices: oversized tool output says so', () => {
  const flood = (limit: number): ToolRun => ({
    exitCode: null,
    signal: 'SIGKILL',
    stdout: 'WARNING: infoROM is corrupted at gpu 0000:19:00.0\n'.repeat(3),
    stderr: '',
    errorCode: 'OUTPUT_TOO_LARGE',
    outputLimitBytes: limit,
  });

  it('nvidia-smi: "output too large (over N bytes)" and how the output began', () => {
    const result = classifyNvidiaSmiFailure(flood(8 * 1024 * 1024));
    assert.strictEqual(result.problem?.code, 'nvidia-smi-failed');
    assert.strictEqual(result.problem?.message, 'nvidia-smi was stopped: output too large (over 8388608 bytes), beginning "WARNING: infoROM is corrupted at gpu 0000:19:00.0"');
  });

  it('the PyTorch probe too', () => {
    assert.deepStrictEqual(torchStatusFromRun({ ...flood(1024 * 1024), stdout: 'x'.repeat(100) }, PY), {
      interpreter: PY,
      error: 'the PyTorch probe was stopped: output too large (over 1048576 bytes)',
    });
  });
});

describe('devices: a torch import that hangs is not a missing torch', () => {
  it('says the import did not finish within the timeout, and how to see where it hangs', () => {
    const torch = torchStatusFromRun(recordedRun('torch-probe/import-hangs.txt'), PY);
    assert.deepStrictEqual(torch, { interpreter: PY, error: 'importing torch did not finish within 120 s; the probe was stopped' });
    const [problem, ...rest] = diagnose({ platform: 'linux', torch, nvidia: null, amdGpuCount: 0, toolProblems: [] });
    assert.deepStrictEqual(rest, []);
    assert.strictEqual(problem.code, 'torch-import-timeout');
    assert.strictEqual(problem.source, 'torch');
    assert.strictEqual(problem.message, 'importing torch did not finish within 120 s; the probe was stopped');
    assert.ok(problem.hint.includes(`run \`${PY} -c "import torch"\` in a terminal`), problem.hint);
    assert.match(problem.hint, /network file system/);
    assert.match(problem.hint, /CUDA/);
    assert.doesNotMatch(problem.hint, /pip install/);
  });
});

describe('devices: a garbage nvidia-smi line is no GPU', () => {
  it('a row of [Unknown Error] beside a real GPU is dropped, and the line kept for the warning', () => {
    const { rows, skipped } = parseNvidiaInventory(recordedRun('nvidia-smi/unknown-error-row.txt').stdout);
    assert.deepStrictEqual(rows.map((row) => [row.index, row.name]), [[0, 'NVIDIA H200']]);
    assert.strictEqual(skipped.length, 1);
    assert.match(skipped[0], /^1, \[Unknown Error\], /);
  });

  it('a warning line, a row without any GPU identity and a cut-off row are not GPUs', () => {
    for (const file of ['garbage-only.txt', 'cut-off-row.txt']) {
      assert.deepStrictEqual(parseNvidiaQueryCsv(recordedRun(`nvidia-smi/${file}`).stdout), [], file);
    }
    assert.strictEqual(parseNvidiaInventory(recordedRun('nvidia-smi/garbage-only.txt').stdout).skipped.length, 2);
  });

  it('every recorded inventory still reads whole', () => {
    for (const file of ['h200.txt', 'h200-rtx4070.txt', 'four-a6000.txt', 'gtx770-not-supported.txt', 'a100-mig.txt', 'rtx3050-laptop-crlf.txt']) {
      const { rows, skipped } = parseNvidiaInventory(recordedRun(`nvidia-smi/${file}`).stdout);
      assert.ok(rows.length > 0, file);
      assert.deepStrictEqual(skipped, [], file);
    }
  });

  it('no valid row: nvidia-smi\'s output is unreadable, no GPU is present, and a CPU-only PyTorch is not blamed', () => {
    const report = buildDeviceReport(runsWith('garbage-only.txt'));
    assert.deepStrictEqual(report.accelerators, []);
    assert.deepStrictEqual(codes(report.problems), ['nvidia-smi-unreadable']);
    assert.strictEqual(report.problems[0].source, 'nvidia-smi');
    assert.strictEqual(report.problems[0].message, 'nvidia-smi\'s output could not be read (no GPU row in it): "WARNING: infoROM is corrupted at gpu 0000:19:00.0"');
    assert.strictEqual(report.selected.device, 'cpu');
  });

  it('a cut-off row alone is unreadable too', () => {
    assert.deepStrictEqual(codes(buildDeviceReport(runsWith('cut-off-row.txt')).problems), ['nvidia-smi-unreadable']);
  });

  it('some valid rows: those GPUs, and a warning naming the dropped line', () => {
    const report = buildDeviceReport(runsWith('unknown-error-row.txt'));
    assert.deepStrictEqual(report.accelerators.map((a) => [a.id, a.name]), [['nvidia:0', 'NVIDIA H200']]);
    assert.deepStrictEqual(codes(report.problems), ['nvidia-smi-unreadable-lines', 'torch-cpu-only-build']);
    assert.match(report.problems[0].message, /^nvidia-smi printed 1 line that is not a GPU row; it was skipped: "1, \[Unknown Error\], /);
  });
});
