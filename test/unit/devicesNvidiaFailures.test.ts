import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { classifyNvidiaSmiFailure } from '../../src/core/devices/nvidiaFailure';
import { NvidiaMonitorParser, nvidiaMonitorArgs, parseNvidiaMonitorBlock } from '../../src/core/devices/nvidiaMonitor';
import type { ToolRun } from '../../src/core/devices/toolRun';

const PROBES = path.join(__dirname, '..', 'fixtures', 'probes');
const MIB = 1024 * 1024;

/** A recorded run: stdout from <case>.txt, exit code and stderr from <case>.meta.json. */
function recordedRun(tool: string, name: string): ToolRun {
  const stdout = fs.readFileSync(path.join(PROBES, tool, `${name}.txt`), 'utf8');
  const metaFile = path.join(PROBES, tool, `${name}.meta.json`);
  if (!fs.existsSync(metaFile)) return { exitCode: 0, stdout, stderr: '' };
  const meta = JSON.parse(fs.readFileSync(metaFile, 'utf8')) as ToolRun;
  return { ...meta, stdout };
}

describe('devices: nvidia-smi failures', () => {
  it('exit 9: the driver is not loaded, a problem with its hint', () => {
    const result = classifyNvidiaSmiFailure(recordedRun('nvidia-smi', 'exit9-driver-not-loaded'));
    assert.strictEqual(result.kind, 'driver-not-loaded');
    assert.strictEqual(result.problem?.source, 'nvidia-smi');
    assert.strictEqual(result.problem?.code, 'nvidia-driver-not-loaded');
    assert.match(result.problem?.message ?? '', /couldn't communicate with the NVIDIA driver/);
    assert.match(result.problem?.hint ?? '', /latest NVIDIA driver is installed and running/);
  });

  it('exit 18: driver/library version mismatch names the NVML version and says to reboot or reload', () => {
    const result = classifyNvidiaSmiFailure(recordedRun('nvidia-smi', 'exit18-version-mismatch'));
    assert.strictEqual(result.kind, 'version-mismatch');
    assert.strictEqual(result.problem?.code, 'nvml-version-mismatch');
    assert.strictEqual(result.problem?.message, 'Failed to initialize NVML: Driver/library version mismatch (NVML library version: 535.161)');
    assert.match(result.problem?.hint ?? '', /reboot/);
    assert.match(result.problem?.hint ?? '', /reload the nvidia kernel module/);
  });

  it('exit 6 "No devices were found" is a machine without a GPU, not a problem', () => {
    assert.deepStrictEqual(classifyNvidiaSmiFailure(recordedRun('nvidia-smi', 'exit6-no-devices')), { kind: 'no-devices' });
  });

  it('exit 255: no supported GPUs, in both wordings', () => {
    for (const name of ['exit255-no-supported-gpus', 'exit255-unable-to-determine']) {
      const result = classifyNvidiaSmiFailure(recordedRun('nvidia-smi', name));
      assert.strictEqual(result.kind, 'no-supported-gpus', name);
      assert.strictEqual(result.problem?.code, 'nvidia-no-supported-gpus', name);
      assert.match(result.problem?.hint ?? '', /Xid/, name);
    }
    const wording = classifyNvidiaSmiFailure(recordedRun('nvidia-smi', 'exit255-unable-to-determine'));
    assert.strictEqual(wording.problem?.message, 'Unable to determine the number of GPUs');
  });

  it('not installed (ENOENT) is normal: no problem', () => {
    assert.deepStrictEqual(classifyNvidiaSmiFailure(recordedRun('nvidia-smi', 'not-installed')), { kind: 'not-installed' });
  });

  it('a hang killed after its timeout is reported with the timeout', () => {
    const result = classifyNvidiaSmiFailure(recordedRun('nvidia-smi', 'hang'));
    assert.strictEqual(result.kind, 'timeout');
    assert.strictEqual(result.problem?.code, 'nvidia-smi-timeout');
    assert.strictEqual(result.problem?.message, 'nvidia-smi did not answer within 15 s and was stopped');
  });

  it('a successful run is ok', () => {
    assert.deepStrictEqual(classifyNvidiaSmiFailure(recordedRun('nvidia-smi', 'h200-rtx4070')), { kind: 'ok' });
  });

  it('recognises the message even when a driver uses another exit code', () => {
    const run: ToolRun = { exitCode: 255, stdout: 'Failed to initialize NVML: Driver/library version mismatch\n', stderr: '' };
    assert.strictEqual(classifyNvidiaSmiFailure(run).kind, 'version-mismatch');
  });

  it('falls back to the exit code when the text is empty', () => {
    assert.strictEqual(classifyNvidiaSmiFailure({ exitCode: 9, stdout: '', stderr: '' }).kind, 'driver-not-loaded');
    assert.strictEqual(classifyNvidiaSmiFailure({ exitCode: 18, stdout: '', stderr: '' }).problem?.code, 'nvml-version-mismatch');
  });

  it('an unknown failure keeps the exit code and the first line of the message', () => {
    const result = classifyNvidiaSmiFailure({ exitCode: 3, stdout: '', stderr: '\nSegmentation fault (core dumped)\n' });
    assert.strictEqual(result.kind, 'unknown');
    assert.strictEqual(result.problem?.code, 'nvidia-smi-failed');
    assert.strictEqual(result.problem?.message, 'nvidia-smi exited with code 3: Segmentation fault (core dumped)');
  });

  it('a tool that cannot be executed says so', () => {
    const result = classifyNvidiaSmiFailure({ exitCode: null, stdout: '', stderr: '', errorCode: 'EACCES' });
    assert.strictEqual(result.problem?.message, 'nvidia-smi could not be run (EACCES)');
  });
});

describe('devices: the streaming nvidia-smi monitor', () => {
  it('asks for one long-lived process with an interval in ms', () => {
    assert.deepStrictEqual(nvidiaMonitorArgs(1000), [
      '--query-gpu=index,memory.used,memory.total,utilization.gpu',
      '--format=csv,noheader,nounits',
      '-lms',
      '1000',
    ]);
    assert.strictEqual(nvidiaMonitorArgs(0)[3], '1');
  });

  it('reads three intervals of two GPUs', () => {
    const samples = parseNvidiaMonitorBlock(fs.readFileSync(path.join(PROBES, 'nvidia-smi-monitor', 'h200-rtx4070-3-intervals.txt'), 'utf8'));
    assert.strictEqual(samples.length, 6);
    assert.deepStrictEqual(samples[2], { index: 0, usedBytes: 20480 * MIB, totalBytes: 143771 * MIB, utilizationPercent: 87 });
    assert.deepStrictEqual(samples.map((sample) => sample.index), [0, 1, 0, 1, 0, 1]);
  });

  it('emits a sample only once its line is complete, however the chunks split it', () => {
    const parser = new NvidiaMonitorParser();
    assert.deepStrictEqual(parser.push('0, 20480, 1437'), []);
    assert.deepStrictEqual(parser.push('71, 87\n1, 53'), [{ index: 0, usedBytes: 20480 * MIB, totalBytes: 143771 * MIB, utilizationPercent: 87 }]);
    assert.deepStrictEqual(parser.push('1, 12282, 3\r\n'), [{ index: 1, usedBytes: 531 * MIB, totalBytes: 12282 * MIB, utilizationPercent: 3 }]);
    assert.deepStrictEqual(parser.push(''), []);
  });

  it('keeps a last line without newline for flush()', () => {
    const parser = new NvidiaMonitorParser();
    assert.deepStrictEqual(parser.push('0, 1, 2, 3'), []);
    assert.deepStrictEqual(parser.flush(), [{ index: 0, usedBytes: MIB, totalBytes: 2 * MIB, utilizationPercent: 3 }]);
    assert.deepStrictEqual(parser.flush(), []);
  });

  it('reads MIG mode, where utilization is [N/A]', () => {
    const samples = parseNvidiaMonitorBlock(fs.readFileSync(path.join(PROBES, 'nvidia-smi-monitor', 'mig-na.txt'), 'utf8'));
    assert.deepStrictEqual(samples.map((sample) => sample.utilizationPercent), [null, null]);
    assert.strictEqual(samples[1].usedBytes, 10277 * MIB);
  });

  it('skips lines that are not samples (a driver error in the middle of the stream)', () => {
    const parser = new NvidiaMonitorParser();
    const samples = parser.push('0, 1, 2, 3\nUnable to determine the device handle for GPU0000:19:00.0: Unknown Error\n\n0, 4, 5, 6\n');
    assert.deepStrictEqual(samples.map((sample) => sample.usedBytes), [MIB, 4 * MIB]);
  });

  it('does not buffer an endless line forever', () => {
    const parser = new NvidiaMonitorParser();
    parser.push('x'.repeat(70 * 1024));
    assert.deepStrictEqual(parser.push('0, 1, 2, 3\n'), [{ index: 0, usedBytes: MIB, totalBytes: 2 * MIB, utilizationPercent: 3 }]);
  });
});
