// The worker's CollectiveBenchRequest through JSON-RPC, against the real dist/worker.js and
// Debian's PyTorch over gloo: the report with progress per measurement, an impossible request
// refused before any rank starts, and a cancel that ends the run with every rank stopped.
import * as assert from 'assert';
import { CancellationTokenSource, ResponseError } from 'vscode-jsonrpc/node';
import { CollectiveBenchRequest, CollectiveProgressNotification, type CollectiveBenchParams, type CollectiveProgressParams } from '../../src/protocol/collectives';
import { BENCH_INVALID } from '../../src/protocol/worker';
import * as fs from 'fs';
import { isRunning, processesMatching } from './benchTorchKit';
import { buildDist, DEBIAN_PYTHON, requireDebianTorch, scenarioEnv, waitFor, WorkerUnderTest } from './workerTestKit';

const MIB = 1024 * 1024;

/** collectives.py processes whose parent is the worker (other helpers' ranks are not ours). */
function ranksOf(parent: number): number[] {
  return processesMatching('collectives.py').filter((pid) => {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === parent;
    } catch {
      return false;
    }
  });
}
const base: CollectiveBenchParams = { pythonPath: DEBIAN_PYTHON, pinnedDevice: null, collectives: ['all-reduce'], device: 'cpu', worldSize: 2, minBytes: MIB, maxBytes: 2 * MIB, iters: 2 };

describe('worker: collective benchmarks over JSON-RPC (gloo, real ranks)', function () {
  this.timeout(180_000);
  let worker: WorkerUnderTest;
  let progress: CollectiveProgressParams[];

  before(() => {
    requireDebianTorch();
    buildDist();
  });
  beforeEach(() => {
    worker = new WorkerUnderTest(scenarioEnv(undefined, { PYTHONDONTWRITEBYTECODE: '1' }));
    progress = [];
    worker.connection.onNotification(CollectiveProgressNotification, (p) => {
      progress.push(p);
    });
  });
  afterEach(async () => worker.stop());

  it('answers the checked report of 2 CPU ranks, with one progress notification per size', async () => {
    const answer = await worker.connection.sendRequest(CollectiveBenchRequest, { ...base, runId: 'c1' });
    assert.strictEqual(answer.cancelled, false);
    assert.ok(answer.report);
    assert.deepStrictEqual(answer.report.results.map((r) => [r.collective, r.bytes, r.correct]), [['all-reduce', MIB, true], ['all-reduce', 2 * MIB, true]]);
    assert.ok(answer.report.results.every((r) => (r.busBwGBps ?? 0) > 0));
    assert.strictEqual(answer.report.launcher, 'device-doctor');
    assert.deepStrictEqual(progress.map((p) => `${p.runId} ${p.step}/${p.steps} ${p.collective} ${p.bytes}`), [`c1 1/2 all-reduce ${MIB}`, `c1 2/2 all-reduce ${2 * MIB}`]);
  });

  it('refuses one rank, and no interpreter, before any rank starts', async () => {
    for (const [params, message] of [[{ worldSize: 1 }, /at least two ranks/], [{ pythonPath: null }, /No Python interpreter may run here/]] as const) {
      const error = await worker.connection.sendRequest(CollectiveBenchRequest, { ...base, ...params }).then(() => assert.fail('accepted'), (e: unknown) => e);
      assert.ok(error instanceof ResponseError, String(error));
      assert.strictEqual(error.code, BENCH_INVALID);
      assert.match(error.message, message);
    }
    assert.deepStrictEqual(progress, []);
  });

  it('a cancel ends the run with every rank stopped', async () => {
    const source = new CancellationTokenSource();
    // Long enough to be cancelled mid-sweep: up to 64 MiB with many iterations.
    const answer = worker.connection.sendRequest(CollectiveBenchRequest, { ...base, maxBytes: 64 * MIB, iters: 50, runId: 'c2' }, source.token);
    await waitFor('the first size measured', () => progress.length > 0, 90_000);
    const ranks = ranksOf(worker.child.pid as number);
    assert.strictEqual(ranks.length, 2, 'both ranks run, children of the worker');
    source.cancel();
    const outcome = await answer.then((a) => a, (e: unknown) => e);
    // Cancelled: the worker's answer saying so, or the client's own cancellation error.
    assert.ok(outcome instanceof ResponseError || (outcome as { cancelled?: boolean }).cancelled === true, String(outcome));
    await waitFor('every rank stopped', () => ranks.every((pid) => !isRunning(pid)), 10_000);
  });
});
