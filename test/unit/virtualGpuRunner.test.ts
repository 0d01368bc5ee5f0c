// How the virtual-GPU runner is started: its arguments, which put the target's own arguments
// after `--` so that nothing the script takes is read as ours, and where virtual_gpu.py is.
import * as assert from 'assert';
import * as fs from 'fs';
import { runnerArgs, virtualGpuScriptPath, type VirtualRunOptions } from '../../src/node/virtualRun';

const base: VirtualRunOptions = { interpreter: '/usr/bin/python3', target: { script: '/p/train.py' }, args: ['--report', 'x'], virtual: 'cuda', devices: 2, cwd: '/p' };

describe('virtual GPU runner: its command line', () => {
  it('passes the machine, the limits and the target, then the script\'s own arguments after --', () => {
    assert.deepStrictEqual(runnerArgs({ ...base, steps: 5, timeSeconds: 30 }, '/tmp/r.json', 'vg.py'), [
      'vg.py', '--report', '/tmp/r.json', '--virtual', 'cuda', '--devices', '2', '--root', '/p', '--steps', '5', '--time', '30', '/p/train.py', '--', '--report', 'x',
    ]);
  });

  it('names a module or a notebook with their own options, and leaves out limits not given', () => {
    assert.deepStrictEqual(runnerArgs({ ...base, target: { module: 'pkg.train' }, args: [] }, 'r', 'vg.py').slice(9), ['--module', 'pkg.train', '--']);
    assert.deepStrictEqual(runnerArgs({ ...base, target: { notebook: '/p/a.ipynb' }, args: [] }, 'r', 'vg.py').slice(9), ['--notebook', '/p/a.ipynb', '--']);
  });

  it('finds virtual_gpu.py from the source tree (and beside the bundle once built)', () => {
    const script = virtualGpuScriptPath();
    assert.ok(fs.existsSync(script), script);
    assert.match(script, /virtual_gpu\.py$/);
  });
});
