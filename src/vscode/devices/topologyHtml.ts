// The device report's Topology section: nvidia-smi's GPU-by-GPU matrix, with each cell's
// meaning in its title (hover) and direct links (NVLink, xGMI) marked, then the affinity
// columns and a legend of the codes present. Everything from the tools is escaped.
import { isDirectLink, topologySummary, type Topology } from '../../core/devices/topology';
import { describeLink } from '../../core/devices/topology';
import { topologyMatrix } from '../../core/devices/topologyView';
import { escapeHtml, textElement } from '../shared/html';

export function topologyHtml(topology: Topology): string {
  const { gpus, codes, legend } = topologyMatrix(topology);
  const indexOf = new Map(topology.devices.map((d, i) => [d.name, i]));
  const head = `<tr><th></th>${gpus.map((g) => textElement('th', g.name)).join('')}<th>CPU affinity</th><th>NUMA</th></tr>`;
  const rows = gpus.map((g, i) => {
    const cells = gpus.map((other, j) => {
      const l = topology.links[indexOf.get(g.name) as number][indexOf.get(other.name) as number];
      const className = i === j ? 'topo-self' : isDirectLink(l) ? 'topo-direct' : 'topo-pcie';
      return `<td class="${className}" title="${escapeHtml(`${g.name} → ${other.name}: ${describeLink(l)}`)}">${escapeHtml(codes[i][j])}</td>`;
    });
    return `<tr>${textElement('th', g.name)}${cells.join('')}${textElement('td', g.cpuAffinity ?? '—')}${textElement('td', g.numaAffinity ?? '—')}</tr>`;
  });
  return [
    textElement('p', `${topologySummary(topology)} (${topology.source})`),
    `<table class="topology">${head}${rows.join('')}</table>`,
    `<ul class="topology-legend">${legend.map((line) => textElement('li', line)).join('')}</ul>`,
  ].join('');
}
