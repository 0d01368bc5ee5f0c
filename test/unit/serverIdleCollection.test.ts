// An idle analysis worker collects its garbage (idleCollection.ts): V8's memory reducer never
// shrank these workers' heaps. Timers of 0 ms; each test waits for the call it expects.
import * as assert from 'assert';
import { fullCollection, IdleCollection } from '../../src/server/idleCollection';

const MB = 1024 * 1024;

describe('server: a full collection once an analysis worker is idle', () => {
  it('collects after the idle delay when the heap grew, then not again until it grows once more', async () => {
    let heap = 100 * MB;
    let collections = 0;
    let fired!: () => void;
    let calls = 0;
    const idle = new IdleCollection(0, () => {
      collections++;
      return () => void calls++;
    }, () => {
      fired();
      return heap;
    });
    const timerFired = () => new Promise<void>((resolve) => (fired = resolve));
    let next = timerFired();
    idle.schedule();
    await next;
    assert.strictEqual(collections, 1);
    assert.strictEqual(calls, 3, 'three collections in a row compact the heap');
    heap += 4 * MB; // a keystroke's worth
    next = timerFired();
    idle.schedule();
    await next;
    assert.strictEqual(collections, 1, 'a little growth is not worth a collection');
    heap += 64 * MB;
    next = timerFired();
    idle.schedule();
    await next;
    assert.strictEqual(collections, 2);
  });

  it('does not collect when work arrives first', async () => {
    let collections = 0;
    const idle = new IdleCollection(0, () => () => void collections++, () => 1024 * MB);
    idle.schedule();
    idle.cancel();
    // A second timer scheduled after the first: by the time it fires, the first would have.
    await new Promise<void>((resolve) => new IdleCollection(0, () => resolve, () => 1024 * MB).schedule());
    assert.strictEqual(collections, 0);
  });

  it('has V8\'s full collection at hand without a flag at start', () => {
    assert.strictEqual(typeof fullCollection(), 'function');
  });
});
