// The one spawn helper every probe uses: no shell, exit codes and output as results,
// "not installed" for ENOENT, SIGKILL after the timeout, capped output, cancellation.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { NVIDIA_QUERY_ARGS } from '../../src/core/devices/nvidiaSmi';
import { runLineProcess } from '../../src/node/lineProcess';
import { runTool, startProcess } from '../../src/node/processRunner';
import { FAKE_BIN, isAlive, tempDir, waitFor } from './workerTestKit';

const SH = '/bin/sh';

describe('probes: runTool', function () {
  this.timeout(20_000);
  let tmp: string;

  beforeEach(() => {
    tmp = tempDir('dd-spawn-');
  });

  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('returns stdout, stderr and the exit code of a tool that fails', async () => {
    const run = await runTool(SH, ['-c', 'echo out; echo err >&2; exit 18'], { timeoutMs: 5_000 });
    assert.strictEqual(run.stdout, 'out\n');
    assert.strictEqual(run.stderr, 'err\n');
    assert.strictEqual(run.exitCode, 18);
    assert.strictEqual(run.errorCode, undefined);
    assert.strictEqual(run.truncated, false);
  });

  it('replays a recorded failure through a fake tool with its real exit code', async () => {
    const run = await runTool(path.join(FAKE_BIN, 'nvidia-version-mismatch', 'nvidia-smi'), ['--query-gpu=index'], { timeoutMs: 5_000 });
    assert.strictEqual(run.exitCode, 18);
    assert.match(run.stdout, /^Failed to initialize NVML: Driver\/library version mismatch/);
  });

  it('passes arguments as they are, never through a shell', async () => {
    const marker = path.join(tmp, 'pwned');
    const run = await runTool('printf', ['%s|', `; touch ${marker}`, `$(touch ${marker})`, '*'], { timeoutMs: 5_000 });
    assert.strictEqual(run.stdout, `; touch ${marker}|$(touch ${marker})|*|`);
    assert.ok(!fs.existsSync(marker));
  });

  it('answers ENOENT for a tool that is not installed, without throwing', async () => {
    const run = await runTool('device-doctor-no-such-tool', ['--version'], { timeoutMs: 5_000 });
    assert.strictEqual(run.errorCode, 'ENOENT');
    assert.strictEqual(run.exitCode, null);
    assert.strictEqual(run.stdout, '');
  });

  it('answers an error result, not an exception, for arguments spawn rejects outright', async () => {
    for (const [command, args] of [['', []], ['nvidia\0smi', []], ['sh', ['-c', 'a\0b']]] as const) {
      const run = await runTool(command, args, { timeoutMs: 5_000 });
      assert.strictEqual(run.errorCode, 'ERROR', JSON.stringify(command));
      assert.ok(run.errorMessage);
    }
  });

  it('answers EACCES for a file that is not executable', async () => {
    const file = path.join(tmp, 'nvidia-smi');
    fs.writeFileSync(file, '#!/bin/sh\necho hi\n', { mode: 0o644 });
    const run = await runTool(file, [], { timeoutMs: 5_000 });
    assert.strictEqual(run.errorCode, 'EACCES');
  });

  it('SIGKILLs a hung tool at the timeout, even one that ignores SIGTERM, and keeps what it printed', async () => {
    const pidFile = path.join(tmp, 'pid');
    const script = `trap '' TERM; echo $$ > ${pidFile}; echo started; while :; do sleep 1; done`;
    const started = Date.now();
    const run = await runTool(SH, ['-c', script], { timeoutMs: 400 });
    const elapsed = Date.now() - started;
    assert.strictEqual(run.errorCode, 'TIMEOUT');
    assert.strictEqual(run.timeoutMs, 400);
    assert.strictEqual(run.stdout, 'started\n');
    assert.ok(elapsed >= 400 && elapsed < 3_000, `settled after ${elapsed} ms`);
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    await waitFor('the hung tool to die', () => !isAlive(pid));
  });

  it('kills what the tool started too (its process group)', async () => {
    const pidFile = path.join(tmp, 'grandchild');
    const run = await runTool(SH, ['-c', `sleep 30 & echo $! > ${pidFile}; wait`], { timeoutMs: 300 });
    assert.strictEqual(run.errorCode, 'TIMEOUT');
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    await waitFor('the grandchild to die', () => !isAlive(pid));
  });

  it('caps the output and stops a tool that prints without end', async () => {
    const run = await runTool(SH, ['-c', 'while :; do echo 0123456789abcdef; done'], { timeoutMs: 5_000, maxOutputBytes: 1000 });
    assert.strictEqual(run.truncated, true);
    assert.deepStrictEqual([run.errorCode, run.outputLimitBytes], ['OUTPUT_TOO_LARGE', 1000], 'said as too much output, not as an exit');
    assert.strictEqual(Buffer.byteLength(run.stdout), 1000);
    assert.strictEqual(run.signal, 'SIGKILL');
    assert.ok(run.elapsedMs < 5_000);
  });

  it('keeps the signal a tool died of', async () => {
    const run = await runTool(SH, ['-c', 'kill -s SEGV $$'], { timeoutMs: 5_000 });
    assert.deepStrictEqual([run.exitCode, run.signal, run.errorCode], [null, 'SIGSEGV', undefined]);
  });

  it('stops the tool when its caller cancels', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const run = await runTool(SH, ['-c', 'sleep 30'], { timeoutMs: 10_000, signal: controller.signal });
    assert.strictEqual(run.errorCode, 'CANCELLED');
    assert.ok(run.elapsedMs < 5_000);
  });

  it('passes the environment it is given', async () => {
    const run = await runTool(SH, ['-c', 'echo "$CUDA_VISIBLE_DEVICES"'], { timeoutMs: 5_000, env: { CUDA_VISIBLE_DEVICES: '1,0' } });
    assert.strictEqual(run.stdout, '1,0\n');
  });
});

// PATH may hold an empty entry ("/usr/bin:/bin:") or a relative one ("."): both mean the current
// folder, which is the user's project. A bare name is looked up through findExecutable, which
// skips them; a relative path is refused; so a project's ./nvidia-smi never runs.
describe('probes: commands are found through the one PATH lookup', function () {
  this.timeout(20_000);
  let tmp: string;
  let project: string;
  let marker: string;
  let emptyBin: string;
  const cwd = process.cwd();

  beforeEach(() => {
    tmp = tempDir('dd-path-');
    project = path.join(tmp, 'project');
    emptyBin = path.join(tmp, 'empty-bin');
    fs.mkdirSync(project);
    fs.mkdirSync(emptyBin);
    marker = path.join(tmp, 'ran');
    // Shell built-ins only: the PATH under test has no folder with `touch` in it.
    fs.writeFileSync(path.join(project, 'nvidia-smi'), `#!/bin/sh\n: > "${marker}"\necho "0, GPU-11111111-2222-3333-4444-555555555550, Fake GPU, 00000000:01:00.0, 1, 0, 1, 0, 0, 0, 1"\n`, { mode: 0o755 });
    process.chdir(project);
  });

  afterEach(() => {
    process.chdir(cwd);
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  const unsafePath = (...dirs: string[]): string => [...dirs, '', '.', 'project'].join(path.delimiter);

  it('runTool never runs a tool from the current folder through an empty or relative PATH entry', async () => {
    for (const PATH of [unsafePath(emptyBin), `${path.delimiter}${emptyBin}`, `.${path.delimiter}${emptyBin}`]) {
      const run = await runTool('nvidia-smi', NVIDIA_QUERY_ARGS, { timeoutMs: 5_000, env: { PATH } });
      assert.strictEqual(run.errorCode, 'ENOENT', `PATH=${PATH}: ${run.stdout}`);
      assert.ok(!fs.existsSync(marker), `PATH=${PATH}: ./nvidia-smi ran`);
    }
  });

  it('startProcess and runLineProcess do not either', async () => {
    const started = startProcess('nvidia-smi', [], { env: { PATH: unsafePath(emptyBin) } });
    assert.strictEqual((await started.ended).errorCode, 'ENOENT');
    const end = await runLineProcess('nvidia-smi', [], { env: { PATH: unsafePath(emptyBin) }, firstLineTimeoutMs: 5_000, silenceTimeoutMs: 5_000, onLine: () => undefined });
    assert.deepStrictEqual([end.reason, end.errorCode], ['spawn-error', 'ENOENT']);
    assert.ok(!fs.existsSync(marker), './nvidia-smi ran');
  });

  it('refuses a relative path with a slash, and says why', async () => {
    for (const command of ['./nvidia-smi', path.join('..', 'project', 'nvidia-smi')]) {
      const run = await runTool(command, [], { timeoutMs: 5_000 });
      assert.strictEqual(run.errorCode, 'ERELATIVE', command);
      assert.match(run.errorMessage ?? '', /relative/, command);
    }
    assert.ok(!fs.existsSync(marker), 'a relative path ran');
  });

  it('still runs a bare name from an absolute PATH entry after the unsafe ones, and an absolute path as it is', async () => {
    const bin = path.join(tmp, 'bin');
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, 'nvidia-smi'), '#!/bin/sh\necho "from bin: $0"\n', { mode: 0o755 });
    const run = await runTool('nvidia-smi', [], { timeoutMs: 5_000, env: { PATH: unsafePath(emptyBin, bin) } });
    assert.strictEqual(run.stdout, `from bin: ${path.join(bin, 'nvidia-smi')}\n`);
    const direct = await runTool(path.join(project, 'nvidia-smi'), [], { timeoutMs: 5_000, env: { PATH: emptyBin } });
    assert.strictEqual(direct.exitCode, 0);
    assert.ok(fs.existsSync(marker), 'an absolute path is run as it is');
  });
});
