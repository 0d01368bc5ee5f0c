// "Is one of my GPUs slower than the others?" in the Matmul Benchmark panel: when a run has
// measured one engine on two accelerators or more (the "every device" choice), each one set
// against the median of its peers at the same size and dtype (core/bench/devices), the slow
// ones named. The CPU is no GPU's peer. Pure: the run in, escaped HTML out.
import { judgeDevices, slowDeviceMessage, SLOW_FRACTION } from '../../../core/bench/devices/slowDevices';
import type { BenchRun } from '../../../core/bench/model';
import { escapeHtml, textElement } from '../../shared/html';

/** Empty when no engine, size and dtype has two accelerators to compare. */
export function peerSectionHtml(run: Pick<BenchRun, 'results'>): string {
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
    const rows = verdicts.map((v) => {
      const percent = Math.round((v.belowPeers ?? 0) * 100);
      const versus = percent === 0 ? '0 %' : `${percent > 0 ? '−' : '+'}${Math.abs(percent)} %`;
      return `<tr${v.slow ? ' class="slow"' : ''}>${textElement('td', v.device)}${textElement('td', v.gflops.toFixed(1), 'num')}${textElement('td', (v.peerMedianGflops ?? 0).toFixed(1), 'num')}${textElement('td', `${versus}${v.slow ? ' slow' : ''}`, 'num')}</tr>`;
    });
    const slow = verdicts.filter((v) => v.slow).map((v) => textElement('li', slowDeviceMessage(v, verdicts.length - 1)));
    parts.push(
      `<table class="peers"><caption>${escapeHtml(`${key}: each device against the median GFLOP/s of the others; more than ${SLOW_FRACTION * 100} % below is slow`)}</caption>`
        + '<tr><th>Device</th><th class="num">GFLOP/s</th><th class="num">Peers\' median</th><th class="num">Against peers</th></tr>'
        + `${rows.join('')}</table>`,
      slow.length > 0 ? `<ul class="slow-devices">${slow.join('')}</ul>` : textElement('p', 'No device is more than 10 % below its peers.', 'muted'),
    );
  }
  return parts.join('');
}
