// The CLI runs its tools itself (no worker), so nobody is left to reap them when it is killed
// with SIGKILL: the scripts Device Doctor ships stop on their own when their parent dies
// (probe.py's exit_with_parent). A fake torch whose import hangs keeps each script running
// until then.
import * as assert from 'assert';
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { isRunning } from './benchTorchKit';
import { buildDist, CLI_JS, DEBIAN_PYTHON, ROOT, scenarioEnv, tempDir, waitFor } from './workerTestKit';

const FAKE_TORCH = path.join(ROOT, 'test', 'fixtures', 'torch', 'import-hangs-on-cue');
/** Linux's parent-death signal is immediate; the fallback thread looks every 0.5 s. */
const REAP_BOUND_MS = 5_000;

function pidsOf(file: string, script: string): number[] {
  if (!fs.existsSync(file)) return [];
  return fs.readFileSync(file, 'utf8').split('\n').filter((line) => line.endsWith(` ${script}`)).map((line) => Number(line.split(' ')[0]));
}

/** Starts the CLI, kills it once `count` of `script` are in their import, and returns those still running after REAP_BOUND_MS. */
async function killCliAndWatch(args: string[], script: string, count: number): Promise<number[]> {
  const dir = tempDir('dd-killed-cli-');
  const starts = path.join(dir, 'torch.starts');
  const hang = path.join(dir, 'hang-now');
  fs.writeFileSync(hang, '');
  const env = scenarioEnv(undefined, { PYTHONPATH: FAKE_TORCH, DD_FAKE_TORCH_STARTS: starts, DD_FAKE_TORCH_HANG: hang });
  const cli = spawn(process.execPath, [CLI_JS, ...args], { env, stdio: 'ignore' });
  const exited = new Promise((resolve) => cli.once('exit', resolve));
  let pids: number[] = [];
  try {
    pids = await waitFor(`${count} ${script} in its import`, () => {
      const found = pidsOf(starts, script);
      return found.length >= count && found;
    }, 60_000);
  } finally {
    cli.kill('SIGKILL');
    await exited;
  }
  await waitFor(`every ${script} to be gone`, () => !pids.some(isRunning), REAP_BOUND_MS).catch(() => undefined);
  const survivors = pids.filter(isRunning);
  for (const pid of survivors) process.kill(pid, 'SIGKILL');
  return survivors;
}

describe('cli killed with SIGKILL: the Python it started does not survive it', function () {
  this.timeout(120_000);
  before(() => buildDist());

  it('probe.py of `detect --python` stops within 5 s of the CLI being killed', async () => {
    const survivors = await killCliAndWatch(['detect', '--python', DEBIAN_PYTHON], 'probe.py', 1);
    assert.deepStrictEqual(survivors, [], 'probe.py still running');
  });

  it('both collective ranks of `bench --collective` stop within 5 s of the CLI being killed', async () => {
    const args = ['bench', '--collective', 'all-reduce', '--world-size', '2', '--device', 'cpu', '--max-size', '1MiB', '--python', DEBIAN_PYTHON];
    const survivors = await killCliAndWatch(args, 'collectives.py', 2);
    assert.deepStrictEqual(survivors, [], 'ranks still running');
  });
});
