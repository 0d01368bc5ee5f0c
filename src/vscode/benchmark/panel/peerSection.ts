// "Is one of my GPUs slower than the others?" in the Matmul Benchmark panel. After the "every
// device" choice the run carries both passes (BenchRunResponse.everyDevice: each GPU alone, then
// all at once), shown as two tables with each GPU's SM clock, temperature and power during its
// own run, and the slow ones named. An older run (history) without them: each accelerator of
// the one-at-a-time results set against the median of its peers at the same size and dtype
// (core/bench/devices). The CPU is no GPU's peer. Pure: the run in, escaped HTML out.
import { clockCell, powerCell, temperatureCell } from '../../../core/bench/devices/conditionsText';
import type { DeviceRun, EveryDeviceReport } from '../../../core/bench/devices/everyDevice';
import { judgeDevices, slowDeviceMessage, SLOW_FRACTION, type DeviceVerdict } from '../../../core/bench/devices/slowDevices';
import type { BenchRun } from '../../../core/bench/model';
import { escapeHtml, textElement } from '../../shared/html';

const NONE_SLOW = `No device is more than ${SLOW_FRACTION * 100} % below its peers.`;

function versusText(v: DeviceVerdict): string {
  const percent = Math.round((v.belowPeers ?? 0) * 100);
  const versus = percent === 0 ? '0 %' : `${percent > 0 ? '−' : '+'}${Math.abs(percent)} %`;
  return `${versus}${v.slow ? ' slow' : ''}`;
}

/** Empty when no engine, size and dtype has two accelerators to compare. */
export function peerSectionHtml(run: Pick<BenchRun, 'results'> & { everyDevice?: EveryDeviceReport }): string {
  return run.everyDevice ? bothPassesHtml(run.everyDevice) : oneAtATimeHtml(run);
}

function passTable(report: EveryDeviceReport, pass: 'alone' | 'together'): string {
  const rows = report.devices.map((d) => {
    const run: DeviceRun = pass === 'alone' ? d.alone : d.together;
    const verdict = pass === 'alone' ? d.aloneVerdict : d.togetherVerdict;
    const speed = 'gflops' in run ? run.gflops.toFixed(1) : 'failed';
    const cells = [
      textElement('td', d.device), textElement('td', speed, 'num'),
      textElement('td', verdict?.peerMedianGflops != null ? verdict.peerMedianGflops.toFixed(1) : '-', 'num'),
      textElement('td', verdict && verdict.belowPeers !== null ? versusText(verdict) : '-', 'num'),
      textElement('td', clockCell(run), 'num'), textElement('td', temperatureCell(run), 'num'), textElement('td', powerCell(run), 'num'),
    ];
    return `<tr${verdict?.slow ? ' class="slow"' : ''}>${cells.join('')}</tr>`;
  });
  const caption = `${pass === 'alone' ? 'One at a time' : 'All at once'} · torch · ${report.dtype} · n = ${report.size}: SM clock (median of the run / max), hottest temperature and median power during each device's own run`;
  return `<table class="peers" data-pass="${pass}"><caption>${escapeHtml(caption)}</caption>`
    + '<tr><th>Device</th><th class="num">GFLOP/s</th><th class="num">Peers\' median</th><th class="num">Against peers</th><th class="num">SM clock</th><th class="num">Temp</th><th class="num">Power</th></tr>'
    + `${rows.join('')}</table>`;
}

function bothPassesHtml(report: EveryDeviceReport): string {
  const failures = report.devices.flatMap((d) => [['alone', d.alone], ['all at once', d.together]].flatMap(([pass, run]) => ('error' in (run as DeviceRun) ? [`${d.device} (${pass}): ${(run as { error: string }).error}`] : [])));
  const findings = report.findings.length > 0
    ? `<ul class="slow-devices">${report.findings.map((f) => textElement('li', f)).join('')}</ul>`
    : textElement('p', NONE_SLOW, 'muted');
  const failed = failures.length > 0 ? `<ul class="failed-runs">${failures.map((f) => textElement('li', f)).join('')}</ul>` : '';
  return passTable(report, 'alone') + passTable(report, 'together') + findings + failed;
}

function oneAtATimeHtml(run: Pick<BenchRun, 'results'>): string {
  const groups = new Map<string, { device: string; gflops: number }[]>();
  for (const r of run.results) {
    if (r.device === 'cpu' || !(r.gflops > 0)) continue;
    const key = `${r.engine} · ${r.dtype} · n = ${r.size}`;
    const group = groups.get(key) ?? [];
    group.push({ device: r.device, gflops: r.gflops });
    groups.set(key, group);
  }
  const parts: string[] = [];
  for (const [key, speeds] of groups) {
    if (speeds.length < 2) continue;
    const verdicts = judgeDevices(speeds);
    const rows = verdicts.map((v) => `<tr${v.slow ? ' class="slow"' : ''}>${textElement('td', v.device)}${textElement('td', v.gflops.toFixed(1), 'num')}${textElement('td', (v.peerMedianGflops ?? 0).toFixed(1), 'num')}${textElement('td', versusText(v), 'num')}</tr>`);
    const slow = verdicts.filter((v) => v.slow).map((v) => textElement('li', slowDeviceMessage(v, verdicts.length - 1)));
    parts.push(
      `<table class="peers"><caption>${escapeHtml(`${key}: each device against the median GFLOP/s of the others; more than ${SLOW_FRACTION * 100} % below is slow`)}</caption>`
        + '<tr><th>Device</th><th class="num">GFLOP/s</th><th class="num">Peers\' median</th><th class="num">Against peers</th></tr>'
        + `${rows.join('')}</table>`,
      slow.length > 0 ? `<ul class="slow-devices">${slow.join('')}</ul>` : textElement('p', NONE_SLOW, 'muted'),
    );
  }
  return parts.join('');
}
