// collectives.py's P2P matrix (p2p_matrix) run by Debian's real torch, with only torch.cuda
// stood in for: these machines have no GPU, so "cuda:i" tensors are CPU tensors and the copies
// are real torch copies. What this proves: the loop covers every ordered pair, times and
// checks each copy, and writes what the core's reader accepts. Real GPU numbers come from
// `npm run device-check` on an accelerator machine.
import * as assert from 'assert';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { parseCollectiveReport } from '../../src/core/bench/collectives/report';
import { DEBIAN_PYTHON, requireDebianTorch, ROOT } from './workerTestKit';

const SHIM = `
import json, sys, types
sys.path.insert(0, ${JSON.stringify(path.join(ROOT, 'src', 'worker', 'python'))})
import torch as real
import collectives

class Cuda:
    """torch.cuda of three GPUs: peer access within the pair 0-1 only."""
    def device_count(self): return 3
    def can_device_access_peer(self, i, j): return {i, j} == {0, 1}
    def synchronize(self, device=None): pass
    def get_device_name(self, index): return "Fake GPU %d" % index

def on_cpu(make):
    return lambda size, dtype, device: make(size, dtype=dtype)

shim = types.SimpleNamespace(cuda=Cuda(), uint8=real.uint8, ones=on_cpu(real.ones), empty=on_cpu(real.empty))
print(json.dumps(collectives.p2p_matrix(shim, 1 << 20, 1, 3)))
`;

describe('collectives.py: the P2P matrix loop (real torch copies, torch.cuda stood in for)', function () {
  this.timeout(60_000);
  before(() => requireDebianTorch());

  it('times every ordered pair of three GPUs, null on the diagonal, peer access as torch says, in a shape the reader accepts', () => {
    const result = spawnSync(DEBIAN_PYTHON, ['-c', SHIM], { encoding: 'utf8', timeout: 50_000 });
    assert.strictEqual(result.status, 0, result.stderr);
    const p2p = JSON.parse(result.stdout) as { gbps: (number | null)[][]; peerAccess: (boolean | null)[][]; devices: { index: number; name: string }[]; bytes: number; iters: number };
    assert.deepStrictEqual(p2p.devices.map((d) => `${d.index} ${d.name}`), ['0 Fake GPU 0', '1 Fake GPU 1', '2 Fake GPU 2']);
    assert.deepStrictEqual([p2p.bytes, p2p.iters], [1 << 20, 3]);
    p2p.gbps.forEach((row, i) => row.forEach((v, j) => assert.ok(i === j ? v === null : typeof v === 'number' && v > 0, `${i}→${j}: ${v}`)));
    assert.deepStrictEqual(p2p.peerAccess, [[null, true, false], [true, null, false], [false, false, null]]);
    const gloo = fs.readFileSync(path.join(ROOT, 'test', 'fixtures', 'probes', 'collectives', 'gloo-2-cpu-ranks-torchrun.json'), 'utf8');
    const parsed = parseCollectiveReport(JSON.stringify({ ...JSON.parse(gloo), p2p }));
    assert.ok(parsed.ok, parsed.ok ? '' : parsed.error);
    assert.strictEqual(parsed.report.p2p?.devices.length, 3);
  });
});
