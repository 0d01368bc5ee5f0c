// The P2P matrix of `bench --collective` on GPUs (collectives.py --p2p): read and checked from
// rank 0's report (test/fixtures/probes/collectives/four-a6000-nccl-p2p.json, written from the
// format for the four A6000s whose topo -m is recorded beside it), each pair matched to its
// nvidia-smi link by bus id whatever CUDA's order, and the terminal matrix.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { p2pLines } from '../../src/cli/formats/p2pText';
import { formatCollectiveText } from '../../src/cli/formats/collectiveText';
import { p2pLinks, p2pProblem, type P2pMatrix } from '../../src/core/bench/collectives/p2p';
import { parseCollectiveReport } from '../../src/core/bench/collectives/report';
import { collectiveScriptArgs } from '../../src/core/bench/collectives/request';
import { buildDeviceReport } from '../../src/core/devices/buildReport';

const PROBES = path.join(__dirname, '..', 'fixtures', 'probes');
const read = (dir: string, name: string) => fs.readFileSync(path.join(PROBES, dir, name), 'utf8');
const recorded = () => read('collectives', 'four-a6000-nccl-p2p.json');

function fourA6000Report() {
  const host = { platform: 'linux', arch: 'x64', cpuModels: ['AMD EPYC'], logicalCores: 1, totalMemoryBytes: 1024, freeMemoryBytes: 512, procCpuinfo: '' };
  const ran = (stdout: string) => ({ exitCode: 0, stdout, stderr: '' });
  return buildDeviceReport({
    host, pinnedDevice: null,
    nvidia: { query: ran(read('nvidia-smi', 'four-a6000.txt')), details: null, list: null, topology: ran(read('nvidia-smi-topo', 'four-a6000-nvlink-pairs.txt')) },
  });
}

function p2pOf(text: string): P2pMatrix {
  const parsed = parseCollectiveReport(text);
  assert.ok(parsed.ok, parsed.ok ? '' : parsed.error);
  assert.ok(parsed.report.p2p, 'the report has a P2P matrix');
  return parsed.report.p2p;
}

describe('collectives: the P2P matrix', () => {
  it('reads the recorded four-GPU matrix: null diagonal, a bandwidth and peer access for every ordered pair', () => {
    const p2p = p2pOf(recorded());
    assert.strictEqual(p2p.devices.length, 4);
    assert.deepStrictEqual(p2p.gbps.map((row) => row.map((v) => (v === null ? null : Math.round(v)))), [
      [null, 52, 21, 21], [52, null, 21, 21], [21, 21, null, 52], [21, 21, 52, null],
    ]);
    assert.strictEqual(p2p.peerAccess[0][1], true);
  });

  it('a report without p2p (gloo, one GPU) reads as before, with no key', () => {
    const parsed = parseCollectiveReport(read('collectives', 'gloo-2-cpu-ranks-torchrun.json'));
    assert.ok(parsed.ok && !('p2p' in parsed.report), JSON.stringify(parsed).slice(0, 300));
  });

  it('refuses a malformed matrix with the field it got wrong', () => {
    const base = JSON.parse(recorded()) as { p2p: Record<string, any> };
    const cases: [(p: Record<string, any>) => void, RegExp][] = [
      [(p) => { p.gbps[0][0] = 12; }, /p2p.gbps must be 4×4 bandwidths > 0 \(null on the diagonal\)/],
      [(p) => { p.gbps[1].pop(); }, /p2p.gbps/],
      [(p) => { p.gbps[2][1] = -3; }, /p2p.gbps/],
      [(p) => { p.peerAccess[0][1] = 'yes'; }, /p2p.peerAccess/],
      [(p) => { p.devices = p.devices.slice(0, 1); }, /two GPUs or more/],
      [(p) => { p.devices[1].index = 3; }, /p2p.devices\[1\]/],
      [(p) => { p.bytes = 0; }, /p2p.bytes/],
    ];
    for (const [mutate, message] of cases) {
      const copy = JSON.parse(JSON.stringify(base)) as { p2p: Record<string, any> };
      mutate(copy.p2p);
      const parsed = parseCollectiveReport(JSON.stringify(copy));
      assert.ok(!parsed.ok, mutate.toString());
      assert.match(parsed.ok ? '' : parsed.error, message, mutate.toString());
    }
    assert.strictEqual(p2pProblem(base.p2p), null);
  });

  it('matches each CUDA pair to its nvidia-smi link by bus id, also when CUDA numbers the GPUs in another order', () => {
    const report = fourA6000Report();
    const p2p = p2pOf(recorded());
    assert.deepStrictEqual(p2pLinks(p2p, report).map((row) => row.map((l) => l?.code ?? null)), [
      [null, 'NV4', 'PXB', 'PXB'], ['NV4', null, 'PXB', 'PXB'], ['PXB', 'PXB', null, 'NV4'], ['PXB', 'PXB', 'NV4', null],
    ]);
    // CUDA's cuda:0 is the board nvidia-smi calls GPU2 (bus 3D), cuda:2 is GPU0; torch's
    // spelling of the bus id (lower case, short domain) and its bare uuid still match.
    const swapped: P2pMatrix = { ...p2p, devices: [
      { index: 0, name: 'NVIDIA RTX A6000', uuid: null, pciBusId: '0000:3d:00.0' },
      p2p.devices[1],
      { index: 2, name: 'NVIDIA RTX A6000', uuid: '11111111-2222-3333-4444-555555555550', pciBusId: null },
      p2p.devices[3],
    ] };
    const links = p2pLinks(swapped, report).map((row) => row.map((l) => l?.code ?? null));
    assert.deepStrictEqual(links[0], [null, 'PXB', 'PXB', 'NV4'], 'GPU2 is NVLinked to GPU3 only');
    assert.deepStrictEqual(links[2], ['PXB', 'NV4', null, 'PXB'], 'GPU0 is NVLinked to GPU1 only');
  });

  it('has no links to show without a topology, or for a GPU the report does not list', () => {
    const p2p = p2pOf(recorded());
    assert.ok(p2pLinks(p2p, null).flat().every((l) => l === null));
    const stranger: P2pMatrix = { ...p2p, devices: p2p.devices.map((d, i) => (i === 3 ? { ...d, uuid: null, pciBusId: '00000000:99:00.0' } : d)) };
    const links = p2pLinks(stranger, fourA6000Report());
    assert.deepStrictEqual(links[3], [null, null, null, null]);
    assert.strictEqual(links[0][1]?.code, 'NV4');
  });

  it('prints GB/s beside each pair\'s link, and marks a pair without peer access', () => {
    const p2p = p2pOf(recorded());
    p2p.peerAccess[0][2] = false;
    const lines = p2pLines(p2p, fourA6000Report());
    assert.strictEqual(lines[0], "P2P copy bandwidth, GB/s (rank 0's node, NVIDIA RTX A6000; 128 MiB per copy, median of 3)");
    assert.match(lines[2], /^ {2}cuda:0 +X +51\.8 NV4 +20\.7\* PXB +20\.6 PXB$/);
    assert.ok(lines.some((l) => /\*: no peer access/.test(l)));
    assert.ok(lines.some((l) => /nvidia-smi topo -m/.test(l)));
    // Without a device report: the figures alone, no link note.
    const bare = p2pLines(p2pOf(recorded()), null);
    assert.match(bare[2], /^ {2}cuda:0 +X +51\.8 +20\.7 +20\.6$/);
    assert.ok(!bare.some((l) => /topo -m|peer access/.test(l)));
  });

  it('follows the collective table in the CLI text, and only CUDA runs ask for it', () => {
    const parsed = parseCollectiveReport(recorded());
    assert.ok(parsed.ok);
    const text = formatCollectiveText(parsed.report, fourA6000Report());
    assert.ok(text.indexOf('P2P copy bandwidth') > text.indexOf('busbw = algbw'), text);
    const request = { collectives: ['all-reduce' as const], worldSize: 2, minBytes: 1024, maxBytes: 1024, iters: 1, warmup: 0, timeoutSec: 10 };
    assert.ok(collectiveScriptArgs({ ...request, device: 'cuda' }).includes('--p2p'));
    assert.ok(!collectiveScriptArgs({ ...request, device: 'cpu' }).includes('--p2p'));
  });
});
