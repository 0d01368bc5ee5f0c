// The editor's collective-bandwidth choice and view, without an editor: when Run Matmul
// Benchmark offers it (two GPUs → NCCL, else CPU ranks over gloo, nothing without PyTorch),
// the worker params it becomes, the bus-bandwidth chart (from a real gloo capture:
// test/fixtures/probes/collectives/gloo-2-cpu-ranks-torchrun.json) and the panel's body.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { parseCollectiveReport, type CollectiveReport } from '../../src/core/bench/collectives/report';
import type { DeviceReport } from '../../src/core/devices/report';
import { busBandwidthSeries, renderBusBandwidthChart } from '../../src/vscode/benchmark/collective/busBandwidthChart';
import { collectiveExport, renderCollectiveActions, renderCollectiveBody } from '../../src/vscode/benchmark/collective/collectiveHtml';
import {
  COLLECTIVE_KIND_PICKS,
  collectiveComparePick,
  collectiveOffer,
  collectiveSizePicks,
  describeCollectiveChoice,
  toCollectiveParams,
} from '../../src/vscode/benchmark/collective/collectivePicks';

const PROBES = path.join(__dirname, '..', 'fixtures', 'probes');

function recorded(name: string): CollectiveReport {
  const parsed = parseCollectiveReport(fs.readFileSync(path.join(PROBES, 'collectives', name), 'utf8'));
  assert.ok(parsed.ok, parsed.ok ? '' : parsed.error);
  return parsed.report;
}

function withTorch(cuda: { available: boolean; deviceCount: number } | null): DeviceReport {
  const torch = cuda === null
    ? { interpreter: '/py', error: { kind: 'not-installed', message: 'No module named torch' } }
    : { interpreter: '/py', version: '2.4.1', cuda: { built: true, version: '12.4', ...cuda }, mps: { built: false, available: false } };
  return { torch } as unknown as DeviceReport;
}

describe('editor: the collective bandwidth choice', () => {
  it('offers NCCL over every GPU with two or more, gloo CPU ranks with fewer, nothing without PyTorch', () => {
    assert.deepStrictEqual(collectiveOffer(withTorch({ available: true, deviceCount: 4 })), { device: 'cuda', worldSize: 4, where: '4 GPUs over NCCL' });
    assert.deepStrictEqual(collectiveOffer(withTorch({ available: true, deviceCount: 1 })), { device: 'cpu', worldSize: 2, where: '2 CPU processes over gloo' });
    assert.deepStrictEqual(collectiveOffer(withTorch({ available: false, deviceCount: 0 })), { device: 'cpu', worldSize: 2, where: '2 CPU processes over gloo' });
    assert.strictEqual(collectiveOffer(withTorch(null)), null);
    assert.strictEqual(collectiveOffer(null), null);
  });

  it('says in the pick what runs where, and why CPU ranks when there is no second GPU', () => {
    const cpu = collectiveComparePick(collectiveOffer(withTorch({ available: false, deviceCount: 0 }))!);
    assert.match(cpu.label, /^Collective bandwidth/);
    assert.match(cpu.detail, /2 CPU processes over gloo \(no second GPU/);
    assert.doesNotMatch(collectiveComparePick(collectiveOffer(withTorch({ available: true, deviceCount: 8 }))!).detail, /no second GPU/);
  });

  it('becomes the worker\'s params: the collectives, the device and ranks offered, 1 MiB up to the size chosen', () => {
    const offer = collectiveOffer(withTorch({ available: false, deviceCount: 0 }))!;
    const sizes = collectiveSizePicks(offer);
    assert.strictEqual(sizes[0].label, '1 MiB … 16 MiB');
    assert.strictEqual(sizes[0].description, 'default');
    assert.strictEqual(collectiveSizePicks(collectiveOffer(withTorch({ available: true, deviceCount: 2 }))!)[0].label, '1 MiB … 1 GiB');
    const all = COLLECTIVE_KIND_PICKS.find((p) => p.label === 'All four')!;
    const choice = { offer, collectives: all.collectives, maxBytes: sizes[1].maxBytes };
    assert.deepStrictEqual(toCollectiveParams(choice, { pythonPath: '/usr/bin/python3', pinnedDevice: null, runId: 'r1' }), {
      pythonPath: '/usr/bin/python3', pinnedDevice: null, collectives: ['all-reduce', 'all-gather', 'broadcast', 'send-recv'],
      device: 'cpu', worldSize: 2, minBytes: 1024 * 1024, maxBytes: 4 * 1024 * 1024, runId: 'r1',
    });
    assert.strictEqual(describeCollectiveChoice(choice), 'all four collectives on 2 CPU processes over gloo, 1 MiB … 4 MiB');
    assert.deepStrictEqual(COLLECTIVE_KIND_PICKS[0].collectives, ['all-reduce']);
  });
});

describe('editor: bus bandwidth against size', () => {
  const report = recorded('gloo-2-cpu-ranks-torchrun.json');

  it('draws one line per collective through its sizes, on a log2 size axis labelled in MiB', () => {
    const svg = renderBusBandwidthChart(report);
    assert.strictEqual((svg.match(/<polyline /g) ?? []).length, 4);
    assert.strictEqual((svg.match(/<circle /g) ?? []).length, report.results.length);
    for (const label of ['1 MiB', '2 MiB', '4 MiB']) assert.ok(svg.includes(`>${label}</text>`), label);
    assert.match(svg, /bus bandwidth GB\/s/);
    assert.match(svg, /<title id="busbw-title">Bus bandwidth against message size<\/title>/);
    // The points follow the core's recomputed bus bandwidth, highest one at the top of the plot.
    const series = busBandwidthSeries(report);
    assert.deepStrictEqual(series.map((s) => s.collective), ['all-reduce', 'all-gather', 'broadcast', 'send-recv']);
    assert.deepStrictEqual(series[0].points.map((p) => p.bytes), [1, 2, 4].map((m) => m * 1024 * 1024));
  });

  it('puts a higher bus bandwidth higher on the chart', () => {
    const two = { results: [
      { ...report.results[0], bytes: 1 << 20, busBwGBps: 1 },
      { ...report.results[0], bytes: 1 << 21, busBwGBps: 2 },
    ] };
    const [first, second] = [...renderBusBandwidthChart(two).matchAll(/<circle [^>]*cy="([\d.]+)"/g)].map((m) => Number(m[1]));
    assert.ok(second < first, `${second} above ${first}`);
  });

  it('draws nothing when no bandwidth could be computed', () => {
    assert.strictEqual(renderBusBandwidthChart({ results: report.results.map((r) => ({ ...r, busBwGBps: null })) }), '');
  });
});

describe('editor: the Collective Bandwidth panel', () => {
  it('has Run and Export buttons; Export waits for a report, and writes it as JSON (issue 28 item 10)', () => {
    assert.match(renderCollectiveActions({ shown: null }), /<button type="button" data-action="runBenchmark">Run Benchmark…<\/button><button type="button" data-action="exportJson" disabled>Export JSON…<\/button>/);
    const report = recorded('gloo-2-cpu-ranks-torchrun.json');
    const shown = { report, description: 'all-reduce', time: Date.UTC(2026, 11, 3, 7, 0) };
    assert.doesNotMatch(renderCollectiveActions({ shown }), /disabled/);
    const file = collectiveExport(shown);
    assert.strictEqual(file.fileName, 'collective-bandwidth-2026-12-03-0700.json');
    assert.deepStrictEqual(JSON.parse(file.text).report, JSON.parse(JSON.stringify(report)));
  });

  it('shows the headline, the chart, the checked table; escapes what the report says', () => {
    const report = recorded('gloo-2-cpu-ranks-torchrun.json');
    const html = renderCollectiveBody({ status: { kind: 'idle' }, shown: { report: { ...report, deviceName: '<b>CPU</b>' }, description: 'all four collectives', time: 0 }, devices: null });
    assert.match(html, /<p class="headline">[\d.]+ GB\/s bus bandwidth \(/);
    assert.match(html, /gloo on 2 CPU processes, started by torchrun, torch 1\.13\.0a0/);
    assert.ok(html.includes('<svg class="chart busbw-chart"'));
    assert.strictEqual((html.match(/<td class="ok">checked<\/td>/g) ?? []).length, report.results.length);
    assert.ok(!html.includes('<b>CPU</b>'));
    assert.ok(!html.includes('P2P'), 'no P2P matrix on CPU ranks');
  });

  it('names a wrong rank, says what failed, and says that nothing ran yet', () => {
    const report = recorded('gloo-2-cpu-ranks-torchrun.json');
    report.results[0] = { ...report.results[0], correct: false, wrongRanks: [1] };
    assert.match(renderCollectiveBody({ status: { kind: 'idle' }, shown: { report, description: 'x', time: 0 }, devices: null }), /WRONG on rank 1/);
    assert.match(renderCollectiveBody({ status: { kind: 'failed', description: 'all-reduce', message: 'rank 1 died' }, shown: null, devices: null }), /Failed.*rank 1 died/);
    assert.match(renderCollectiveBody({ status: { kind: 'idle' }, shown: null, devices: null }), /No collective benchmark yet/);
  });

  it('adds the P2P matrix on GPUs, each cell with GB/s', () => {
    const report = recorded('four-a6000-nccl-p2p.json');
    const html = renderCollectiveBody({ status: { kind: 'idle' }, shown: { report, description: 'all-reduce on 4 GPUs', time: 0 }, devices: null });
    assert.match(html, /GPU to GPU copies \(P2P\)/);
    assert.strictEqual((html.match(/<td class="topo-self">X<\/td>/g) ?? []).length, 4);
    assert.match(html, /title="cuda:0 → cuda:1: 51\.8 GB\/s"/);
  });
});
