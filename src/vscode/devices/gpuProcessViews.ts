// Who uses the GPU, as the device report's table and the tooltip's top lines. Pure: the
// snapshot's process list in, escaped HTML or Markdown out.
import { formatBytes } from '../../core/devices/format';
import type { GpuProcess } from '../../protocol/worker';
import { escapeHtml } from '../shared/html';
import { escapeMarkdown } from '../shared/markdown';

/** How many processes the tooltip names before "and N more". */
export const TOOLTIP_PROCESSES = 3;

function device(p: GpuProcess): string {
  return `${p.deviceId ?? 'GPU'}${p.mig ? ` (MIG ${p.mig})` : ''}`;
}

function memory(p: GpuProcess): string {
  return p.usedBytes === null ? 'unknown' : formatBytes(p.usedBytes);
}

/** Who it is, for a process outside our /proc: only what the GPU tool said. */
function owner(p: GpuProcess): string {
  return p.visible ? (p.user ?? '?') : 'another container';
}

export function processTableHtml(processes: readonly GpuProcess[] | null): string {
  if (processes === null) return '<p class="muted">Not known yet: the list is read every few seconds while the status bar is shown.</p>';
  if (processes.length === 0) return '<p class="ok">No process is using a GPU.</p>';
  const rows = processes.map((p) => `<tr${p.fromThisWindow ? ' class="mine"' : ''}>`
    + `<td class="num">${escapeHtml(p.pid)}</td><td>${escapeHtml(device(p))}</td><td class="num">${escapeHtml(memory(p))}</td>`
    + `<td>${escapeHtml(owner(p))}</td><td><code>${escapeHtml(p.commandLine ?? p.name)}</code></td>`
    + `<td>${p.fromThisWindow ? '<span class="badge">this window</span>' : ''}</td></tr>`);
  const hidden = processes.some((p) => !p.visible)
    ? '<p class="muted">Processes of another container or PID namespace show only what the GPU tool reports.</p>'
    : '';
  return '<table class="processes"><thead><tr><th>PID</th><th>Device</th><th>Memory</th><th>User</th><th>Command</th><th></th></tr></thead>'
    + `<tbody>${rows.join('')}</tbody></table>${hidden}`;
}

/** "- 20.0 GiB on cuda:0 · python train.py · ada · pid 4821 · **this window**", the biggest first. */
export function processTooltipLines(processes: readonly GpuProcess[] | null): string | null {
  if (processes === null || processes.length === 0) return null;
  const lines = processes.slice(0, TOOLTIP_PROCESSES).map((p) => {
    const command = (p.commandLine ?? p.name).slice(0, 80);
    return `- ${escapeMarkdown(`${memory(p)} on ${device(p)} · ${command} · ${owner(p)} · pid ${p.pid}`)}${p.fromThisWindow ? ' · **this window**' : ''}`;
  });
  const more = processes.length - TOOLTIP_PROCESSES;
  if (more > 0) lines.push(`- … and ${more} more (Show Device Report)`);
  return `GPU processes:\n\n${lines.join('\n')}`;
}
