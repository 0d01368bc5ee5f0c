// A noisy result's reason from what was seen while it ran: other processes on the host's CPUs
// (from /proc, this benchmark's own process tree taken out), another process on its GPU, a
// moving GPU clock; the generic sentence when nothing was seen. And where a person reads it:
// `bench --json`, the CLI's text and the panel's noise mark.
import * as assert from 'assert';
import { buildRun } from '../../src/core/bench/compare';
import { withRunSamples } from '../../src/core/bench/duringRun';
import { toBenchJson } from '../../src/core/bench/export';
import { hostLoadBetween, parsePidStat, procReading } from '../../src/core/bench/hostLoad';
import type { BenchResult, RunResult } from '../../src/core/bench/model';
import { GENERIC_NOISE_REASON, noiseReasonOf } from '../../src/core/bench/noiseReason';
import { makeBenchResult } from '../../src/core/bench/result';
import { NO_SAMPLES, type HostLoadSample, type RunSamples } from '../../src/core/bench/runSamples';
import { formatBenchText } from '../../src/cli/formats/benchText';
import { runsTable } from '../../src/vscode/benchmark/panel/benchmarkSections';
import type { BenchRunResponse } from '../../src/protocol/worker';
import { clockSamples } from './benchClockSamples';

const pidStat = (pid: number, name: string, ppid: number, utime: number, stime: number) =>
  `${pid} (${name}) S ${ppid} ${pid} ${pid} 0 -1 4194560 100 0 0 0 ${utime} ${stime} 0 0 20 0 1 0 100 1000 100`;

function result(device: string, spread: number, size = 1024): BenchResult {
  const t = 0.01;
  return makeBenchResult({ plan: { engine: 'torch', device, dtype: 'float32', size }, timesSec: [t * (1 - spread), t, t, t * (1 + spread)], maxRelError: 1e-6, checkedEntries: 64 });
}

function samplesFor(r: BenchResult, extra: Partial<RunSamples>): RunSamples {
  return { ...NO_SAMPLES, windows: [{ engine: r.engine, device: r.device, dtype: r.dtype, size: r.size, from: 1000, to: 2000 }], ...extra };
}

const busyHost: HostLoadSample = { from: 900, to: 1400, othersShare: 0.5, cpus: 2, busiest: [{ pid: 4242, name: 'stress-ng', share: 0.48 }] };

describe('bench noise: the host\'s load from /proc', () => {
  it('reads a process\'s parent and CPU ticks even when its name has spaces and parentheses', () => {
    assert.deepStrictEqual(parsePidStat(pidStat(812, 'tmux: server (1)', 1, 30, 12)), { pid: 812, ppid: 1, name: 'tmux: server (1)', ticks: 42 });
    assert.strictEqual(parsePidStat('garbage'), null);
  });

  it('counts what processes outside the benchmark\'s tree used, as a share of every CPU\'s ticks', () => {
    const stat = (total: number) => `cpu  ${total / 2} 0 0 ${total / 2} 0 0 0 0 0 0\ncpu0 1 1 1 1\n`;
    // 100 is the benchmark (its bench.py 101 below it); 200 another program; 300 appears in between.
    const before = procReading(0, stat(1000), [pidStat(100, 'node', 1, 50, 0), pidStat(101, 'python3', 100, 10, 0), pidStat(200, 'stress-ng', 1, 5, 0)])!;
    const after = procReading(500, stat(1200), [pidStat(100, 'node', 1, 60, 0), pidStat(101, 'python3', 100, 100, 0), pidStat(200, 'stress-ng', 1, 95, 0), pidStat(300, 'make', 1, 4, 0)])!;
    const load = hostLoadBetween(before, after, 100, 2)!;
    assert.deepStrictEqual({ ...load, othersShare: Number(load.othersShare.toFixed(3)) }, {
      from: 0, to: 500, othersShare: 0.47, cpus: 2, busiest: [{ pid: 200, name: 'stress-ng', share: 0.45 }],
    });
    assert.strictEqual(hostLoadBetween(after, after, 100, 2), null, 'no time passed');
  });
});

describe('bench noise: the reason', () => {
  it('names other load on the host\'s CPUs, in cores, with the busiest process', () => {
    const r = result('cpu', 0.5);
    assert.strictEqual(noiseReasonOf(r, samplesFor(r, { host: [busyHost] })), 'other processes kept 1 of 2 CPU cores busy while it ran (busiest: stress-ng, pid 4242)');
  });

  it('names another process on the same GPU, and a clock that moved during the result', () => {
    const r = result('cuda:0', 0.5);
    const seen = samplesFor(r, {
      gpu: clockSamples('h200-thermal-slowdown.txt', 'cuda:0', 1100),
      gpuProcesses: [{ device: 'cuda:0', pid: 777, name: 'python3', usedBytes: 3 * 1024 ** 3 }, { device: 'cuda:1', pid: 778, name: 'train', usedBytes: null }],
    });
    assert.strictEqual(noiseReasonOf(r, seen), 'another process used cuda:0 during the run (python3, pid 777, 3.0 GiB); the SM clock moved between 1.2 GHz and 1.98 GHz during the run');
  });

  it('says the generic sentence when nothing was seen, and nothing for a result that is not noisy', () => {
    const quietHost = { ...busyHost, othersShare: 0.03, busiest: [] };
    const noisy = result('cpu', 0.5);
    assert.strictEqual(noiseReasonOf(noisy, samplesFor(noisy, { host: [quietHost] })), GENERIC_NOISE_REASON);
    assert.strictEqual(noiseReasonOf(noisy, NO_SAMPLES), GENERIC_NOISE_REASON, 'no window: nothing can be said of it');
    const steady = result('cpu', 0.01);
    assert.strictEqual(noiseReasonOf(steady, samplesFor(steady, { host: [busyHost] })), null);
  });

  it('load outside the result\'s window is not its reason', () => {
    const r = result('cpu', 0.5);
    assert.strictEqual(noiseReasonOf(r, samplesFor(r, { host: [{ ...busyHost, from: 2100, to: 2600 }] })), GENERIC_NOISE_REASON);
  });
});

describe('bench noise and throttling: where they are shown', () => {
  function diagnosedRun(): BenchRunResponse {
    const gpu = result('cuda:0', 0.01, 8192);
    const cpu = result('cpu', 0.5, 8192);
    const runs: RunResult[] = [{ status: 'ok', result: gpu }, { status: 'ok', result: cpu }];
    const base: BenchRunResponse = { ...buildRun(runs), transfers: [], cancelled: false, selectedDevice: 'cuda:0', description: 'torch on cuda:0 compared with torch on the CPU' };
    const window = (r: BenchResult) => ({ engine: r.engine, device: r.device, dtype: r.dtype, size: r.size, from: 1000, to: 2000 });
    return withRunSamples(base, { gpu: clockSamples('h200-thermal-slowdown.txt', 'cuda:0', 1100), host: [busyHost], gpuProcesses: [], windows: [window(gpu), window(cpu)] });
  }

  it('bench --json: the throttling in problems, the reason beside the noisy mark', () => {
    const json = toBenchJson(diagnosedRun());
    assert.deepStrictEqual(json.problems.map((p) => `${p.status} ${p.code} ${p.device}: ${p.message}`), [
      'below-peak gpu-throttled cuda:0: clocks fell to 1.2 GHz of 1.98 GHz max during the run (thermal slowdown at 87 °C, power cap at 700 W of 700 W): the result understates the GPU.',
    ]);
    const cpu = json.results.find((r) => r.device === 'cpu')!;
    assert.deepStrictEqual([cpu.noisy, cpu.noiseReason], [true, 'other processes kept 1 of 2 CPU cores busy while it ran (busiest: stress-ng, pid 4242)']);
    assert.strictEqual(json.results.find((r) => r.device === 'cuda:0')!.noiseReason, null);
  });

  it('the CLI text: the reason on the noisy line, the throttling under Diagnosis', () => {
    const text = formatBenchText(diagnosedRun());
    assert.match(text, /\nnoisy: this result's repeats spread by more than 10 % of the median \(IQR\): other processes kept 1 of 2 CPU cores busy while it ran \(busiest: stress-ng, pid 4242\)\.\n/);
    assert.match(text, /\nDiagnosis\n {2}torch cuda:0 float32 n = 8192 \(below-peak\): clocks fell to 1\.2 GHz of 1\.98 GHz max during the run \(thermal slowdown at 87 °C/);
  });

  it('the panel: the noise mark\'s tooltip gives the reason seen', () => {
    assert.match(runsTable(diagnosedRun()), /<span class="noise-mark" title="The repeats spread by more than 10 % of the median \(IQR\): other processes kept 1 of 2 CPU cores busy while it ran \(busiest: stress-ng, pid 4242\)\.">noisy<\/span>/);
  });
});
