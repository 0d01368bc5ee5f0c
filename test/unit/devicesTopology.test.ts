// `nvidia-smi topo -m` and `rocm-smi --showtopo` read into a link matrix: recorded-style
// outputs of 2-, 4- and 8-GPU machines (test/fixtures/probes/*-topo), and broken ones.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { formatDetectText } from '../../src/cli/commands/detect';
import { topologyLines } from '../../src/cli/formats/topologyText';
import { buildDeviceReport } from '../../src/core/devices/buildReport';
import { renderReportBody } from '../../src/vscode/devices/deviceReportHtml';
import { EMPTY_SNAPSHOT } from '../../src/vscode/devices/deviceSnapshot';
import { describeLink, gpuPairs, parseNvidiaTopology, parseRocmTopology, topologySummary, type ParsedTopology, type Topology } from '../../src/core/devices/topology';

const PROBES = path.join(__dirname, '..', 'fixtures', 'probes');
const read = (dir: string, name: string) => fs.readFileSync(path.join(PROBES, dir, name), 'utf8');

function ok(parsed: ParsedTopology): Topology {
  assert.ok(parsed.ok, parsed.ok ? '' : parsed.error);
  return parsed.topology;
}

/** The matrix as its codes, row by row. */
const codes = (t: Topology) => t.links.map((row) => row.map((l) => l.code).join(' '));

describe('topology: nvidia-smi topo -m', () => {
  it('2 GPUs across sockets: terminal escapes stripped, SYS between them, affinity per GPU', () => {
    const t = ok(parseNvidiaTopology(read('nvidia-smi-topo', 'h200-rtx4070.txt')));
    assert.deepStrictEqual(t.devices, [
      { name: 'GPU0', kind: 'gpu', cpuAffinity: '0-15,32-47', numaAffinity: '0' },
      { name: 'GPU1', kind: 'gpu', cpuAffinity: '16-31,48-63', numaAffinity: '1' },
    ]);
    assert.deepStrictEqual(codes(t), ['X SYS', 'SYS X']);
    assert.strictEqual(t.links[0][1].kind, 'cross-socket');
    assert.strictEqual(topologySummary(t), '1 GPU pair: 1 PCIe and the link between CPU sockets (SYS)');
  });

  it('4 GPUs in NVLink pairs behind PCIe switches, with a NIC and no GPU NUMA ID column', () => {
    const t = ok(parseNvidiaTopology(read('nvidia-smi-topo', 'four-a6000-nvlink-pairs.txt')));
    assert.deepStrictEqual(t.devices.map((d) => `${d.name} ${d.kind} ${d.cpuAffinity} ${d.numaAffinity}`), ['GPU0 gpu 0-23 0', 'GPU1 gpu 0-23 0', 'GPU2 gpu 0-23 0', 'GPU3 gpu 0-23 0', 'NIC0 nic null null']);
    assert.deepStrictEqual(codes(t), ['X NV4 PXB PXB PIX', 'NV4 X PXB PXB PIX', 'PXB PXB X NV4 PXB', 'PXB PXB NV4 X PXB', 'PIX PIX PXB PXB X']);
    assert.deepStrictEqual(gpuPairs(t).map((p) => `${p.a}-${p.b} ${describeLink(p.link)}`), [
      'GPU0-GPU1 NVLink ×4',
      'GPU0-GPU2 PCIe through several switches, not the host bridge (PXB)',
      'GPU0-GPU3 PCIe through several switches, not the host bridge (PXB)',
      'GPU1-GPU2 PCIe through several switches, not the host bridge (PXB)',
      'GPU1-GPU3 PCIe through several switches, not the host bridge (PXB)',
      'GPU2-GPU3 NVLink ×4',
    ]);
    assert.strictEqual(t.links[0][1].nvlinks, 4);
  });

  it('8 GPUs on NVSwitch: all 28 pairs NVLink ×18, two NUMA nodes', () => {
    const t = ok(parseNvidiaTopology(read('nvidia-smi-topo', 'hgx-h100-8gpu.txt')));
    assert.strictEqual(t.devices.length, 8);
    assert.strictEqual(topologySummary(t), '28 GPU pairs: 28 NVLink ×18');
    assert.deepStrictEqual(t.devices.map((d) => d.numaAffinity), ['0', '0', '0', '0', '1', '1', '1', '1']);
    assert.strictEqual(t.devices[5].cpuAffinity, '56-111,168-223');
  });

  it('8 GPUs on PCIe only: PIX pairs, NODE within a socket, SYS across', () => {
    const t = ok(parseNvidiaTopology(read('nvidia-smi-topo', 'eight-l40s-pcie.txt')));
    assert.strictEqual(topologySummary(t), '28 GPU pairs: 16 PCIe and the link between CPU sockets (SYS), 8 PCIe across host bridges within a NUMA node (NODE), 4 PCIe through at most one switch (PIX)');
    assert.strictEqual(t.links[6][7].kind, 'pcie-one-switch');
  });

  it('reads a table copied from a terminal (spaces, not tabs) the same', () => {
    const text = '        GPU0    GPU1    CPU Affinity    NUMA Affinity\nGPU0     X      NV12    0-31            0\nGPU1    NV12     X      0-31            0\n\nLegend:\n  X    = Self\n';
    const t = ok(parseNvidiaTopology(text));
    assert.deepStrictEqual(codes(t), ['X NV12', 'NV12 X']);
    assert.strictEqual(t.devices[1].cpuAffinity, '0-31');
  });

  it('says what is wrong with output that is not a topology', () => {
    assert.deepStrictEqual(parseNvidiaTopology('NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver.'), { ok: false, error: 'no GPU0 column header in nvidia-smi topo -m output' });
    assert.deepStrictEqual(parseNvidiaTopology('\tGPU0\tGPU1\nGPU0\t X \n'), { ok: false, error: 'the row of GPU0 has 1 cells for 2 devices' });
    assert.match((parseNvidiaTopology('\tGPU0\tGPU1\nGPU0\t X \tNV1\n') as { error: string }).error, /rows \(GPU0\) do not match the columns \(GPU0, GPU1\)/);
  });
});

describe('topology: rocm-smi --showtopo', () => {
  it('2 GPUs over PCIe with hops and weights', () => {
    const t = ok(parseRocmTopology(read('rocm-smi-topo', 'two-w7900-pcie.txt')));
    assert.deepStrictEqual(codes(t), ['X PCIE', 'PCIE X']);
    assert.deepStrictEqual(t.links[0][1], { kind: 'pcie', code: 'PCIE', nvlinks: null, hops: 2, weight: 40 });
  });

  it('4 MI250X dies all on xGMI, closer within a package (lower weight), NUMA nodes', () => {
    const t = ok(parseRocmTopology(read('rocm-smi-topo', 'mi250x-4-gcd.txt')));
    assert.strictEqual(topologySummary(t), '6 GPU pairs: 6 xGMI (Infinity Fabric)');
    assert.deepStrictEqual(t.links[0].map((l) => l.weight), [0, 15, 30, 30]);
    assert.deepStrictEqual(t.devices.map((d) => d.numaAffinity), ['0', '0', '1', '1']);
  });

  it('8 MI300X: 28 xGMI pairs', () => {
    const t = ok(parseRocmTopology(read('rocm-smi-topo', 'mi300x-8gpu.txt')));
    assert.strictEqual(t.devices.length, 8);
    assert.strictEqual(topologySummary(t), '28 GPU pairs: 28 xGMI (Infinity Fabric)');
  });

  it('says so when there is no link-type section', () => {
    assert.deepStrictEqual(parseRocmTopology('ERROR: GPU[0] : Unable to read topology'), { ok: false, error: 'no "Link Type between two GPUs" section in rocm-smi --showtopo output' });
  });
});

describe('topology: in the device report', () => {
  const host = { platform: 'linux', arch: 'x64', cpuModels: ['AMD EPYC'], logicalCores: 1, totalMemoryBytes: 1024, freeMemoryBytes: 512, procCpuinfo: '' };
  const run = (stdout: string, exitCode = 0) => ({ exitCode, stdout, stderr: '' });
  const nvidia = (topology: ReturnType<typeof run> | null) => ({
    query: run(read('nvidia-smi', 'h200-rtx4070.txt')), details: null, list: null, topology,
  });

  it('carries nvidia-smi topo -m as report.topology, shown in detect text as the GPU matrix with affinity and a legend', () => {
    const report = buildDeviceReport({ host, nvidia: nvidia(run(read('nvidia-smi-topo', 'h200-rtx4070.txt'))), pinnedDevice: null });
    assert.ok(report.topology);
    assert.deepStrictEqual(Object.keys(report).pop(), 'topology');
    const text = formatDetectText(report).split('\n');
    const at = text.findIndex((l) => l.startsWith('Topology'));
    assert.deepStrictEqual(text.slice(at, at + 5), [
      'Topology (nvidia-smi): 1 GPU pair: 1 PCIe and the link between CPU sockets (SYS)',
      '        GPU0  GPU1  CPU AFFINITY  NUMA',
      '  GPU0  X     SYS   0-15,32-47    0',
      '  GPU1  SYS   X     16-31,48-63   1',
      '  SYS: PCIe and the link between CPU sockets (SYS)',
    ]);
  });

  it('leaves the key out when topo -m failed, was not asked, or printed something else', () => {
    for (const topology of [null, run('', 2), run('garbage')]) {
      const report = buildDeviceReport({ host, nvidia: nvidia(topology), pinnedDevice: null });
      assert.ok(!('topology' in report), JSON.stringify(topology));
      assert.ok(!formatDetectText(report).includes('Topology'));
    }
  });

  it('lists the 4-GPU NVLink pairs in the legend, NICs left out of the matrix', () => {
    const report = buildDeviceReport({ host, nvidia: nvidia(run(read('nvidia-smi-topo', 'four-a6000-nvlink-pairs.txt'))), pinnedDevice: null });
    const lines = topologyLines(report.topology as Topology);
    assert.strictEqual(lines[1], '        GPU0  GPU1  GPU2  GPU3  CPU AFFINITY  NUMA');
    assert.strictEqual(lines[6], '  NV4: NVLink ×4; PXB: PCIe through several switches, not the host bridge (PXB)');
    assert.strictEqual(lines.length, 7);
  });
});

describe('topology: in the editor device report', () => {
  const host = { platform: 'linux', arch: 'x64', cpuModels: ['AMD EPYC'], logicalCores: 1, totalMemoryBytes: 1024, freeMemoryBytes: 512, procCpuinfo: '' };
  const withTopology = (file: string) => buildDeviceReport({
    host, pinnedDevice: null,
    nvidia: { query: { exitCode: 0, stdout: read('nvidia-smi', 'h200-rtx4070.txt'), stderr: '' }, details: null, list: null, topology: { exitCode: 0, stdout: read('nvidia-smi-topo', file), stderr: '' } },
  });

  it('adds a Topology section: the matrix with NVLink cells marked and described on hover, affinity, legend', () => {
    const html = renderReportBody({ ...EMPTY_SNAPSHOT, report: withTopology('four-a6000-nvlink-pairs.txt') }, { memoryWarningPercent: 90 });
    assert.match(html, /<section><h2>Topology<\/h2><p>6 GPU pairs: 4 PCIe through several switches, not the host bridge \(PXB\), 2 NVLink ×4 \(nvidia-smi\)<\/p>/);
    assert.strictEqual((html.match(/class="topo-direct"/g) ?? []).length, 4);
    assert.match(html, /<td class="topo-direct" title="GPU0 → GPU1: NVLink ×4">NV4<\/td>/);
    assert.match(html, /<li>PXB: PCIe through several switches, not the host bridge \(PXB\)<\/li>/);
    assert.ok(!html.includes('NIC0'));
  });

  it('has no Topology section without a topology', () => {
    const report = buildDeviceReport({ host, pinnedDevice: null });
    assert.ok(!renderReportBody({ ...EMPTY_SNAPSHOT, report }, { memoryWarningPercent: 90 }).includes('Topology'));
  });
});
