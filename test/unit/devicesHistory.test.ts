// The monitor's history and its sparkline: the ring keeps the newest, the window drops the
// old, and the SVG puts points where their time and percentage say.
import * as assert from 'assert';
import { SampleHistory, type HistoryPoint } from '../../src/core/devices/sampleHistory';
import { renderSparkline, SPARK, sparkPoint } from '../../src/vscode/devices/sparkline';
import { historyUpdates } from '../../src/vscode/devices/deviceReportHtml';
import { EMPTY_SNAPSHOT } from '../../src/vscode/devices/deviceSnapshot';
import * as fs from 'fs';
import * as path from 'path';
import type { DeviceReport } from '../../src/core/devices/report';

const MINUTE = 60_000;
const NOW = 1_700_000_000_000;
const OPTIONS = { windowMs: 10 * MINUTE, now: NOW, idPrefix: 'spark-0', label: 'cuda:0 NVIDIA H200' };

function point(minutesAgo: number, usedPercent: number | null, utilizationPercent: number | null): HistoryPoint {
  return { time: NOW - minutesAgo * MINUTE, usedBytes: usedPercent === null ? null : usedPercent * 10, totalBytes: 1000, utilizationPercent };
}

describe('devices: the sample history ring', () => {
  it('keeps the newest `capacity` samples per device, oldest first', () => {
    const history = new SampleHistory(10 * MINUTE, 3);
    [16, 12, 8, 4, 0.5].forEach((minutesAgo, i) => history.add('cuda:0', point(minutesAgo, i, i)));
    history.add('cpu', point(1, 50, 5));
    const series = history.snapshot(NOW);
    assert.deepStrictEqual(series['cuda:0'].map((p) => p.utilizationPercent), [2, 3, 4]);
    assert.deepStrictEqual(series.cpu.map((p) => p.utilizationPercent), [5]);
  });

  it('keeps the whole window when samples come faster than capacity per window: the newest of each slot', () => {
    const history = new SampleHistory(10 * MINUTE, 10); // one slot per minute
    const start = Math.ceil((NOW - 10 * MINUTE) / MINUTE) * MINUTE; // a slot boundary
    for (let second = 0; second < 600; second += 10) history.add('cuda:0', { ...point(10, 1, second), time: start + second * 1000 });
    const series = history.snapshot(start + 10 * MINUTE - 1)['cuda:0'];
    assert.strictEqual(series.length, 10);
    assert.strictEqual(series[0].time, start + 50_000, 'the first minute is represented by its last sample');
    assert.strictEqual(series[series.length - 1].utilizationPercent, 590);
  });

  it('drops samples older than the window', () => {
    const history = new SampleHistory(10 * MINUTE);
    history.add('cuda:0', point(11, 10, 10));
    history.add('cuda:0', point(9, 20, 20));
    assert.deepStrictEqual(history.snapshot(NOW)['cuda:0'].map((p) => p.utilizationPercent), [20]);
    assert.deepStrictEqual(history.snapshot(NOW + 10 * MINUTE), {});
  });
});

describe('vscode: the history sparkline', () => {
  it('scales time across the width and percent up the height, clamped to the frame', () => {
    const { width, height, pad } = SPARK;
    assert.deepStrictEqual(sparkPoint(NOW - 10 * MINUTE, 0, OPTIONS), [pad, height - pad]);
    assert.deepStrictEqual(sparkPoint(NOW, 100, OPTIONS), [width - pad, pad]);
    assert.deepStrictEqual(sparkPoint(NOW - 5 * MINUTE, 50, OPTIONS), [width / 2, height / 2]);
    assert.deepStrictEqual(sparkPoint(NOW - 60 * MINUTE, 250, OPTIONS), [pad, pad]);
  });

  it('draws memory and utilization as polylines at their points, with the latest values in the legend', () => {
    const svg = renderSparkline([point(10, 0, 100), point(5, 50, 50), point(0, 91, 0)], OPTIONS);
    const lines = [...svg.matchAll(/<polyline class="(spark-\w+)" points="([^"]+)"\/>/g)].map((m) => [m[1], m[2]]);
    assert.deepStrictEqual(lines, [
      ['spark-memory', `2,46 160,24 318,${Math.round((2 + 0.09 * 44) * 10) / 10}`],
      ['spark-utilization', '2,2 160,24 318,46'],
    ]);
    assert.match(svg, /memory 91%/);
    assert.match(svg, /utilization 0%/);
    assert.match(svg, /<desc id="spark-0-desc">3 samples; memory 0–91%, utilization 0–100%\.<\/desc>/);
  });

  it('breaks a line where a value is unknown instead of bridging the gap', () => {
    const svg = renderSparkline([point(3, 10, null), point(2, 20, null), point(1, 30, 40), point(0, 40, null)], OPTIONS);
    assert.strictEqual((svg.match(/<polyline class="spark-memory"/g) ?? []).length, 1);
    assert.strictEqual((svg.match(/<polyline class="spark-utilization"/g) ?? []).length, 0);
    assert.strictEqual((svg.match(/<circle class="spark-utilization"/g) ?? []).length, 1, 'a lone value is a dot');
  });

  it('says there is no history yet rather than drawing an empty chart', () => {
    const html = renderSparkline([], OPTIONS);
    assert.ok(!html.includes('<svg'));
    assert.match(html, /No history yet: the last 10 min appear here/);
  });

  it('spans what there is (at least a minute) until the window is full, and says which span', () => {
    const twoMinutes = renderSparkline([point(2, 10, 10), point(0, 20, 20)], OPTIONS);
    assert.match(twoMinutes, /<polyline class="spark-memory" points="2,41\.6 318,37\.2"\/>/, 'the first sample at the left edge');
    assert.match(twoMinutes, /· last 2 min</);
    const seconds = renderSparkline([{ ...point(0, 10, 10), time: NOW - 20_000 }, point(0, 20, 20)], OPTIONS);
    assert.match(seconds, /· last 1 min</);
    assert.match(seconds, /points="212\.7,41\.6 318,37\.2"/, 'twenty seconds of a one-minute axis');
    assert.match(renderSparkline([point(10, 0, 0), point(0, 1, 1)], OPTIONS), /· last 10 min</);
  });

  it('gives every device of the report and the host a sparkline, escaping labels', () => {
    const report = JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', 'fixtures', 'fakeWorker', 'report.json'), 'utf8')) as DeviceReport;
    report.accelerators[0]!.name = '<b>H200</b>';
    const updates = historyUpdates({ ...EMPTY_SNAPSHOT, report }, { series: { 'cuda:0': [point(1, 50, 50)] }, windowMs: 10 * MINUTE, now: NOW });
    assert.deepStrictEqual(updates.map((u) => u.id), [...report.accelerators.map((a) => a.id), 'cpu']);
    assert.match(updates[0].html, /&lt;b&gt;H200&lt;\/b&gt;/);
    assert.match(updates[updates.length - 1].html, /No history yet/);
  });
});
