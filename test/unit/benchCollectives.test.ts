// The collective benchmark's pure parts: nccl-tests' bandwidth formulas, rank 0's JSON read
// and checked, the request judged before any rank starts, the CLI's options and its table.
import * as assert from 'assert';
import { parseArgs } from '../../src/cli/args';
import { collectiveFactsOf } from '../../src/cli/commands/benchCollective';
import { formatCollectiveText, sizeText } from '../../src/cli/formats/collectiveText';
import { algorithmBandwidth, busBandwidth, busFactor } from '../../src/core/bench/collectives/bandwidth';
import { parseCollectiveReport } from '../../src/core/bench/collectives/report';
import {
  collectiveRequestProblem,
  collectiveScriptArgs,
  MIB,
  parseByteSize,
  parseCollectives,
  sweepBytes,
  type CollectiveRequest,
} from '../../src/core/bench/collectives/request';
import { reasonLine } from '../../src/worker/bench/collectives/launcher';
import type { DeviceReport } from '../../src/core/devices/report';

describe('collectives: bandwidth formulas (nccl-tests)', () => {
  it('bus factor: all-reduce 2(n-1)/n, all-gather (n-1)/n, broadcast and send-recv 1', () => {
    assert.strictEqual(busFactor('all-reduce', 2), 1);
    assert.strictEqual(busFactor('all-reduce', 8), 1.75);
    assert.strictEqual(busFactor('all-gather', 4), 0.75);
    assert.strictEqual(busFactor('all-gather', 8), 0.875);
    assert.strictEqual(busFactor('broadcast', 8), 1);
    assert.strictEqual(busFactor('send-recv', 8), 1);
    assert.throws(() => busFactor('all-reduce', 0), RangeError);
  });

  it('algbw is bytes / time in GB/s (1e9), busbw scales it; no time gives null', () => {
    assert.strictEqual(algorithmBandwidth(2e9, 0.5), 4);
    assert.strictEqual(busBandwidth('all-reduce', 4, 2e9, 0.5), 6);
    assert.strictEqual(busBandwidth('all-gather', 4, 2e9, 0.5), 3);
    assert.strictEqual(algorithmBandwidth(1024, 0), null);
    assert.strictEqual(busBandwidth('broadcast', 2, 1024, Number.NaN), null);
  });
});

const measured = (over: Record<string, unknown> = {}) => ({
  collective: 'all-reduce', bytes: 1048576, timesSec: [0.004, 0.001, 0.002], medianSec: 0.002, algBwGBps: 0.5, busBwGBps: 0.75, correct: true, wrongRanks: [], ...over,
});
const reportJson = (over: Record<string, unknown> = {}, result: Record<string, unknown> = {}) => JSON.stringify({
  schemaVersion: 1, torch: '1.13.0', backend: 'gloo', device: 'cpu', deviceName: 'CPU', worldSize: 4, launcher: 'device-doctor', dtype: 'float32', warmup: 2, iters: 3,
  results: [measured(result)], ...over,
});

describe('collectives: reading rank 0 report', () => {
  it('recomputes the median and both bandwidths instead of trusting the script', () => {
    const parsed = parseCollectiveReport(`some stray line\n${reportJson({}, { medianSec: 99, algBwGBps: 1, busBwGBps: 1 })}\n`);
    assert.ok(parsed.ok, JSON.stringify(parsed));
    const [r] = parsed.report.results;
    assert.strictEqual(r.medianSec, 0.002);
    assert.strictEqual(r.algBwGBps, 1048576 / 0.002 / 1e9);
    assert.strictEqual(r.busBwGBps, (1048576 / 0.002 / 1e9) * 1.5);
    assert.strictEqual(parsed.report.worldSize, 4);
  });

  it('rejects what it cannot trust, saying which field', () => {
    const error = (text: string) => {
      const parsed = parseCollectiveReport(text);
      assert.ok(!parsed.ok, text);
      return parsed.error;
    };
    assert.match(error(''), /printed no report/);
    assert.match(error('{"schemaVersion": 1,'), /not JSON/);
    assert.match(error(reportJson({ schemaVersion: 2 })), /schemaVersion 2/);
    assert.match(error(reportJson({ device: 'mps' })), /device must be/);
    assert.match(error(reportJson({ results: [] })), /non-empty/);
    assert.match(error(reportJson({}, { collective: 'reduce-scatter' })), /results\[0\]\.collective 'reduce-scatter'/);
    assert.match(error(reportJson({}, { timesSec: [0.1, 0.2] })), /3 finite times/);
    assert.match(error(reportJson({}, { timesSec: [0.1, -1, 0.2] })), /3 finite times/);
    assert.match(error(reportJson({}, { wrongRanks: [4] })), /between 0 and 3/);
    assert.match(error(reportJson({}, { correct: true, wrongRanks: [1] })), /correct must be true exactly when/);
    assert.match(error(reportJson({}, { bytes: 0 })), /bytes must be a whole number >= 1/);
  });

  it('keeps a wrong result as a wrong result', () => {
    const parsed = parseCollectiveReport(reportJson({}, { correct: false, wrongRanks: [1, 3] }));
    assert.ok(parsed.ok);
    assert.deepStrictEqual(parsed.report.results[0].wrongRanks, [1, 3]);
    assert.strictEqual(parsed.report.results[0].correct, false);
  });
});

describe('collectives: the request', () => {
  const request = (over: Partial<CollectiveRequest> = {}): CollectiveRequest => ({
    collectives: ['all-reduce'], device: 'cpu', worldSize: 2, minBytes: MIB, maxBytes: 4 * MIB, iters: 5, warmup: 1, timeoutSec: 60, ...over,
  });
  const noFacts = { cudaDevices: null, hostFreeBytes: null, gpuFreeBytes: null };

  it('reads collectives, sizes and the sweep', () => {
    assert.deepStrictEqual(parseCollectives('all'), { collectives: ['all-reduce', 'all-gather', 'broadcast', 'send-recv'] });
    assert.deepStrictEqual(parseCollectives('send-recv, all-reduce,send-recv'), { collectives: ['send-recv', 'all-reduce'] });
    assert.deepStrictEqual(parseCollectives('all-reduce,reduce'), { unknown: 'reduce' });
    assert.deepStrictEqual(['4MiB', '512k', '1G', '1048576', '1.5 MiB', 'lots', '4TB'].map(parseByteSize), [4 * MIB, 512 * 1024, 1024 * MIB, MIB, 1.5 * MIB, null, null]);
    assert.deepStrictEqual(sweepBytes(MIB, 1024 * MIB).length, 11);
    assert.deepStrictEqual(sweepBytes(MIB, 5 * MIB), [MIB, 2 * MIB, 4 * MIB]);
  });

  it('refuses fewer than two ranks, sizes out of order, more ranks than GPUs, buffers that do not fit', () => {
    assert.strictEqual(collectiveRequestProblem(request(), noFacts), null);
    assert.match(collectiveRequestProblem(request({ worldSize: 1 }), noFacts) ?? '', /at least two ranks/);
    assert.match(collectiveRequestProblem(request({ minBytes: 8 * MIB }), noFacts) ?? '', /below the smallest/);
    assert.match(collectiveRequestProblem(request({ iters: 0 }), noFacts) ?? '', /--repeats/);
    assert.match(collectiveRequestProblem(request({ device: 'cuda', worldSize: 4 }), { ...noFacts, cudaDevices: 2 }) ?? '', /one GPU per rank, and PyTorch sees 2/);
    assert.match(collectiveRequestProblem(request({ device: 'cuda' }), { ...noFacts, cudaDevices: 0 }) ?? '', /sees no CUDA/);
    assert.strictEqual(collectiveRequestProblem(request({ device: 'cuda', worldSize: 2 }), { ...noFacts, cudaDevices: 2 }), null);
    assert.match(collectiveRequestProblem(request({ worldSize: 4, maxBytes: 1024 * MIB }), { ...noFacts, hostFreeBytes: 8 * 1024 * MIB }) ?? '', /needs 16 GiB of memory for 4 CPU ranks/);
    assert.match(collectiveRequestProblem(request({ device: 'cuda', maxBytes: 1024 * MIB }), { cudaDevices: 2, hostFreeBytes: null, gpuFreeBytes: 2 * 1024 * MIB }) ?? '', /needs 4 GiB on each GPU/);
  });

  it('gives collectives.py the flags a torchrun user would type', () => {
    assert.deepStrictEqual(collectiveScriptArgs(request({ collectives: ['all-reduce', 'broadcast'] })), [
      '--collective', 'all-reduce,broadcast', '--device', 'cpu', '--min-bytes', '1048576', '--max-bytes', '4194304', '--warmup', '1', '--iters', '5', '--timeout', '60',
    ]);
  });

  it('takes the GPU count and the least free memory from PyTorch in the device report', () => {
    const report = {
      torch: { interpreter: '/py', version: '2.4', mps: { built: false, available: false }, cuda: { built: true, available: true, version: '12.4', deviceCount: 2, devices: [{ freeBytes: 5 }, { freeBytes: 3 }] } },
    } as unknown as DeviceReport;
    assert.deepStrictEqual(collectiveFactsOf(report, 7), { cudaDevices: 2, hostFreeBytes: 7, gpuFreeBytes: 3 });
    assert.deepStrictEqual(collectiveFactsOf({ torch: { interpreter: '/py', error: 'No module named torch' } } as unknown as DeviceReport, 7), { cudaDevices: 0, hostFreeBytes: 7, gpuFreeBytes: null });
    assert.deepStrictEqual(collectiveFactsOf(null, null), { cudaDevices: null, hostFreeBytes: null, gpuFreeBytes: null });
  });
});

describe('collectives: CLI options and output', () => {
  it('reads --collective with its options, which need --collective and exclude the matmul ones', () => {
    assert.deepStrictEqual(parseArgs(['bench', '--collective', 'all-reduce', '--world-size', '4', '--device', 'cpu', '--max-size', '4MiB', '--master-port=29500', '--timeout', '30', '--json']), {
      command: 'bench',
      options: { sweep: false, json: true, device: 'cpu', collective: { collective: 'all-reduce', worldSize: 4, minSize: undefined, maxSize: '4MiB', masterPort: 29500, timeoutSeconds: 30 } },
    });
    const message = (argv: string[]) => (parseArgs(['bench', ...argv]) as { message?: string }).message;
    assert.strictEqual(message(['--world-size', '2']), '--world-size goes with --collective');
    assert.strictEqual(message(['--collective', 'all', '--size', '512']), '--size is for the matmul benchmark, not --collective');
    assert.strictEqual(message(['--collective', 'all', '--world-size', 'two']), "--world-size needs a whole number (got 'two')");
  });

  it('prints one row per collective and size with nccl-tests columns, naming wrong ranks', () => {
    const parsed = parseCollectiveReport(reportJson({ results: [measured(), measured({ collective: 'all-gather', bytes: 2 * MIB, correct: false, wrongRanks: [2] })] }));
    assert.ok(parsed.ok);
    const lines = formatCollectiveText(parsed.report).split('\n');
    assert.match(lines[0], /^gloo on 4 CPU processes, torch 1\.13\.0, float32; median of 3 timed iterations after 2 warm-ups/);
    assert.deepStrictEqual(lines.slice(2, 5).map((l) => l.split(/\s{2,}/)), [
      ['COLLECTIVE', 'SIZE', 'TIME ms', 'ALGBW GB/s', 'BUSBW GB/s', 'RESULT'],
      ['all-reduce', '1 MiB', '2', '0.524', '0.786', 'ok'],
      ['all-gather', '2 MiB', '2', '1.05', '0.786', 'WRONG on rank 2'],
    ]);
    assert.deepStrictEqual([512, 1536, 3 * MIB, 1024 * MIB].map(sizeText), ['512 B', '1.5 KiB', '3 MiB', '1 GiB']);
  });

  it("names a rank's own reason line, else its last stderr line", () => {
    assert.strictEqual(reasonLine('Traceback\ncollectives.py rank 1/2: Connection closed by peer\n  File "x"\nRuntimeError: x\n'), 'collectives.py rank 1/2: Connection closed by peer');
    assert.strictEqual(reasonLine('warning\nSegmentation fault\n'), 'Segmentation fault');
    assert.strictEqual(reasonLine(''), '');
  });
});
