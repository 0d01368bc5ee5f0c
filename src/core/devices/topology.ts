// How the GPUs of one machine are linked, from `nvidia-smi topo -m` and `rocm-smi --showtopo`:
// the matrix of links (NVLink with its count of bonded links, AMD's xGMI, or the PCIe path
// and how far up it goes) and each device's CPU and NUMA affinity. Which pairs share
// NVLink/xGMI and which go through the host bridge or across sockets is what decides
// collective bandwidth, so it sits in the device report beside the GPUs.
//
// nvidia-smi prints a tab-separated table (a header that starts with a tab, underlined with
// terminal escapes even into a pipe, one row per GPU and NIC, then the affinity columns)
// and a legend; rocm-smi prints sections (weights, hops, link types, NUMA nodes) between
// lines of '='.

export type LinkKind = 'self' | 'nvlink' | 'xgmi' | 'pcie-one-switch' | 'pcie-switches' | 'pcie-host-bridge' | 'pcie-numa-node' | 'cross-socket' | 'pcie' | 'unknown';

export interface TopologyLink {
  kind: LinkKind;
  /** As the tool printed it: NV12, PIX, SYS, XGMI, PCIE. */
  code: string;
  /** NV# : the number of bonded NVLinks. */
  nvlinks: number | null;
  /** rocm-smi's hops and weight (lower is closer); null from nvidia-smi. */
  hops: number | null;
  weight: number | null;
}

export interface TopologyDevice {
  /** GPU0, GPU1, NIC0 as the tool names them; GPUn is nvidia-smi's / rocm-smi's index n. */
  name: string;
  kind: 'gpu' | 'nic';
  /** e.g. "0-15,32-47"; null when not printed. */
  cpuAffinity: string | null;
  numaAffinity: string | null;
}

export interface Topology {
  source: 'nvidia-smi' | 'rocm-smi';
  devices: TopologyDevice[];
  /** links[i][j]: from devices[i] to devices[j]. */
  links: TopologyLink[][];
}

export type ParsedTopology = { ok: true; topology: Topology } | { ok: false; error: string };

export const NVIDIA_TOPO_ARGS = ['topo', '-m'] as const;
export const ROCM_TOPO_ARGS = ['--showtopo'] as const;

const ESCAPES = /\x1b\[[0-9;]*[A-Za-z]/g;
const DEVICE_NAME = /^(GPU\d+|NIC\d+|mlx\S+)$/;

const NVIDIA_CODES: Readonly<Record<string, LinkKind>> = {
  X: 'self',
  PIX: 'pcie-one-switch',
  PXB: 'pcie-switches',
  PHB: 'pcie-host-bridge',
  NODE: 'pcie-numa-node',
  SYS: 'cross-socket',
  // Older drivers: SOC for what is now SYS.
  SOC: 'cross-socket',
};

function link(kind: LinkKind, code: string, extra: Partial<TopologyLink> = {}): TopologyLink {
  return { kind, code, nvlinks: null, hops: null, weight: null, ...extra };
}

function nvidiaLink(code: string): TopologyLink {
  const nv = /^NV(\d+)$/.exec(code);
  if (nv) return link('nvlink', code, { nvlinks: Number(nv[1]) });
  return link(NVIDIA_CODES[code] ?? 'unknown', code);
}

function cellsOf(line: string): string[] {
  // Tabs separate the columns; a copy from a terminal may have turned them into spaces.
  const separator = line.includes('\t') ? /\t/ : / {2,}/;
  return line.replace(ESCAPES, '').split(separator).map((cell) => cell.trim());
}

/** `nvidia-smi topo -m`: the link matrix over GPUs and NICs, with CPU and NUMA affinity. */
export function parseNvidiaTopology(text: string): ParsedTopology {
  const lines = text.replace(/\r\n/g, '\n').split('\n').filter((line) => line.replace(ESCAPES, '').trim() !== '');
  const headerAt = lines.findIndex((line) => /(^|\s)GPU0(\s|$)/.test(line.replace(ESCAPES, '')) && !DEVICE_NAME.test(cellsOf(line)[0]));
  if (headerAt < 0) return { ok: false, error: 'no GPU0 column header in nvidia-smi topo -m output' };
  const header = cellsOf(lines[headerAt]);
  if (header[0] === '') header.shift();
  const columns = header.filter((name) => DEVICE_NAME.test(name));
  const cpuColumn = header.indexOf('CPU Affinity');
  const numaColumn = header.indexOf('NUMA Affinity');
  const devices: TopologyDevice[] = [];
  const links: TopologyLink[][] = [];
  for (const line of lines.slice(headerAt + 1)) {
    const cells = cellsOf(line);
    if (!DEVICE_NAME.test(cells[0] ?? '')) break; // the legend
    const name = cells[0];
    const row = cells.slice(1);
    if (row.length < columns.length) return { ok: false, error: `the row of ${name} has ${row.length} cells for ${columns.length} devices` };
    const at = (column: number): string | null => (column >= 0 && row[column] !== undefined && row[column] !== '' && row[column] !== 'N/A' ? row[column] : null);
    devices.push({ name, kind: name.startsWith('GPU') ? 'gpu' : 'nic', cpuAffinity: at(cpuColumn), numaAffinity: at(numaColumn) });
    links.push(row.slice(0, columns.length).map(nvidiaLink));
  }
  if (devices.length !== columns.length || devices.some((d, i) => d.name !== columns[i])) {
    return { ok: false, error: `the rows (${devices.map((d) => d.name).join(', ')}) do not match the columns (${columns.join(', ')})` };
  }
  return { ok: true, topology: { source: 'nvidia-smi', devices, links } };
}

/** rocm-smi's sections: title → the lines under it. */
function rocmSections(text: string): Map<string, string[]> {
  const sections = new Map<string, string[]>();
  let current: string[] | null = null;
  for (const line of text.replace(/\r\n/g, '\n').split('\n')) {
    const title = /^=+ (.+?) =+$/.exec(line.trim());
    if (title) {
      current = [];
      sections.set(title[1].toLowerCase(), current);
    } else if (current && line.trim() !== '') current.push(line);
  }
  return sections;
}

function rocmMatrix(lines: string[] | undefined): Map<string, string[]> | null {
  if (!lines || lines.length < 2) return null;
  const rows = new Map<string, string[]>();
  for (const line of lines.slice(1)) {
    const [name, ...cells] = line.trim().split(/\s+/);
    if (/^GPU\d+$/.test(name)) rows.set(name, cells);
  }
  return rows;
}

/** `rocm-smi --showtopo`: link types (XGMI, PCIE) with hops and weights, and NUMA nodes. */
export function parseRocmTopology(text: string): ParsedTopology {
  const sections = rocmSections(text);
  const types = rocmMatrix(sections.get('link type between two gpus'));
  if (!types || types.size === 0) return { ok: false, error: 'no "Link Type between two GPUs" section in rocm-smi --showtopo output' };
  const hops = rocmMatrix(sections.get('hops between two gpus'));
  const weights = rocmMatrix(sections.get('weight between two gpus'));
  const names = [...types.keys()];
  const numa = new Map<string, string>();
  for (const line of sections.get('numa nodes') ?? []) {
    const match = /^GPU\[(\d+)\]\s*:\s*\(Topology\) Numa Node:\s*(\S+)/.exec(line.trim());
    if (match) numa.set(`GPU${match[1]}`, match[2]);
  }
  const number = (table: Map<string, string[]> | null, row: string, j: number): number | null => {
    const value = Number(table?.get(row)?.[j]);
    return table?.get(row)?.[j] !== undefined && Number.isFinite(value) ? value : null;
  };
  const links: TopologyLink[][] = [];
  for (const [i, name] of names.entries()) {
    const cells = types.get(name) as string[];
    if (cells.length !== names.length) return { ok: false, error: `the link-type row of ${name} has ${cells.length} cells for ${names.length} GPUs` };
    links.push(cells.map((code, j) => {
      const kind: LinkKind = i === j ? 'self' : code === 'XGMI' ? 'xgmi' : code === 'PCIE' ? 'pcie' : 'unknown';
      return link(kind, i === j ? 'X' : code, { hops: number(hops, name, j), weight: number(weights, name, j) });
    }));
  }
  const devices = names.map((name): TopologyDevice => ({ name, kind: 'gpu', cpuAffinity: null, numaAffinity: numa.get(name) ?? null }));
  return { ok: true, topology: { source: 'rocm-smi', devices, links } };
}

const DESCRIPTIONS: Readonly<Record<LinkKind, string>> = {
  self: 'itself',
  nvlink: 'NVLink',
  xgmi: 'xGMI (Infinity Fabric)',
  'pcie-one-switch': 'PCIe through at most one switch (PIX)',
  'pcie-switches': 'PCIe through several switches, not the host bridge (PXB)',
  'pcie-host-bridge': 'PCIe through the CPU host bridge (PHB)',
  'pcie-numa-node': 'PCIe across host bridges within a NUMA node (NODE)',
  'cross-socket': 'PCIe and the link between CPU sockets (SYS)',
  pcie: 'PCIe',
  unknown: 'unknown',
};

/** "NVLink ×18", "PCIe through the CPU host bridge (PHB)". */
export function describeLink(l: TopologyLink): string {
  if (l.kind === 'nvlink') return `NVLink ×${l.nvlinks}`;
  if (l.kind === 'unknown') return `unknown (${l.code})`;
  return DESCRIPTIONS[l.kind];
}

/** Direct GPU-to-GPU links (NVLink, xGMI) rather than a path through PCIe. */
export function isDirectLink(l: TopologyLink): boolean {
  return l.kind === 'nvlink' || l.kind === 'xgmi';
}

export interface GpuPair {
  a: string;
  b: string;
  link: TopologyLink;
}

/** Every pair of GPUs once (i < j), in order. */
export function gpuPairs(topology: Topology): GpuPair[] {
  const pairs: GpuPair[] = [];
  topology.devices.forEach((a, i) => {
    if (a.kind !== 'gpu') return;
    topology.devices.forEach((b, j) => {
      if (j > i && b.kind === 'gpu') pairs.push({ a: a.name, b: b.name, link: topology.links[i][j] });
    });
  });
  return pairs;
}

/** One line: how the GPU pairs are linked, by kind ("28 pairs: 28 NVLink ×18"). */
export function topologySummary(topology: Topology): string {
  const pairs = gpuPairs(topology);
  const counts = new Map<string, number>();
  for (const pair of pairs) counts.set(describeLink(pair.link), (counts.get(describeLink(pair.link)) ?? 0) + 1);
  const parts = [...counts].sort((x, y) => y[1] - x[1]).map(([what, n]) => `${n} ${what}`);
  return `${pairs.length} GPU pair${pairs.length === 1 ? '' : 's'}: ${parts.join(', ')}`;
}
