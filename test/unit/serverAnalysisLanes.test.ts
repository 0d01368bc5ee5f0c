// The two analysis lanes and the dropping of stale queued analyses, with a stand-in worker
// thread that holds an analysis of a text containing "HOLD" until the test lets it go (a
// SharedArrayBuffer, so no timing is involved): a small document is analysed on the other
// lane meanwhile; a document is analysed where its tree is; a larger one waits for its tree
// rather than be parsed afresh; a stale queued analysis is dropped with its changes kept; and
// a stale running one is stopped only when it is a whole analysis that loses no larger tree.
import * as assert from 'assert';
import { Worker } from 'worker_threads';
import type { Finding } from '../../src/core/analysis';
import { AnalysisLanes } from '../../src/server/analysisLanes';
import { AnalysisCancelledError, WorkerAnalyzer } from '../../src/server/workerAnalyzer';

/** Echoes the text, the number of changes sent and whether this worker held the document; blocks on "HOLD" until released. */
const STAND_IN = `
const { parentPort, workerData, threadId } = require('worker_threads');
const gate = new Int32Array(workerData);
const held = new Set();
parentPort.on('message', (m) => {
  if (m.kind === 'release') { held.delete(m.uri); return; }
  const text = m.kind === 'file' ? m.text : m.cells.join('|');
  if (text.includes('HOLD')) { Atomics.add(gate, 1, 1); Atomics.notify(gate, 1); Atomics.wait(gate, 0, 0); }
  const message = JSON.stringify({ text: text.slice(0, 20), changes: m.kind === 'file' ? m.changes.length : 0, held: held.has(m.uri), thread: threadId });
  held.add(m.uri);
  const finding = { code: 'DD003', message, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } }, severity: 'warning', related: [], fixes: [] };
  parentPort.postMessage({ kind: m.kind, id: m.id, findings: [m.kind === 'file' ? finding : { cellIndex: 0, finding }] });
});
`;

const OPTIONS = { noqa: true };

interface Echo {
  text: string;
  changes: number;
  held: boolean;
  thread: number;
}

const echoed = (findings: Finding[]) => JSON.parse(findings[0].message) as Echo;

/** Node has Atomics.waitAsync; the TypeScript lib this project targets does not declare it yet. */
const waitAsync = (Atomics as unknown as { waitAsync(array: Int32Array, index: number, value: number): { value: Promise<string> | string } }).waitAsync;

/** [0]: 0 while held analyses block, 1 once released; [1]: how many analyses reached the hold. */
class Gate {
  readonly buffer = new SharedArrayBuffer(8);
  private readonly cells = new Int32Array(this.buffer);

  /** Resolves once `count` analyses in all are blocked at the gate. */
  async reached(count: number): Promise<void> {
    for (;;) {
      const now = Atomics.load(this.cells, 1);
      if (now >= count) return;
      await waitAsync(this.cells, 1, now).value;
    }
  }

  open(): void {
    Atomics.store(this.cells, 0, 1);
    Atomics.notify(this.cells, 0);
  }
}

function standIns(gate: Gate) {
  let started = 0;
  const spawn = () => new Worker(STAND_IN, { eval: true, workerData: gate.buffer });
  return { spawn, events: { started: () => void started++ }, started: () => started };
}

describe('server: two analysis lanes (AnalysisLanes)', () => {
  let gate: Gate;

  beforeEach(() => {
    gate = new Gate();
  });

  afterEach(() => gate.open());

  it('analyses a small file on the second lane while the first is held by a long analysis', async () => {
    const { spawn, events, started } = standIns(gate);
    const lanes = new AnalysisLanes(spawn, events);
    try {
      const order: string[] = [];
      const long = lanes.analyze('big.py', `HOLD ${'x'.repeat(10_000)}`, OPTIONS).then((f) => (order.push('big'), echoed(f)));
      await gate.reached(1);
      const small = echoed(await lanes.analyze('small.py', 'y = 1\n', OPTIONS));
      order.push('small');
      assert.strictEqual(started(), 2, 'the second worker starts when the first is taken');
      const notebook = await lanes.analyzeNotebook(['a = 1', 'b = 2'], OPTIONS, 'nb.ipynb');
      assert.strictEqual(JSON.parse(notebook[0].finding.message).thread, small.thread, 'a notebook too');
      gate.open();
      assert.notStrictEqual((await long).thread, small.thread);
      assert.deepStrictEqual(order, ['small', 'big']);
      assert.strictEqual(lanes.busy, 0);
    } finally {
      lanes.dispose();
    }
  });

  it('analyses a document where its tree is, with its changes, when that lane is free', async () => {
    const { spawn, events, started } = standIns(gate);
    const lanes = new AnalysisLanes(spawn, events);
    try {
      const first = echoed(await lanes.analyze('a.py', 'x = 1\n', OPTIONS));
      lanes.recordChanges('a.py', [{ text: 'x = 2\n' }]);
      const second = echoed(await lanes.analyze('a.py', 'x = 2\n', OPTIONS));
      assert.deepStrictEqual([second.held, second.changes, second.thread], [true, 1, first.thread]);
      assert.strictEqual(started(), 1, 'one worker while one is enough');
    } finally {
      lanes.dispose();
    }
  });

  it('keeps a large document on its own lane behind a smaller analysis; a small one moves to the free lane', async () => {
    const { spawn, events } = standIns(gate);
    const lanes = new AnalysisLanes(spawn, events);
    try {
      const large = 'y = 2\n'.repeat(2000);
      const home = echoed(await lanes.analyze('large.py', large, OPTIONS)).thread;
      const small = echoed(await lanes.analyze('small.py', 'z = 3\n', OPTIONS));
      assert.strictEqual(small.thread, home, 'both on the first lane while it is free');
      const holding = lanes.analyze('holding.py', 'HOLD', OPTIONS);
      await gate.reached(1);
      // The large document would be parsed afresh on the free lane: it waits for its tree.
      const largeAgain = lanes.analyze('large.py', large, OPTIONS);
      // The small one is smaller than what it would wait for: it moves, and is parsed afresh.
      const moved = echoed(await lanes.analyze('small.py', 'z = 4\n', OPTIONS));
      assert.notStrictEqual(moved.thread, home);
      assert.strictEqual(moved.held, false);
      gate.open();
      assert.strictEqual(echoed(await holding).thread, home);
      const kept = echoed(await largeAgain);
      assert.deepStrictEqual([kept.thread, kept.held], [home, true]);
    } finally {
      lanes.dispose();
    }
  });

  it('stops a stale whole analysis with its worker; the newer one runs on a fresh worker, to its end', async () => {
    let started = 0;
    const analyzer = new WorkerAnalyzer(() => new Worker(STAND_IN, { eval: true, workerData: gate.buffer }), { started: () => void started++ }, { stopStaleAfterMs: 0 });
    try {
      const first = analyzer.analyze('big.py', 'HOLD the first, whole analysis', OPTIONS);
      await gate.reached(1);
      analyzer.supersede('other.py');
      analyzer.supersede('big.py');
      await assert.rejects(first, (error: unknown) => error instanceof AnalysisCancelledError && error.uri === 'big.py');
      // The fresh worker parses it afresh; this whole analysis builds the tree, so it is not stopped.
      const second = analyzer.analyze('big.py', 'HOLD the second', OPTIONS);
      await gate.reached(2);
      analyzer.supersede('big.py');
      gate.open();
      const echo = echoed(await second);
      assert.deepStrictEqual([echo.text, echo.held, started], ['HOLD the second', false, 2]);
    } finally {
      analyzer.dispose();
    }
  });

  it('leaves a stale incremental analysis to finish: stopping it would lose the tree that makes the next one cheap', async () => {
    let started = 0;
    const analyzer = new WorkerAnalyzer(() => new Worker(STAND_IN, { eval: true, workerData: gate.buffer }), { started: () => void started++ }, { stopStaleAfterMs: 0 });
    try {
      await analyzer.analyze('big.py', 'x = 1\n', OPTIONS);
      const incremental = analyzer.analyze('big.py', 'HOLD x = 2\n', OPTIONS);
      await gate.reached(1);
      analyzer.supersede('big.py');
      gate.open();
      assert.deepStrictEqual([echoed(await incremental).held, started], [true, 1]);
    } finally {
      analyzer.dispose();
    }
  });

  it('does not stop a whole analysis whose worker holds larger trees of other documents', async () => {
    let started = 0;
    const analyzer = new WorkerAnalyzer(() => new Worker(STAND_IN, { eval: true, workerData: gate.buffer }), { started: () => void started++ }, { stopStaleAfterMs: 0 });
    try {
      await analyzer.analyze('large.py', 'y = 1\n'.repeat(1000), OPTIONS);
      const whole = analyzer.analyze('new.py', 'HOLD', OPTIONS);
      await gate.reached(1);
      analyzer.supersede('new.py');
      gate.open();
      await whole;
      assert.strictEqual(started, 1);
    } finally {
      analyzer.dispose();
    }
  });

  it('drops a stale analysis that waits to run and sends its changes with the next one', async () => {
    const analyzer = new WorkerAnalyzer(() => new Worker(STAND_IN, { eval: true, workerData: gate.buffer }));
    try {
      await analyzer.analyze('a.py', 'x = 1\n', OPTIONS);
      const holding = analyzer.analyze('other.py', 'HOLD', OPTIONS);
      await gate.reached(1);
      analyzer.recordChanges('a.py', [{ text: 'x = 2\n' }]);
      const stale = analyzer.analyze('a.py', 'x = 2\n', OPTIONS);
      analyzer.recordChanges('a.py', [{ text: 'x = 3\n' }]);
      analyzer.cancelQueued('a.py');
      await assert.rejects(stale, (error: unknown) => error instanceof AnalysisCancelledError && error.uri === 'a.py');
      const fresh = analyzer.analyze('a.py', 'x = 3\n', OPTIONS);
      assert.strictEqual(analyzer.busy, 2, 'the running analysis and the fresh one');
      analyzer.cancelQueued('other.py');
      gate.open();
      await holding;
      assert.deepStrictEqual(echoed(await fresh), { text: 'x = 3\n', changes: 2, held: true, thread: echoed(await holding).thread });
    } finally {
      analyzer.dispose();
    }
  });
});
