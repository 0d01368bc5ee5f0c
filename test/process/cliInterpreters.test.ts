// `doctor --python` and the interpreter list of `detect` and `doctor`, through the bundled
// dist/cli.js: with a python3 on PATH that has no torch (as in the issue), both name
// /usr/bin/python3 with its real (Debian, CPU-only) PyTorch and say how to use it; beside a
// fake NVIDIA GPU whose driver supports CUDA 12.4, the remedy is the exact pip command.
import * as assert from 'assert';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { buildDist, CLI_JS, DEBIAN_PYTHON, FAKE_BIN, requireDebianTorch, scenarioEnv, tempDir } from './workerTestKit';

function cli(args: string[], env: NodeJS.ProcessEnv, cwd: string) {
  const result = spawnSync(process.execPath, [CLI_JS, ...args], { env, cwd, encoding: 'utf8', timeout: 120_000 });
  return { status: result.status, out: result.stdout, err: result.stderr };
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe('cli: interpreters with PyTorch, and doctor --python', function () {
  this.timeout(180_000);
  let folder: string;
  let env: NodeJS.ProcessEnv;
  let version: string;

  before(() => {
    buildDist();
    version = requireDebianTorch().replace(/\+.*$/, '');
  });
  beforeEach(() => {
    folder = tempDir('dd-cli-interpreters-');
    // python3 on PATH: Debian's Python without its site-packages, so without torch.
    const bin = path.join(folder, 'bin');
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, 'python3'), `#!/bin/sh\nexec ${DEBIAN_PYTHON} -S "$@"\n`, { mode: 0o755 });
    env = { ...scenarioEnv(undefined), PATH: [bin, '/usr/bin', '/bin'].join(path.delimiter) };
  });
  afterEach(() => fs.rmSync(folder, { recursive: true, force: true }));

  it('detect: the PATH python3 has no torch; /usr/bin/python3 is listed with its torch and the command that uses it', () => {
    const { status, out, err } = cli(['detect'], env, folder);
    assert.strictEqual(status, 0, err);
    assert.match(out, new RegExp(`PyTorch    not usable with ${escape(path.join(folder, 'bin', 'python3'))}: No module named 'torch'`));
    assert.match(out, new RegExp(`\\nInterpreters with PyTorch\\n  ${escape(DEBIAN_PYTHON)} +torch ${escape(version)} · CPU-only · no GPU here +\\(system interpreter\\)\\n`), out);
    assert.match(out, new RegExp(`  Without PyTorch: ${escape(path.join(folder, 'bin', 'python3'))}\\n`));
    assert.ok(out.includes(`  To use ${DEBIAN_PYTHON}: device-doctor detect --python ${DEBIAN_PYTHON}\n`), out);
  });

  it('doctor --python /usr/bin/python3 is accepted, probes that interpreter and lists it with its torch', () => {
    const { status, out, err } = cli(['doctor', '--python', DEBIAN_PYTHON], env, folder);
    assert.strictEqual(status, 0, err);
    assert.strictEqual(err, '');
    assert.ok(out.includes(`  PyTorch  ${requireDebianTorch()} in ${DEBIAN_PYTHON}`), out);
    assert.match(out, new RegExp(`\\nInterpreters with PyTorch\\n  ${escape(DEBIAN_PYTHON)} +torch ${escape(version)} · CPU-only · no GPU here`), out);
    assert.ok(!out.includes('To use '), 'the chosen interpreter is already the one with torch');
    assert.match(out, /Quick benchmark .*\n {2}No accelerator selected: torch on the CPU/, 'the benchmark ran with that interpreter\'s torch');
  });

  it('doctor beside an NVIDIA GPU (driver CUDA 12.4): a CPU-only build gets the exact pip command for the cu124 wheels', () => {
    env.PATH = [path.join(FAKE_BIN, 'nvidia-two-gpus'), env.PATH].join(path.delimiter);
    const { status, out, err } = cli(['doctor', '--python', DEBIAN_PYTHON], env, folder);
    assert.strictEqual(status, 0, err);
    assert.ok(out.includes(`${DEBIAN_PYTHON} -m pip install --force-reinstall torch --index-url https://download.pytorch.org/whl/cu124`), out);
    assert.match(out, new RegExp(`  ${escape(DEBIAN_PYTHON)} +torch ${escape(version)} · CPU-only build beside an NVIDIA GPU`), out);
  });

  it('doctor still rejects an unknown option, naming it', () => {
    const { status, err } = cli(['doctor', '--pyton', DEBIAN_PYTHON], env, folder);
    assert.strictEqual(status, 2);
    assert.match(err, /unknown option '--pyton'/);
  });
});
