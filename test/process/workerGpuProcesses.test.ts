// Who uses the GPU, with real files and a real (fake) nvidia-smi: /proc read from a fake tree
// and from the real /proc for this very process, the poller joining the tool's rows with it, and
// the monitor's host CPU use (from /proc/stat) and history.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { Accelerator } from '../../src/core/devices/report';
import { GpuProcessPoller } from '../../src/worker/monitor/gpuProcessPoller';
import { Monitor } from '../../src/worker/monitor/monitor';
import { readProcEntry, readProcTree, readUsers } from '../../src/worker/monitor/procReader';
import { scenarioEnv, tempDir, waitFor } from './workerTestKit';

const H200: Accelerator = {
  id: 'cuda:0', vendor: 'nvidia', api: 'cuda', name: 'NVIDIA H200', uuid: 'GPU-5d7f3c2a-1b2c-4d3e-9f8a-0123456789ab', pciBusId: '00000000:19:00.0',
  memory: { totalBytes: null, usedBytes: null, freeBytes: null }, utilizationPercent: null, temperatureC: null, powerW: null,
  driverVersion: null, cudaVersion: null, mig: [],
};

function fakeProc(root: string, pid: number, ppid: number, uid: number, args: string[]): void {
  const dir = path.join(root, String(pid));
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'status'), `Name:\t${path.basename(args[0])}\nState:\tS (sleeping)\nPPid:\t${ppid}\nUid:\t${uid}\t${uid}\t${uid}\t${uid}\n`);
  fs.writeFileSync(path.join(dir, 'cmdline'), `${args.join('\0')}\0`);
}

describe('worker: who uses the GPU (/proc and the tools)', function () {
  this.timeout(20_000);
  let tmp: string;

  beforeEach(() => { tmp = tempDir('dd-proc-'); });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('reads a fake /proc tree with each process\'s ancestors, and skips pids that are not there', async () => {
    fakeProc(tmp, 10, 1, 0, ['/sbin/init']);
    fakeProc(tmp, 20, 10, 1000, ['/usr/bin/node', '--type=extensionHost']);
    fakeProc(tmp, 30, 20, 1000, ['/usr/bin/python3', 'train.py']);
    const tree = await readProcTree(tmp, [30, 999]);
    assert.deepStrictEqual([...tree.keys()].sort(), [10, 20, 30]);
    assert.deepStrictEqual(tree.get(30), { pid: 30, ppid: 20, uid: 1000, name: 'python3', args: ['/usr/bin/python3', 'train.py'] });
  });

  it('reads this process from the real /proc: its parent, user and command line', async () => {
    const me = await readProcEntry('/proc', process.pid);
    assert.ok(me, 'this process is in /proc');
    assert.strictEqual(me.ppid, process.ppid);
    assert.strictEqual(me.uid, os.userInfo().uid);
    assert.ok(me.args.some((arg) => arg.includes('mocha')), `mocha in ${me.args.join(' ')}`);
    const users = await readUsers('/etc/passwd');
    assert.strictEqual(users.get(os.userInfo().uid), os.userInfo().username);
  });

  it('joins nvidia-smi\'s rows with /proc: this process is the window\'s, another container\'s pids are kept without a user', async () => {
    const poller = new GpuProcessPoller({ env: scenarioEnv('nvidia-h200-busy'), log: () => undefined, onProcesses: () => undefined });
    poller.setAccelerators([H200]);
    // The fake names its caller (this process) as a GPU user; the window here is our parent.
    poller.setWindowPids([process.ppid]);
    const processes = await poller.poll();
    assert.deepStrictEqual(processes.map((p) => [p.pid, p.deviceId, p.usedBytes, p.visible, p.fromThisWindow]), [
      [4194301, 'cuda:0', 90112 * 1024 ** 2, false, false],
      [process.pid, 'cuda:0', 20480 * 1024 ** 2, true, true],
      [4194302, 'cuda:0', null, false, false],
    ]);
    const mine = processes[1];
    assert.strictEqual(mine.user, os.userInfo().username);
    assert.match(mine.commandLine ?? '', /mocha/);
    assert.strictEqual(processes[0].user, null);
  });

  it('asks no tool and lists nothing before a detect found a GPU', async () => {
    const log = path.join(tmp, 'runs.log');
    const poller = new GpuProcessPoller({ env: scenarioEnv('nvidia-h200-busy', { DD_FAKE_LOG: log }), log: () => undefined, onProcesses: () => undefined });
    assert.deepStrictEqual(await poller.poll(), []);
    assert.strictEqual(fs.existsSync(log), false);
  });
});

describe('worker: the monitor\'s history and host CPU use', function () {
  this.timeout(20_000);

  it('turns /proc/stat deltas into CPU utilization and keeps the newest sample in the history', async () => {
    const tmp = tempDir('dd-stat-');
    const stat = path.join(tmp, 'stat');
    fs.writeFileSync(stat, 'cpu  100 0 100 800 0 0 0 0 0 0\n');
    const samples: Array<{ id: string; utilizationPercent: number | null; time: number }> = [];
    const monitor = new Monitor(
      { samples: (batch) => samples.push(...batch), processes: () => undefined, problem: () => undefined, log: () => undefined },
      { env: scenarioEnv(undefined), platform: 'linux', procRoot: tmp, sysfsDrmRoot: path.join(tmp, 'no-sysfs') },
    );
    try {
      monitor.start(100);
      await waitFor('a first host sample', () => samples.some((s) => s.id === 'cpu'));
      // 300 more jiffies, 150 of them busy: 50 %.
      fs.writeFileSync(stat, 'cpu  200 0 150 950 0 0 0 0 0 0\n');
      await waitFor('a host sample with utilization', () => samples.some((s) => s.id === 'cpu' && s.utilizationPercent !== null));
      assert.strictEqual(samples[0].utilizationPercent, null, 'the first reading has nothing to compare with');
      assert.strictEqual(samples.find((s) => s.utilizationPercent !== null)!.utilizationPercent, 50);
      // Read together (no tick can come between): the history ends with what was last sent.
      const history = monitor.history.snapshot(Date.now());
      const last = samples.filter((s) => s.id === 'cpu').at(-1)!;
      assert.ok(history.cpu.length >= 1);
      assert.deepStrictEqual([history.cpu.at(-1)!.time, history.cpu.at(-1)!.utilizationPercent], [last.time, last.utilizationPercent]);
    } finally {
      monitor.stop();
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});
