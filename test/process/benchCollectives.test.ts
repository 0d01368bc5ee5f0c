// Collectives over real torch.distributed (gloo on CPU processes, Debian's PyTorch): the
// launcher's ranks meeting through a private file store, with results checked and bandwidths
// reported for 2 and 4 ranks, a wrong result caught, a killed rank ending the whole run, the
// CLI's --json, and the same script under torchrun (and as srun starts it) over env://.
import * as assert from 'assert';
import { spawn, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';
import { parseCollectiveReport, type CollectiveReport } from '../../src/core/bench/collectives/report';
import { collectiveScriptArgs, MIB, type CollectiveRequest } from '../../src/core/bench/collectives/request';
import { launchRanks } from '../../src/worker/bench/collectives/launcher';
import { collectivesScriptPath, runCollectives } from '../../src/worker/bench/collectives/run';
import { isRunning } from './benchTorchKit';
import { buildDist, CLI_JS, DEBIAN_PYTHON, requireDebianTorch, ROOT, scenarioEnv, tempDir, waitFor } from './workerTestKit';

const SCRIPT = path.join(ROOT, 'src', 'worker', 'python', 'collectives.py');
const ALL = ['all-reduce', 'all-gather', 'broadcast', 'send-recv'] as const;

function request(over: Partial<CollectiveRequest> = {}): CollectiveRequest {
  return { collectives: [...ALL], device: 'cpu', worldSize: 2, minBytes: MIB, maxBytes: MIB, iters: 2, warmup: 1, timeoutSec: 60, ...over };
}

function assertMeasuredAndCorrect(report: CollectiveReport, worldSize: number, sizes: number[]): void {
  assert.strictEqual(report.backend, 'gloo');
  assert.strictEqual(report.worldSize, worldSize);
  assert.deepStrictEqual(report.results.map((r) => `${r.collective} ${r.bytes}`), ALL.flatMap((c) => sizes.map((s) => `${c} ${c === 'all-gather' ? Math.floor(s / 4 / worldSize) * 4 * worldSize : s}`)));
  for (const r of report.results) {
    assert.ok(r.correct, `${r.collective} ${r.bytes}: wrong on ranks ${r.wrongRanks}`);
    // Gloo over loopback on the 2 shared cores this was written on gave 0.08–1.9 GB/s at 1–2 MiB
    // (load average 4): ten times below the slowest is still a real transfer, and anything past
    // 100 GB/s is a unit slip, not a CPU copy.
    assert.ok(r.algBwGBps !== null && r.algBwGBps > 0.01 && r.algBwGBps < 100, `${r.collective} algbw ${r.algBwGBps} GB/s`);
    // nccl-tests' bus bandwidth factors.
    const factor = { 'all-reduce': (2 * (worldSize - 1)) / worldSize, 'all-gather': (worldSize - 1) / worldSize, broadcast: 1, 'send-recv': 1 }[r.collective as (typeof ALL)[number]];
    assert.ok(r.busBwGBps !== null && Math.abs(r.busBwGBps / r.algBwGBps - factor) < 1e-9, `${r.collective} busbw/algbw ${r.busBwGBps}/${r.algBwGBps}, expected ${factor}`);
    assert.strictEqual(r.timesSec.length, report.iters);
  }
}

/** A port free on 127.0.0.1 a moment ago, for torchrun's and srun's env:// rendezvous. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** The launcher's store folders now in the temporary folder. */
function storeFolders(): string[] {
  return fs.readdirSync(os.tmpdir()).filter((name) => name.startsWith('device-doctor-ranks-'));
}

describe('collectives over torch.distributed (gloo, real ranks)', function () {
  this.timeout(240_000);
  before(() => requireDebianTorch());

  it('2 ranks: every collective over a 1-2 MiB sweep is correct, with bandwidths, the same as the script computed', async () => {
    const outcome = await launchRanks({ python: DEBIAN_PYTHON, script: SCRIPT, args: collectiveScriptArgs(request({ maxBytes: 2 * MIB })), worldSize: 2, timeoutMs: 200_000 });
    assert.strictEqual(outcome.status, 'ok', JSON.stringify(outcome));
    if (outcome.status !== 'ok') return;
    const parsed = parseCollectiveReport(outcome.stdout);
    assert.ok(parsed.ok, JSON.stringify(parsed));
    assertMeasuredAndCorrect(parsed.report, 2, [MIB, 2 * MIB]);
    assert.strictEqual(parsed.report.launcher, 'device-doctor');
    // The script's own numbers (for torchrun users) and the core's formulas agree.
    const raw = JSON.parse(outcome.stdout) as { results: { busBwGBps: number; medianSec: number }[] };
    raw.results.forEach((r, i) => {
      assert.ok(Math.abs(r.medianSec - parsed.report.results[i].medianSec) < 1e-12);
      assert.ok(Math.abs(r.busBwGBps - (parsed.report.results[i].busBwGBps as number)) <= 1e-9 * r.busBwGBps, `${i}: ${r.busBwGBps}`);
    });
  });

  it('4 ranks: every collective at 1 MiB is correct, with bandwidths', async () => {
    const outcome = await runCollectives(request({ worldSize: 4 }), { python: DEBIAN_PYTHON, timeoutMs: 200_000 });
    assert.strictEqual(outcome.status, 'ok', JSON.stringify(outcome));
    if (outcome.status === 'ok') assertMeasuredAndCorrect(outcome.report, 4, [MIB]);
  });

  it('a rank whose result is altered is named as wrong', async () => {
    const outcome = await runCollectives(request({ collectives: ['all-reduce', 'send-recv'], iters: 1 }), { python: DEBIAN_PYTHON, timeoutMs: 200_000, corruptRank: 1 });
    assert.strictEqual(outcome.status, 'ok', JSON.stringify(outcome));
    if (outcome.status !== 'ok') return;
    assert.deepStrictEqual(outcome.report.results.map((r) => [r.collective, r.correct, r.wrongRanks]), [['all-reduce', false, [1]], ['send-recv', false, [1]]]);
  });

  it('a rank killed mid-run ends the run within 30 s, naming it, with no rank left running', async () => {
    const pids: number[] = [];
    const ready = new Set<number>();
    let killedAt = 0;
    const run = runCollectives(request({ collectives: ['all-reduce'], iters: 1000, maxBytes: MIB }), {
      python: DEBIAN_PYTHON,
      timeoutMs: 200_000,
      onRankStarted: (_rank, pid) => void (pid !== undefined && pids.push(pid)),
      onStderrLine: (rank, line) => void (/ready/.test(line) && ready.add(rank)),
    });
    await waitFor('both ranks in the group', () => ready.size === 2, 150_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    killedAt = Date.now();
    process.kill(pids[1], 'SIGKILL');
    const outcome = await run;
    const took = Date.now() - killedAt;
    assert.ok(took < 30_000, `took ${took} ms after the kill`);
    assert.strictEqual(outcome.status, 'failed');
    if (outcome.status !== 'failed') return;
    assert.strictEqual(outcome.reason, 'rank-failed');
    assert.match(outcome.message, /^rank 1 of 2 was killed by SIGKILL; the other ranks were stopped$/);
    assert.deepStrictEqual(pids.filter(isRunning), []);
  });

  it('the private store folder is removed after a failed run too', async () => {
    const before = storeFolders();
    const outcome = await launchRanks({ python: DEBIAN_PYTHON, script: SCRIPT, args: [...collectiveScriptArgs(request()), '--min-bytes', '0'], worldSize: 2, timeoutMs: 60_000 });
    assert.strictEqual(outcome.status, 'failed');
    assert.deepStrictEqual(storeFolders().filter((name) => !before.includes(name)), []);
  });
});

describe('cli: bench --collective, and the script under torchrun', function () {
  this.timeout(240_000);
  before(() => {
    requireDebianTorch();
    buildDist();
  });

  const keysOf = (report: Record<string, unknown>) => ({
    top: Object.keys(report).sort(),
    result: Object.keys((report.results as Record<string, unknown>[])[0]).sort(),
  });
  let cliReport: Record<string, unknown> | undefined;

  it('--master-port is refused with exit 2 before any rank starts: the ranks meet through a file, not a port', () => {
    const args = [CLI_JS, 'bench', '--collective', 'all-reduce', '--device', 'cpu', '--master-port', '29500', '--python', DEBIAN_PYTHON];
    const result = spawnSync(process.execPath, args, { env: scenarioEnv(undefined), encoding: 'utf8', timeout: 60_000 });
    assert.strictEqual(result.status, 2, result.stderr);
    assert.strictEqual(result.stderr, 'error: --master-port is no longer used: the ranks meet through a file in a private temporary folder, so no port is opened; leave it out\n');
  });

  it('device-doctor bench --collective all-reduce --world-size 2 --device cpu --json prints the checked report', () => {
    const args = [CLI_JS, 'bench', '--collective', 'all-reduce', '--world-size', '2', '--device', 'cpu', '--json', '--max-size', '1MiB', '--repeats', '2', '--python', DEBIAN_PYTHON];
    const result = spawnSync(process.execPath, args, { env: scenarioEnv(undefined), encoding: 'utf8', timeout: 200_000 });
    assert.strictEqual(result.status, 0, result.stderr);
    cliReport = JSON.parse(result.stdout) as Record<string, unknown>;
    const parsed = parseCollectiveReport(JSON.stringify(cliReport));
    assert.ok(parsed.ok, JSON.stringify(parsed));
    assert.deepStrictEqual(parsed.report.results.map((r) => [r.collective, r.bytes, r.correct]), [['all-reduce', MIB, true]]);
    assert.match(result.stderr, /^\[1\/1\] all-reduce 1 MiB measured$/m);
  });

  it('collectives.py under torchrun (python3 -m torch.distributed.run) gives a report of the same shape', async () => {
    assert.ok(cliReport, 'the CLI test above ran first');
    const dir = tempDir('dd-torchrun-');
    const output = path.join(dir, 'report.json');
    const port = await freePort();
    // Debian's torch 1.13 on Python 3.11 crashes at start with its default --redirects/--tee of 0.
    const launcher = ['-m', 'torch.distributed.run', '--nproc_per_node', '2', '--master_port', String(port), '--redirects', '1', '--tee', '2', '--log_dir', path.join(dir, 'logs')];
    const script = [collectivesScriptPath(path.join(ROOT, 'dist')), '--collective', 'all-reduce', '--device', 'cpu', '--max-bytes', String(MIB), '--iters', '2', '--output', output];
    const result = spawnSync(DEBIAN_PYTHON, [...launcher, ...script], { env: { ...scenarioEnv(undefined), OMP_NUM_THREADS: '1' }, encoding: 'utf8', timeout: 200_000 });
    assert.strictEqual(result.status, 0, result.stderr.slice(-3000));
    const text = fs.readFileSync(output, 'utf8');
    const parsed = parseCollectiveReport(text);
    assert.ok(parsed.ok, JSON.stringify(parsed));
    assert.strictEqual(parsed.report.launcher, 'torchrun');
    assert.deepStrictEqual(parsed.report.results.map((r) => [r.collective, r.bytes, r.correct]), [['all-reduce', MIB, true]]);
    assert.deepStrictEqual(keysOf(JSON.parse(text) as Record<string, unknown>), keysOf(cliReport));
  });

  it('collectives.py under srun reads Slurm\'s SLURM_PROCID/SLURM_NTASKS/SLURM_LOCALID when RANK is not set', async () => {
    assert.ok(cliReport, 'the CLI test above ran first');
    // srun starts one process per task with only Slurm's variables; the job script exports
    // MASTER_ADDR and MASTER_PORT. Two such processes, started here as srun would.
    const port = await freePort();
    const script = [collectivesScriptPath(path.join(ROOT, 'dist')), '--collective', 'all-reduce', '--device', 'cpu', '--max-bytes', String(MIB), '--iters', '2'];
    const base: NodeJS.ProcessEnv = { ...scenarioEnv(undefined), OMP_NUM_THREADS: '1', MASTER_ADDR: '127.0.0.1', MASTER_PORT: String(port), SLURM_NTASKS: '2' };
    delete base.RANK;
    delete base.WORLD_SIZE;
    const tasks = [0, 1].map((task) => new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
      const child = spawn(DEBIAN_PYTHON, script, { env: { ...base, SLURM_PROCID: String(task), SLURM_LOCALID: String(task) } });
      let out = '';
      let err = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (err += d));
      child.on('close', (code) => resolve({ code, out, err }));
    }));
    const [first, second] = await Promise.all(tasks);
    assert.strictEqual(first.code, 0, first.err.slice(-2000));
    assert.strictEqual(second.code, 0, second.err.slice(-2000));
    assert.strictEqual(second.out, '', 'only rank 0 prints the report');
    const parsed = parseCollectiveReport(first.out);
    assert.ok(parsed.ok, JSON.stringify(parsed));
    assert.strictEqual(parsed.report.launcher, 'srun');
    assert.strictEqual(parsed.report.worldSize, 2);
    assert.deepStrictEqual(parsed.report.results.map((r) => [r.collective, r.bytes, r.correct]), [['all-reduce', MIB, true]]);
    assert.deepStrictEqual(keysOf(JSON.parse(first.out) as Record<string, unknown>), keysOf(cliReport));
  });
});
