// One probe of a kind in flight, shared by concurrent callers; a back-off after a hang;
// cancellation that stops the probe only when nobody wants it any more.
import * as assert from 'assert';
import { CancelledError, ProbeGate } from '../../src/worker/detect/probes/probeGate';

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const hungIf = (value: string): boolean => value === 'hung';

describe('probes: ProbeGate', () => {
  let now: number;
  let gate: ProbeGate;

  beforeEach(() => {
    now = 1_000_000;
    gate = new ProbeGate({ backoffMs: 1_000, maxBackoffMs: 4_000, now: () => now });
  });

  it('shares one run between concurrent callers of a kind', async () => {
    let starts = 0;
    const done = deferred<string>();
    const task = (): Promise<string> => {
      starts++;
      return done.promise;
    };
    const first = gate.run('nvidia-smi', task, hungIf);
    const second = gate.run('nvidia-smi', task, hungIf);
    done.resolve('ok');
    assert.deepStrictEqual(await first, { status: 'ran', value: 'ok', shared: false });
    assert.deepStrictEqual(await second, { status: 'ran', value: 'ok', shared: true });
    assert.strictEqual(starts, 1);
    // Finished: the next call runs again.
    await gate.run('nvidia-smi', task, hungIf);
    assert.strictEqual(starts, 2);
  });

  it('runs different kinds side by side', async () => {
    let starts = 0;
    const task = async (): Promise<string> => {
      starts++;
      return 'ok';
    };
    await Promise.all([gate.run('nvidia-smi', task, hungIf), gate.run('torch:/usr/bin/python3', task, hungIf)]);
    assert.strictEqual(starts, 2);
  });

  it('backs off after a hang, doubling up to the maximum, and forgets after a good run', async () => {
    let result = 'hung';
    let starts = 0;
    const task = async (): Promise<string> => {
      starts++;
      return result;
    };
    await gate.run('nvidia-smi', task, hungIf);
    assert.deepStrictEqual(await gate.run('nvidia-smi', task, hungIf), { status: 'backing-off', value: 'hung', retryAt: now + 1_000 });
    assert.strictEqual(starts, 1);
    assert.strictEqual(gate.retryAt('nvidia-smi'), now + 1_000);

    now += 1_000;
    await gate.run('nvidia-smi', task, hungIf); // hangs again: 2 s
    assert.strictEqual(gate.retryAt('nvidia-smi'), now + 2_000);
    now += 2_000;
    await gate.run('nvidia-smi', task, hungIf); // 4 s
    now += 4_000;
    await gate.run('nvidia-smi', task, hungIf); // capped at 4 s
    assert.strictEqual(gate.retryAt('nvidia-smi'), now + 4_000);
    assert.strictEqual(starts, 4);

    now += 4_000;
    result = 'ok';
    await gate.run('nvidia-smi', task, hungIf);
    assert.strictEqual(gate.retryAt('nvidia-smi'), undefined);
    assert.strictEqual((await gate.run('nvidia-smi', task, hungIf)).status, 'ran');
  });

  it('lets one caller cancel without stopping the run another still waits for', async () => {
    const done = deferred<string>();
    let aborted = false;
    const task = (signal: AbortSignal): Promise<string> => {
      signal.addEventListener('abort', () => (aborted = true));
      return done.promise;
    };
    const impatient = new AbortController();
    const first = gate.run('nvidia-smi', task, hungIf, impatient.signal);
    const second = gate.run('nvidia-smi', task, hungIf);
    impatient.abort();
    await assert.rejects(first, CancelledError);
    assert.strictEqual(aborted, false);
    done.resolve('ok');
    assert.strictEqual((await second).value, 'ok');
  });

  it('aborts the run when every caller has cancelled, and starts afresh for the next', async () => {
    const done = deferred<string>();
    let aborted = false;
    let starts = 0;
    const task = (signal: AbortSignal): Promise<string> => {
      starts++;
      signal.addEventListener('abort', () => (aborted = true));
      return starts === 1 ? done.promise : Promise.resolve('fresh');
    };
    const a = new AbortController();
    const b = new AbortController();
    const first = gate.run('torch', task, hungIf, a.signal);
    const second = gate.run('torch', task, hungIf, b.signal);
    a.abort();
    b.abort();
    await assert.rejects(first, CancelledError);
    await assert.rejects(second, CancelledError);
    assert.strictEqual(aborted, true);
    assert.deepStrictEqual(await gate.run('torch', task, hungIf), { status: 'ran', value: 'fresh', shared: false });
    done.resolve('cancelled run ends late');
    await new Promise((r) => setImmediate(r));
    assert.strictEqual(starts, 2);
  });

  it('passes a failing task on to every caller and does not back off', async () => {
    const task = (): Promise<string> => Promise.reject(new Error('boom'));
    await assert.rejects(gate.run('amd-smi', task, hungIf), /boom/);
    assert.strictEqual(gate.retryAt('amd-smi'), undefined);
  });
});
