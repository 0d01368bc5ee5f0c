// A compute worker killed with SIGKILL cannot clean up after itself: its tools (the streaming
// nvidia-smi, the GPU process list, probe.py, bench.py, the collective ranks) must still go,
// or a stray bench.py would hold a GPU for up to its 1,800 s timeout. The real dist/worker.js,
// forked as the extension forks it (WorkerProcess), is made to start every kind of long tool:
// fake nvidia-smi calls that hang without a word, and a fake torch whose import hangs once the
// test says so, under the real probe.py, bench.py and collectives.py.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { CollectiveBenchRequest } from '../../src/protocol/collectives';
import { BenchRequest, DetectRequest, StartMonitorRequest } from '../../src/protocol/worker';
import { WorkerProcess } from '../../src/vscode/worker/workerProcess';
import { isRunning } from './benchTorchKit';
import { buildDist, DEBIAN_PYTHON, ROOT, scenarioEnv, tempDir, waitFor, WORKER_JS } from './workerTestKit';

const FAKE_TORCH = path.join(ROOT, 'test', 'fixtures', 'torch', 'import-hangs-on-cue');
/** A tool still running this long after the worker died counts as a survivor. */
const REAP_BOUND_MS = 10_000;

function linesOf(file: string): string[] {
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
}

describe('worker killed with SIGKILL: its tools do not survive it', function () {
  this.timeout(180_000);
  let worker: WorkerProcess | undefined;
  const started: number[] = [];

  before(() => buildDist());
  after(async () => {
    worker?.kill();
    // Whatever a failing run left behind must not outlive the test either.
    for (const pid of started.filter(isRunning)) process.kill(pid, 'SIGKILL');
  });

  it('no tool process survives a killed worker: nvidia-smi stream and process list, probe.py, bench.py, two collective ranks', async () => {
    const dir = tempDir('dd-killed-worker-');
    const smiPids = path.join(dir, 'nvidia-smi.pids');
    const torchStarts = path.join(dir, 'torch.starts');
    const hang = path.join(dir, 'hang-now');
    const env = scenarioEnv('nvidia-long-tools', { PYTHONPATH: FAKE_TORCH, DD_FAKE_PIDS: smiPids, DD_FAKE_TORCH_STARTS: torchStarts, DD_FAKE_TORCH_HANG: hang });
    worker = new WorkerProcess({ modulePath: WORKER_JS, env, onLog: () => undefined, onExit: () => undefined });
    worker.listen();
    const { connection } = worker;
    // A failed request is expected once the worker is killed; nothing awaits these.
    const pending = (promise: Promise<unknown>) => void promise.catch(() => undefined);

    // The fake torch answers this detect, so the bench and the ranks below get that far.
    await connection.sendRequest(DetectRequest, { pythonPath: DEBIAN_PYTHON, pinnedDevice: null, timeoutMs: 60_000 });
    fs.writeFileSync(hang, '');
    await connection.sendRequest(StartMonitorRequest, { intervalMs: 250 });
    pending(connection.sendRequest(BenchRequest, { pythonPath: DEBIAN_PYTHON, pinnedDevice: null, compare: 'single', engine: 'torch', device: 'cpu', size: 64, repeats: 1 }));
    pending(connection.sendRequest(CollectiveBenchRequest, { pythonPath: DEBIAN_PYTHON, pinnedDevice: null, collectives: ['all-reduce'], device: 'cpu', worldSize: 2, maxBytes: 1024 * 1024, iters: 1 }));
    // Another interpreter path: a fresh PyTorch probe, which now hangs in its import.
    const otherPython = path.join(dir, 'python3');
    fs.symlinkSync(DEBIAN_PYTHON, otherPython);
    pending(connection.sendRequest(DetectRequest, { pythonPath: otherPython, pinnedDevice: null, timeoutMs: 600_000 }));

    const hanging = (script: string) => linesOf(torchStarts).filter((line) => line.endsWith(` ${script}`)).length;
    await waitFor('probe.py, bench.py and both ranks in their import', () => hanging('probe.py') >= 2 && hanging('bench.py') >= 1 && hanging('collectives.py') >= 2, 90_000);
    // The stream and the process list: two nvidia-smi calls that never end on their own.
    await waitFor('the hanging nvidia-smi calls', () => linesOf(smiPids).map(Number).filter(isRunning).length >= 2, 30_000);
    const tools = [...linesOf(torchStarts).map((line) => Number(line.split(' ')[0])), ...linesOf(smiPids).map(Number)];
    started.push(...tools);
    const running = tools.filter(isRunning);
    assert.ok(running.length >= 6, `at least six tools running before the kill, got ${running.length}`);

    const killedAt = Date.now();
    worker.kill();
    await worker.exited;
    let survivors = running;
    try {
      await waitFor('every tool to be gone', () => (survivors = running.filter(isRunning)).length === 0, REAP_BOUND_MS);
    } catch {
      // Reported below with who survived.
    }
    const describe = (pid: number) => `${pid} ${fs.existsSync(`/proc/${pid}/cmdline`) ? fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim() : ''}`;
    assert.deepStrictEqual(survivors.map(describe), [], `still running ${REAP_BOUND_MS} ms after the worker was killed`);
    assert.ok(Date.now() - killedAt < REAP_BOUND_MS);
  });
});
