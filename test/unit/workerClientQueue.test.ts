import * as assert from 'assert';
import { LifecycleQueue } from '../../src/vscode/shared/lifecycleQueue';

/** A restart step that records overlap and can be held open until released. */
function recordingStep() {
  let active = 0;
  let maxActive = 0;
  let runs = 0;
  const releases: Array<() => void> = [];
  const step = async () => {
    runs++;
    active++;
    maxActive = Math.max(maxActive, active);
    await new Promise<void>((resolve) => releases.push(resolve));
    active--;
  };
  const releaseNext = async () => {
    while (releases.length === 0) await new Promise((r) => setImmediate(r));
    releases.shift()!();
  };
  return { step, releaseNext, stats: () => ({ runs, maxActive }) };
}

describe('workerClient: the lifecycle queue', () => {
  it('queues one restart while another runs, however many are requested', async () => {
    const { step, releaseNext, stats } = recordingStep();
    const queue = new LifecycleQueue();
    const first = queue.restart(step);
    await new Promise((r) => setImmediate(r)); // the first restart is now running
    const later = [queue.restart(step), queue.restart(step), queue.restart(step)];
    assert.strictEqual(later[0], later[1], 'requests while one waits share it');
    assert.strictEqual(later[1], later[2]);
    await releaseNext();
    await first;
    await releaseNext();
    await Promise.all(later);
    assert.deepStrictEqual(stats(), { runs: 2, maxActive: 1 });
  });

  it('never runs start, stop and restart steps in parallel, and keeps their order', async () => {
    const queue = new LifecycleQueue();
    const order: string[] = [];
    let active = 0;
    const step = (name: string, ms: number) => async () => {
      assert.strictEqual(active, 0, `${name} started while another step ran`);
      active++;
      order.push(`${name}>`);
      await new Promise((r) => setTimeout(r, ms));
      order.push(`<${name}`);
      active--;
    };
    await Promise.all([queue.run(step('start', 15)), queue.restart(step('restart', 5)), queue.run(step('stop', 1))]);
    assert.deepStrictEqual(order, ['start>', '<start', 'restart>', '<restart', 'stop>', '<stop']);
  });

  it('keeps going after a failed step and reports the failure to its caller only', async () => {
    const queue = new LifecycleQueue();
    const failed = queue.run(async () => { throw new Error('fork failed'); });
    let ran = false;
    const next = queue.run(async () => { ran = true; });
    await assert.rejects(failed, /fork failed/);
    await next;
    assert.ok(ran);
  });

  it('a restart requested after the previous one started runs again', async () => {
    const queue = new LifecycleQueue();
    let runs = 0;
    await queue.restart(async () => { runs++; });
    await queue.restart(async () => { runs++; });
    assert.strictEqual(runs, 2);
  });
});
