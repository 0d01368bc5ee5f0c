// The streaming nvidia-smi behind live memory, in-process: rows from one process, a
// stuck stream killed and restarted, and no restarts when there is nothing to watch.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import type { MemorySampleRow } from '../../src/core/devices/nvidiaMonitor';
import { NvidiaStream, type NvidiaStreamOptions } from '../../src/worker/monitor/nvidiaStream';
import { fakeRuns, isAlive, scenarioEnv, tempDir, waitFor } from './workerTestKit';

const MIB = 1024 ** 2;

describe('worker: the nvidia-smi memory stream', function () {
  this.timeout(20_000);
  let tmp: string;
  let runLog: string;
  let pidLog: string;
  let stream: NvidiaStream | undefined;
  let rows: MemorySampleRow[];
  let problems: string[];
  let logs: string[];

  function startStream(scenario: string | undefined, options: Partial<NvidiaStreamOptions> = {}): NvidiaStream {
    stream = new NvidiaStream({
      env: scenarioEnv(scenario, { DD_FAKE_LOG: runLog, DD_FAKE_PIDS: pidLog }),
      log: (level, message) => logs.push(`${level} ${message}`),
      onRows: (batch) => rows.push(...batch),
      onProblem: (message) => problems.push(message),
      restartDelayMs: 100,
      ...options,
    });
    stream.start(100);
    return stream;
  }

  function pids(): number[] {
    return fs.existsSync(pidLog) ? fs.readFileSync(pidLog, 'utf8').split('\n').filter(Boolean).map(Number) : [];
  }

  beforeEach(() => {
    tmp = tempDir('dd-stream-');
    runLog = path.join(tmp, 'runs.log');
    pidLog = path.join(tmp, 'pids.log');
    rows = [];
    problems = [];
    logs = [];
  });

  afterEach(() => {
    stream?.stop();
    stream = undefined;
    for (const pid of pids()) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('turns the blocks of one process into rows', async () => {
    const s = startStream('nvidia-two-gpus');
    await waitFor('three intervals of two GPUs', () => rows.length >= 6);
    assert.deepStrictEqual(rows.slice(0, 6).map((r) => [r.index, r.usedBytes, r.utilizationPercent]), [
      [0, 0, 0],
      [1, 531 * MIB, 3],
      [0, 20480 * MIB, 87],
      [1, 531 * MIB, 2],
      [0, 20992 * MIB, 91],
      [1, 1043 * MIB, 15],
    ]);
    assert.strictEqual(s.starts, 1);
    assert.strictEqual(fakeRuns(runLog).length, 1);
    assert.deepStrictEqual(problems, []);
  });

  it('kills a stream that goes silent and starts a new one', async () => {
    startStream('nvidia-hang', { silenceMs: 300 });
    await waitFor('a second process', () => fakeRuns(runLog).length >= 2, 5_000);
    await waitFor('the silent one to be killed', () => !isAlive(pids()[0]));
    assert.ok(logs.some((l) => /printed nothing for 300 ms; restarting it/.test(l)), logs.join('\n'));
    assert.match(problems[0], /the nvidia-smi memory monitor stopped \(nvidia-smi did not answer within 0\.3 s and was stopped\); restarting it in 0\.1 s/);
  });

  it('backs off further with each restart that produced nothing', async () => {
    startStream('nvidia-driver-not-loaded');
    await waitFor('three failed starts', () => problems.length >= 3, 5_000);
    assert.deepStrictEqual(problems.slice(0, 3).map((p) => /restarting it in ([\d.]+) s/.exec(p)?.[1]), ['0.1', '0.2', '0.4']);
    assert.match(problems[0], /couldn't communicate with the NVIDIA driver/);
  });

  it('a stream killed by a signal says which, not "exit code unknown"', async () => {
    startStream('nvidia-segfault');
    await waitFor('a restart notice', () => problems[0]);
    assert.match(problems[0], /^the nvidia-smi memory monitor stopped \(nvidia-smi was killed by SIGSEGV\); restarting it in 0\.1 s$/);
  });

  it('stays stopped when nvidia-smi is not installed or sees no GPU', async () => {
    for (const scenario of [undefined, 'nvidia-no-devices']) {
      const s = startStream(scenario);
      await waitFor('the stream to give up', () => !s.active);
      await new Promise((r) => setTimeout(r, 300));
      assert.strictEqual(s.starts, 1, String(scenario));
      assert.deepStrictEqual(problems, []);
      assert.ok(logs.some((l) => /live GPU memory is off/.test(l)));
    }
  });

  it('stop() kills the process and nothing restarts it', async () => {
    const s = startStream('nvidia-two-gpus');
    await waitFor('rows', () => rows.length > 0);
    s.stop();
    await waitFor('the process to die', () => !isAlive(pids()[0]));
    await new Promise((r) => setTimeout(r, 300));
    assert.strictEqual(s.starts, 1);
    assert.strictEqual(fakeRuns(runLog).length, 1);
  });
});
