// scripts/device-check.ts's judgements, without a GPU: what counts as an accelerator in a
// detect report, and when a sweep passes (every product correct, the largest size of each
// dtype at 25 % of its datasheet peak or more), and, with two GPUs or more, which commands the
// multi-GPU checks run and how `bench --devices all`'s answer is judged (a fake CLI answers).
import * as assert from 'assert';
import { cudaDevicesOf, judgeEveryDevice, judgeSweep, MIN_PERCENT_OF_PEAK, multiGpuChecks, pythonOf, type CliRun } from '../../scripts/device-check';
import type { DeviceReport } from '../../src/core/devices/report';

function reportWithTorch(torch: unknown): DeviceReport {
  return { torch } as unknown as DeviceReport;
}

const result = (dtype: string, size: number, percentOfPeak?: number) => ({ dtype, size, gflops: 1000, percentOfPeak, noisy: false });

describe('device-check', () => {
  it('counts the CUDA devices PyTorch can use, and none when torch is missing or CUDA is not available', () => {
    const cuda = { available: true, deviceCount: 2, devices: [{ name: 'NVIDIA H200' }, { name: 'NVIDIA H200' }] };
    assert.deepStrictEqual(cudaDevicesOf(reportWithTorch({ version: '2.11.0', cuda })), { count: 2, name: 'NVIDIA H200', version: '2.11.0' });
    assert.strictEqual(cudaDevicesOf(reportWithTorch({ version: '1.13.0', cuda: { available: false, deviceCount: 0, devices: [] } })).count, 0);
    assert.strictEqual(cudaDevicesOf(reportWithTorch({ error: "No module named 'torch'" })).count, 0);
    assert.strictEqual(cudaDevicesOf(null).count, 0);
  });

  it('passes a sweep whose largest size per dtype reaches the mark, whatever the small sizes did', () => {
    const json = { results: [result('float32', 256, 3), result('float32', 8192, 70), result('bfloat16', 8192, 80)], problems: [{ status: 'below-peak', message: 'n = 256 is small' }] };
    const outcome = judgeSweep(0, json);
    assert.strictEqual(outcome.ok, true, String(outcome.problem));
    assert.deepStrictEqual(outcome.diagnoses, ['n = 256 is small']);
  });

  it('fails a sweep with a wrong product, a largest size under the mark, no peak to judge by, or no JSON', () => {
    const wrong = judgeSweep(1, { results: [result('float32', 8192, 70)], problems: [{ status: 'wrong-result', dtype: 'float32', size: 8192, message: 'entry [0, 0] is off' }] });
    assert.strictEqual(wrong.ok, false);
    assert.match(String(wrong.problem), /entry \[0, 0\] is off/);
    const slow = judgeSweep(0, { results: [result('bfloat16', 8192, MIN_PERCENT_OF_PEAK - 1)], problems: [] });
    assert.match(String(slow.problem), /bfloat16 n = 8192: 24\.0 % of peak, under 25 %/);
    assert.match(String(judgeSweep(0, { results: [result('float16', 4096)], problems: [] }).problem), /matched no datasheet/);
    assert.strictEqual(judgeSweep(null, null).ok, false);
  });

  it('takes --python, then DEVICE_DOCTOR_PYTHON, then python3 on PATH', () => {
    assert.strictEqual(pythonOf(['node', 'x', '--python', '/p/python'], { DEVICE_DOCTOR_PYTHON: '/q' }), '/p/python');
    assert.strictEqual(pythonOf(['node', 'x'], { DEVICE_DOCTOR_PYTHON: '/q' }), '/q');
    assert.strictEqual(pythonOf(['node', 'x'], {}), 'python3');
  });

  it('with two GPUs, runs the collective sweep over NCCL and then bench --devices all, both through the CLI', async () => {
    const asked: string[][] = [];
    const measured = (device: string, gflops: number) => ({ device, alone: { gflops, during: null }, together: { gflops, during: null } });
    const fakeCli: CliRun = (args) => {
      asked.push(args);
      if (args.includes('--collective')) return { status: 0, json: { backend: 'nccl', results: [] }, stderr: '' };
      return { status: 0, json: { schemaVersion: 2, devices: [measured('cuda:0', 50_000), measured('cuda:1', 38_000)], findings: ['cuda:1 is 24 % below …'] }, stderr: '' };
    };
    const checks = await multiGpuChecks('/py', 2, fakeCli);
    assert.deepStrictEqual(asked, [
      ['bench', '--collective', 'all-reduce,all-gather', '--device', 'cuda', '--world-size', '2', '--max-size', '256MiB', '--json', '--python', '/py'],
      ['bench', '--devices', 'all', '--size', '8192', '--json', '--python', '/py'],
    ]);
    assert.deepStrictEqual(checks.map((c) => [c.name, c.ok]), [['collective', true], ['devices', true]]);
    // A slow GPU is the finding the check exists to report, not a failure of the tool.
    assert.deepStrictEqual(checks[1].findings, ['cuda:1 is 24 % below …']);
    assert.deepStrictEqual((checks[1].devices as { togetherTflops: number }[]).map((d) => d.togetherTflops), [50, 38]);
  });

  it('fails bench --devices all when a run failed, a device is missing, it exited non-zero or printed no JSON', () => {
    const run = (gflops?: number, error?: string) => (gflops ? { gflops } : { error });
    const failed = judgeEveryDevice(1, { devices: [{ device: 'cuda:0', alone: run(100), together: run(undefined, 'CUDA error: out of memory') }, { device: 'cuda:1', alone: run(100), together: run(100) }] }, 2);
    assert.strictEqual(failed.ok, false);
    assert.strictEqual(failed.problem, 'bench --devices all exited 1; cuda:0 (all at once): CUDA error: out of memory');
    const missing = judgeEveryDevice(0, { devices: [{ device: 'cuda:0', alone: run(100), together: run(100) }] }, 2);
    assert.strictEqual(missing.problem, '1 devices measured of 2');
    assert.match(String(judgeEveryDevice(2, null, 2).problem), /printed no JSON \(exit 2\)/);
  });
});
