import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { amdSmiGpuApps, nvidiaGpuApps, rocmSmiGpuApps } from '../../src/core/devices/gpuApps';
import { describeGpuProcesses, isFromWindow, type ProcEntry, type ProcessFacts } from '../../src/core/devices/gpuProcesses';
import { cpuUtilizationPercent, formatCommandLine, parseCmdline, parsePasswd, parseProcStatCpu, parseProcStatus } from '../../src/core/devices/procFiles';
import { parseNvidiaMigList, parseNvidiaQueryCsv } from '../../src/core/devices/nvidiaSmi';
import type { Accelerator } from '../../src/core/devices/report';

const PROBES = path.join(__dirname, '..', 'fixtures', 'probes');
const recorded = (file: string): string => fs.readFileSync(path.join(PROBES, file), 'utf8');
const MIB = 1024 * 1024;

function accelerator(id: string, vendor: Accelerator['vendor'], uuid: string | null, mig: Accelerator['mig'] = []): Accelerator {
  return {
    id, vendor, api: vendor === 'amd' ? 'rocm' : 'cuda', name: id, uuid, pciBusId: null,
    memory: { totalBytes: null, usedBytes: null, freeBytes: null }, utilizationPercent: null, temperatureC: null,
    powerW: null, driverVersion: null, cudaVersion: null, mig,
  };
}

/** The H200 + RTX 4070 of PROBES.md, with CUDA's order (the 4070 first). */
const H200_RTX4070 = parseNvidiaQueryCsv(recorded('nvidia-smi/h200-rtx4070.txt'))
  .map((row, i) => accelerator(`cuda:${1 - i}`, 'nvidia', row.uuid));

function entry(pid: number, ppid: number, uid: number, args: string[]): ProcEntry {
  return { pid, ppid, uid, name: path.basename(args[0] ?? ''), args };
}

function facts(procs: ProcEntry[], windowPids: number[], accelerators: Accelerator[]): ProcessFacts {
  return { procs: new Map(procs.map((p) => [p.pid, p])), users: new Map([[0, 'root'], [1000, 'ada']]), windowPids: new Set(windowPids), accelerators };
}

describe('devices: who uses the GPU (tool outputs)', () => {
  it('reads nvidia-smi compute apps with the GPU named by its UUID', () => {
    assert.deepStrictEqual(nvidiaGpuApps(recorded('nvidia-smi-compute-apps/two-processes.txt')), [
      { pid: 48213, processName: '/home/ada/.venv/bin/python', usedBytes: 20486 * MIB, gpu: { uuid: 'GPU-5d7f3c2a-1b2c-4d3e-9f8a-0123456789ab' } },
      { pid: 51022, processName: 'python3', usedBytes: null, gpu: { uuid: 'GPU-0f1e2d3c-4b5a-6978-8a9b-abcdefabcdef' } },
    ]);
  });

  it('reads an empty compute-apps list as no processes', () => {
    assert.deepStrictEqual(nvidiaGpuApps(recorded('nvidia-smi-compute-apps/none.txt')), []);
  });

  it('reads MIG mode rows, whose memory nvidia-smi reports as [N/A], as unknown memory', () => {
    const apps = nvidiaGpuApps(recorded('nvidia-smi-compute-apps/a100-mig-na.txt'));
    assert.deepStrictEqual(apps.map((a) => [a.pid, a.usedBytes]), [[3101, null], [3377, null]]);
  });

  it('reads rocm-smi --showpids, which says how many GPUs but not which', () => {
    assert.deepStrictEqual(rocmSmiGpuApps(recorded('rocm-smi-pids/two-processes.json')), [
      { pid: 2968, processName: 'python3', usedBytes: 1073741824, gpu: null },
      { pid: 3011, processName: 'ollama', usedBytes: 8589934592, gpu: null },
    ]);
    assert.deepStrictEqual(rocmSmiGpuApps(recorded('rocm-smi-pids/none.json')), []);
    assert.deepStrictEqual(rocmSmiGpuApps('WARNING: not json'), []);
  });

  it('reads amd-smi process in both shapes (wrapped in process_info, or flat with MB units)', () => {
    assert.deepStrictEqual(amdSmiGpuApps(recorded('amd-smi-process/mi300x-wrapped.json')), [
      { pid: 4410, processName: 'python3', usedBytes: 17179869184, gpu: { index: 0 } },
    ]);
    assert.deepStrictEqual(amdSmiGpuApps(recorded('amd-smi-process/rocm62-flat.json')), [
      { pid: 5120, processName: 'pt_main_thread', usedBytes: 512 * MIB, gpu: { index: 0 } },
    ]);
  });
});

describe('devices: who uses the GPU (joined with /proc)', () => {
  const extensionHost = 700;
  const tree = [
    entry(650, 1, 1000, ['/usr/lib/code-server/node', 'out/node/entry']),
    entry(extensionHost, 650, 1000, ['/usr/lib/code-server/node', '--type=extensionHost']),
    entry(48213, 710, 1000, ['/home/ada/.venv/bin/python', 'train.py', '--epochs', '3']),
    entry(710, extensionHost, 1000, ['/bin/bash']),
    entry(907, 1, 0, ['python', '-m', 'vllm.entrypoints.api_server', '--model', 'my model']),
  ];

  it('names each process its user, command line and device, and marks what this window started', () => {
    const processes = describeGpuProcesses(nvidiaGpuApps(recorded('nvidia-smi-compute-apps/h200-container.txt')), 'nvidia', facts(tree, [extensionHost], H200_RTX4070));
    assert.deepStrictEqual(processes[0], {
      pid: 48213, deviceId: 'cuda:1', mig: null, usedBytes: 131072 * MIB, name: 'python', user: 'ada',
      commandLine: '/home/ada/.venv/bin/python train.py --epochs 3', fromThisWindow: true, visible: true,
    });
    assert.deepStrictEqual(processes.slice(1).map((p) => [p.pid, p.user, p.commandLine, p.fromThisWindow]), [
      [907, 'root', "python -m vllm.entrypoints.api_server --model 'my model'", false],
      [1212, null, null, false],
    ]);
  });

  it('keeps processes of another container (pids not in /proc) without anyone else\'s user or command', () => {
    const processes = describeGpuProcesses(nvidiaGpuApps(recorded('nvidia-smi-compute-apps/h200-container.txt')), 'nvidia', facts([], [extensionHost], H200_RTX4070));
    assert.deepStrictEqual(processes.map((p) => [p.pid, p.deviceId, p.name, p.user, p.visible, p.fromThisWindow]), [
      [48213, 'cuda:1', 'python3', null, false, false],
      [907, 'cuda:1', 'python', null, false, false],
      [1212, 'cuda:0', 'pid 1212', null, false, false],
    ]);
  });

  it('puts MIG-mode processes on the A100 with unknown memory', () => {
    const [gpu] = parseNvidiaMigList(recorded('nvidia-smi-L/a100-mig.txt'));
    const a100 = accelerator('cuda:0', 'nvidia', gpu.uuid, gpu.mig);
    const processes = describeGpuProcesses(nvidiaGpuApps(recorded('nvidia-smi-compute-apps/a100-mig-na.txt')), 'nvidia', facts([], [], [a100]));
    assert.deepStrictEqual(processes.map((p) => [p.pid, p.deviceId, p.usedBytes]), [[3101, 'cuda:0', null], [3377, 'cuda:0', null]]);
  });

  it('names a MIG instance when the tool gives its UUID', () => {
    const [gpu] = parseNvidiaMigList(recorded('nvidia-smi-L/a100-mig.txt'));
    const a100 = accelerator('cuda:0', 'nvidia', gpu.uuid, gpu.mig);
    const [process] = describeGpuProcesses([{ pid: 5, processName: 'python', usedBytes: null, gpu: { uuid: gpu.mig[1].uuid } }], 'nvidia', facts([], [], [a100]));
    assert.deepStrictEqual([process.deviceId, process.mig], ['cuda:0', '3g.20gb']);
  });

  it('puts AMD processes on the GPU of that index, and leaves rocm-smi\'s without a device', () => {
    const amd = [accelerator('cuda:0', 'amd', null)];
    const [byIndex] = describeGpuProcesses(amdSmiGpuApps(recorded('amd-smi-process/mi300x-wrapped.json')), 'amd', facts([], [], amd));
    const [unnamed] = describeGpuProcesses(rocmSmiGpuApps(recorded('rocm-smi-pids/two-processes.json')), 'amd', facts([], [], amd));
    assert.deepStrictEqual([byIndex.deviceId, unnamed.deviceId], ['cuda:0', null]);
  });

  it('sorts by memory, most first, unknown memory last', () => {
    const apps = [
      { pid: 1, processName: 'a', usedBytes: null, gpu: null },
      { pid: 2, processName: 'b', usedBytes: 10, gpu: null },
      { pid: 3, processName: 'c', usedBytes: 30, gpu: null },
    ];
    assert.deepStrictEqual(describeGpuProcesses(apps, 'nvidia', facts([], [], [])).map((p) => p.pid), [3, 2, 1]);
  });

  it('follows the parent chain to a window process, and stops on a loop', () => {
    const procs = new Map([[10, entry(10, 11, 0, [])], [11, entry(11, 10, 0, [])]]);
    assert.strictEqual(isFromWindow(10, procs, new Set([99])), false);
    assert.strictEqual(isFromWindow(10, procs, new Set([11])), true);
    assert.strictEqual(isFromWindow(10, procs, new Set([10])), true);
  });
});

describe('devices: /proc files', () => {
  it('reads name, parent and real user from /proc/<pid>/status', () => {
    const status = 'Name:\tpython3\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t48213\nPid:\t48213\nPPid:\t710\nUid:\t1000\t1001\t1001\t1001\nGid:\t1000\t1000\t1000\t1000\n';
    assert.deepStrictEqual(parseProcStatus(status), { name: 'python3', ppid: 710, uid: 1000 });
    assert.deepStrictEqual(parseProcStatus(''), { name: '', ppid: null, uid: null });
  });

  it('splits cmdline on NUL and shows it quoted, with control characters escaped and length capped', () => {
    assert.deepStrictEqual(parseCmdline('python\0train.py\0--name\0my run\0'), ['python', 'train.py', '--name', 'my run']);
    assert.deepStrictEqual(parseCmdline(''), []);
    assert.strictEqual(formatCommandLine(['python', 'my run', '\x1b[31m']), "python 'my run' \\x1b[31m");
    assert.strictEqual(formatCommandLine(['x'.repeat(50)], 10), `${'x'.repeat(9)}…`);
  });

  it('maps user ids to names from /etc/passwd, skipping comments and broken lines', () => {
    const users = parsePasswd('# users\nroot:x:0:0:root:/root:/bin/bash\nada:x:1000:1000::/home/ada:/bin/sh\nbroken\nalias:x:1000:1000::/:/bin/sh\n');
    assert.deepStrictEqual([...users], [[0, 'root'], [1000, 'ada']]);
  });

  it('computes CPU utilization from two /proc/stat readings', () => {
    const before = parseProcStatCpu('cpu  100 0 100 700 100 0 0 0 0 0\ncpu0 50 0 50 350 50 0 0 0 0 0\n');
    const after = parseProcStatCpu('cpu  250 0 150 800 100 0 0 0 0 0\n');
    assert.deepStrictEqual(before, { busy: 200, total: 1000 });
    assert.strictEqual(cpuUtilizationPercent(before!, after!), 67); // 200 busy of 300
    assert.strictEqual(cpuUtilizationPercent(after!, after!), null);
    assert.strictEqual(parseProcStatCpu('intr 1 2 3\n'), null);
  });
});
