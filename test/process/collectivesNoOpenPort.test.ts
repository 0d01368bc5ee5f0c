// The ranks Device Doctor starts on one machine must not open a port to the network: with
// torch's env:// rendezvous, rank 0's TCPStore listens on every interface, unauthenticated,
// for the whole run. A local run's listening sockets are read from /proc/net/tcp{,6} (state
// 0A) and matched to the ranks through their /proc/<pid>/fd socket inodes, all through the
// run, with Debian's torch over gloo.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { MIB, type CollectiveRequest } from '../../src/core/bench/collectives/request';
import { runCollectives } from '../../src/worker/bench/collectives/run';
import { requireDebianTorch, DEBIAN_PYTHON } from './workerTestKit';

interface Listener {
  pid: number;
  address: string;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/** /proc/net's hex address ("0100007F:8AAF", 32 hex digits for IPv6) as text, without the port. */
export function procAddress(hex: string): string {
  const host = hex.split(':')[0];
  // Each 32-bit word is in the host's byte order (little-endian here).
  const words = host.match(/.{8}/g) ?? [];
  const bytes = words.flatMap((word) => (word.match(/../g) ?? []).reverse().map((b) => parseInt(b, 16)));
  if (bytes.length === 4) return bytes.join('.');
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i] << 8) | bytes[i + 1]).toString(16));
  const text = groups.join(':');
  if (text === '0:0:0:0:0:0:0:0') return '::';
  if (text === '0:0:0:0:0:0:0:1') return '::1';
  if (text.startsWith('0:0:0:0:0:ffff:')) return `::ffff:${bytes.slice(12).join('.')}`;
  return text;
}

function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  let fds: string[] = [];
  try {
    fds = fs.readdirSync(`/proc/${pid}/fd`);
  } catch {
    return inodes;
  }
  for (const fd of fds) {
    try {
      const target = fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode) inodes.add(inode);
    } catch {
      // Closed between the listing and the look.
    }
  }
  return inodes;
}

/** The TCP sockets in LISTEN that these processes hold. */
function listeners(pids: number[]): Listener[] {
  const owner = new Map<string, number>();
  for (const pid of pids) for (const inode of socketInodes(pid)) owner.set(inode, pid);
  const found: Listener[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of fs.readFileSync(table, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields[3] !== '0A') continue;
      const pid = owner.get(fields[9]);
      if (pid !== undefined) found.push({ pid, address: procAddress(fields[1]) });
    }
  }
  return found;
}

function storeFileOf(pid: number): string | undefined {
  try {
    const args = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    const at = args.indexOf('--store-file');
    return at >= 0 ? args[at + 1] : undefined;
  } catch {
    return undefined;
  }
}

describe('collectives: no port open to the network during a local run', function () {
  this.timeout(240_000);
  before(() => requireDebianTorch());

  it('reads /proc/net addresses as the kernel writes them', () => {
    assert.strictEqual(procAddress('0100007F:8AAF'), '127.0.0.1');
    assert.strictEqual(procAddress('00000000:735D'), '0.0.0.0');
    assert.strictEqual(procAddress('00000000000000000000000000000000:735D'), '::');
    assert.strictEqual(procAddress('00000000000000000000000001000000:0016'), '::1');
    assert.strictEqual(procAddress('0000000000000000FFFF00000100007F:0016'), '::ffff:127.0.0.1');
  });

  it('no rank listens on a non-loopback or wildcard address, and the store is a file in a private folder, removed afterwards', async () => {
    const request: CollectiveRequest = { collectives: ['all-reduce', 'broadcast'], device: 'cpu', worldSize: 2, minBytes: MIB / 4, maxBytes: MIB, iters: 2, warmup: 1, timeoutSec: 60 };
    const pids: number[] = [];
    const ready = new Set<number>();
    const seen: Listener[] = [];
    let samplesInGroup = 0;
    let storeFile: string | undefined;
    let storeMode: number | undefined;
    let done = false;
    const run = runCollectives(request, {
      python: DEBIAN_PYTHON,
      timeoutMs: 200_000,
      onRankStarted: (_rank, pid) => void (pid !== undefined && pids.push(pid)),
      onStderrLine: (rank, line) => void (/ ready /.test(line) && ready.add(rank)),
    }).finally(() => (done = true));
    // Every few ms from the first rank's start to the last one's end, the group's forming included.
    while (!done) {
      seen.push(...listeners(pids));
      if (ready.size === 2) samplesInGroup++;
      if (storeFile === undefined && pids.length > 0) {
        storeFile = storeFileOf(pids[0]);
        if (storeFile !== undefined) storeMode = fs.statSync(path.dirname(storeFile)).mode & 0o777;
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const outcome = await run;
    assert.strictEqual(outcome.status, 'ok', JSON.stringify(outcome));
    assert.ok(samplesInGroup > 0, 'the sockets were read while both ranks were in the group');
    const open = [...new Set(seen.filter((l) => !LOOPBACK.has(l.address)).map((l) => `rank pid ${l.pid} on ${l.address}`))];
    assert.deepStrictEqual(open, [], 'listening beyond loopback (0.0.0.0 or :: is every interface)');
    assert.ok(storeFile, 'the ranks were given a --store-file');
    assert.strictEqual(storeMode?.toString(8), '700', 'the store folder is private');
    assert.strictEqual(fs.existsSync(path.dirname(storeFile)), false, 'the store folder is removed after the run');
  });
});
