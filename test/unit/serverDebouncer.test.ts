import * as assert from 'assert';
import { Debouncer } from '../../src/server/debouncer';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('server: debouncing analysis', () => {
  let errors: unknown[];
  let debouncer: Debouncer;

  beforeEach(() => {
    errors = [];
    debouncer = new Debouncer((_key, error) => errors.push(error));
  });

  afterEach(() => debouncer.dispose());

  it('runs once after a burst of changes, with the last task', async () => {
    const runs: string[] = [];
    for (const text of ['i', 'im', 'imp']) debouncer.schedule('a.py', 20, async () => void runs.push(text));
    await sleep(60);
    assert.deepStrictEqual(runs, ['imp']);
  });

  it('keeps documents apart', async () => {
    const runs: string[] = [];
    debouncer.schedule('a.py', 10, async () => void runs.push('a'));
    debouncer.schedule('b.py', 10, async () => void runs.push('b'));
    await sleep(40);
    assert.deepStrictEqual(runs.sort(), ['a', 'b']);
  });

  it('flush runs a pending task at once and waits for it', async () => {
    const runs: string[] = [];
    debouncer.schedule('a.py', 10_000, async () => {
      await sleep(5);
      runs.push('a');
    });
    await debouncer.flush('a.py');
    assert.deepStrictEqual(runs, ['a']);
    await debouncer.flush('a.py');
    await debouncer.flush('never-scheduled.py');
    assert.deepStrictEqual(runs, ['a'], 'nothing pending: flush runs nothing');
  });

  it('flush waits for a run already in flight', async () => {
    let finished = false;
    debouncer.schedule('a.py', 0, async () => {
      await sleep(20);
      finished = true;
    });
    await sleep(5);
    await debouncer.flush('a.py');
    assert.ok(finished);
  });

  it('serializes runs of one document', async () => {
    const events: string[] = [];
    const task = (name: string) => async () => {
      events.push(`start ${name}`);
      await sleep(15);
      events.push(`end ${name}`);
    };
    debouncer.schedule('a.py', 0, task('1'));
    await sleep(5);
    debouncer.schedule('a.py', 0, task('2'));
    await sleep(50);
    assert.deepStrictEqual(events, ['start 1', 'end 1', 'start 2', 'end 2']);
  });

  it('says when a run is due while the previous one of the same document is still running', async () => {
    const superseded: string[] = [];
    const watched = new Debouncer((_key, error) => errors.push(error), (key) => superseded.push(key));
    let finishFirst = () => undefined as void;
    const firstRunning = new Promise<void>((started) => watched.schedule('a.py', 0, () => new Promise<void>((resolve) => {
      finishFirst = resolve;
      started();
    })));
    await firstRunning;
    watched.schedule('b.py', 0, async () => undefined);
    await watched.flush('b.py');
    let secondRan = false;
    watched.schedule('a.py', 0, async () => void (secondRan = true));
    const second = watched.flush('a.py');
    assert.deepStrictEqual(superseded, ['a.py'], 'told at once, before the first run ends');
    assert.strictEqual(secondRan, false, 'the second run still waits for the first');
    finishFirst();
    await second;
    assert.ok(secondRan);
    watched.dispose();
  });

  it('keeps at most one run waiting behind the one in flight: a later one replaces it', async () => {
    const runs: string[] = [];
    let finishFirst = () => undefined as void;
    await new Promise<void>((started) => debouncer.schedule('a.py', 0, () => new Promise<void>((resolve) => {
      runs.push('first');
      finishFirst = resolve;
      started();
    })));
    const waits: Array<Promise<void>> = [];
    for (const name of ['second', 'third', 'fourth']) {
      debouncer.schedule('a.py', 0, async () => void runs.push(name));
      waits.push(debouncer.flush('a.py'));
    }
    finishFirst();
    await Promise.all(waits);
    assert.deepStrictEqual(runs, ['first', 'fourth'], 'every flush waited for the run that replaced its own');
  });

  it('cancel forgets a pending run', async () => {
    let ran = false;
    debouncer.schedule('a.py', 10, async () => void (ran = true));
    debouncer.cancel('a.py');
    await sleep(30);
    assert.strictEqual(ran, false);
  });

  it('reports a task that throws and keeps working', async () => {
    debouncer.schedule('a.py', 0, async () => {
      throw new Error('boom');
    });
    await debouncer.flush('a.py');
    await sleep(5);
    assert.strictEqual((errors[0] as Error).message, 'boom');
    let ran = false;
    debouncer.schedule('a.py', 0, async () => void (ran = true));
    await debouncer.flush('a.py');
    assert.ok(ran);
  });
});
