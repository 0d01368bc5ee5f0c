// probe.py's exit_with_parent, which probe.py, bench.py and collectives.py call first: armed
// only for Device Doctor's own children (DEVICE_DOCTOR_PARENT_PID is the parent), ending the
// script when that parent dies, through Linux's parent-death signal or, elsewhere, a thread
// that watches the parent pid. A shell stands in for the parent and exits after starting it.
import * as assert from 'assert';
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { isRunning } from './benchTorchKit';
import { DEBIAN_PYTHON, ROOT, tempDir, waitFor } from './workerTestKit';

const PYTHON_DIR = path.join(ROOT, 'src', 'worker', 'python');

/**
 * Starts `python -c` from a shell that gives it DEVICE_DOCTOR_PARENT_PID (the shell's own pid,
 * or `claimed`); once the script has written its pid to a file (armed, or not, by then) the
 * shell exits. Resolves with the script's pid once the shell is gone.
 */
async function orphan(setup: string, claimed?: string): Promise<number> {
  const ready = path.join(tempDir('dd-exit-with-parent-'), 'ready');
  const code = [
    'import os, sys, time',
    "sys.path.insert(0, '.')",
    'import probe',
    setup,
    'probe.exit_with_parent()',
    // Written whole, then renamed: open() makes the file before the pid is in it.
    `open(${JSON.stringify(ready + '.part')}, 'w').write(str(os.getpid()))`,
    `os.replace(${JSON.stringify(ready + '.part')}, ${JSON.stringify(ready)})`,
    'time.sleep(30)',
  ].join('\n');
  const shell = spawn('/bin/sh', ['-c', `DEVICE_DOCTOR_PARENT_PID=${claimed ?? '$$'} "$0" -c "$1" </dev/null >/dev/null 2>&1 & read -r _go`, DEBIAN_PYTHON, code], {
    cwd: PYTHON_DIR,
    stdio: ['pipe', 'ignore', 'inherit'],
  });
  const exited = new Promise((resolve) => shell.once('exit', resolve));
  const pid = await waitFor('the script to start', () => {
    const written = fs.existsSync(ready) ? Number(fs.readFileSync(ready, 'utf8')) : 0;
    return written > 0 && written;
  }, 20_000);
  shell.stdin.end('\n');
  await exited;
  return pid;
}

/** Waits up to `ms` for the process to be gone; kills it if it is not, and says whether it went by itself. */
async function goneWithin(pid: number, ms: number): Promise<boolean> {
  const gone = await waitFor('the script to be gone', () => !isRunning(pid), ms).then(() => true, () => false);
  if (!gone) process.kill(pid, 'SIGKILL');
  return gone;
}

describe('python scripts: exit_with_parent', function () {
  this.timeout(60_000);

  it('on Linux, the script is killed as soon as the Device Doctor process that started it dies', async () => {
    const pid = await orphan('');
    assert.ok(await goneWithin(pid, 1_000), 'still running 1 s after its parent died');
  });

  it('without the parent-death signal (macOS), the watching thread ends it within a couple of seconds', async () => {
    const pid = await orphan("sys.platform = 'darwin'");
    assert.ok(await goneWithin(pid, 2_000), 'still running 2 s after its parent died');
  });

  it('started by someone else (torchrun, srun, a terminal), the script keeps running when that parent dies', async () => {
    const pid = await orphan('', '1');
    // Proving that nothing happens needs a wait: long enough for the signal and for three
    // looks of the thread, had either been armed.
    assert.strictEqual(await goneWithin(pid, 1_600), false, 'a script whose parent is not Device Doctor was stopped');
  });
});
