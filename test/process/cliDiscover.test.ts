// `detect` and `doctor` in a folder that supplies its own virtual environment, as a freshly
// cloned repository or a pull request in CI does: through the bundled dist/cli.js, the venv's
// bin/python (a script that leaves a marker file when it runs) is never run unless --discover
// asks for it, and the output names it and the flag.
import * as assert from 'assert';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { buildDist, CLI_JS, DEBIAN_PYTHON, scenarioEnv, tempDir } from './workerTestKit';

interface ClonedRepo {
  root: string;
  folder: string;
  venvPython: string;
  marker: string;
  env: NodeJS.ProcessEnv;
}

/** A repository folder with .venv/pyvenv.cfg and a bin/python that writes `marker`, then answers as Python without torch. */
function clonedRepo(): ClonedRepo {
  const root = tempDir('dd-cli-discover-');
  const folder = path.join(root, 'repo');
  const marker = path.join(root, 'venv-python-ran');
  const venvPython = path.join(folder, '.venv', 'bin', 'python');
  fs.mkdirSync(path.dirname(venvPython), { recursive: true });
  fs.writeFileSync(path.join(folder, '.venv', 'pyvenv.cfg'), 'home = /usr/bin\n');
  fs.writeFileSync(venvPython, `#!/bin/sh\necho ran >> '${marker}'\nexec ${DEBIAN_PYTHON} -S "$@"\n`, { mode: 0o755 });
  fs.writeFileSync(path.join(folder, 'train.py'), 'import torch\n');
  // python3 on PATH: the person's own, outside the repository.
  const bin = path.join(root, 'bin');
  fs.mkdirSync(bin);
  fs.writeFileSync(path.join(bin, 'python3'), `#!/bin/sh\nexec ${DEBIAN_PYTHON} -S "$@"\n`, { mode: 0o755 });
  const home = path.join(root, 'home');
  fs.mkdirSync(home);
  const env = { ...scenarioEnv(undefined, { HOME: home }), PATH: [bin, '/usr/bin', '/bin'].join(path.delimiter) };
  return { root, folder, venvPython, marker, env };
}

function cli(repo: ClonedRepo, args: string[]) {
  const result = spawnSync(process.execPath, [CLI_JS, ...args], { env: repo.env, cwd: repo.folder, encoding: 'utf8', timeout: 120_000 });
  assert.strictEqual(result.status, 0, `${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

describe("cli: a folder's own virtual environments run only with --discover", function () {
  this.timeout(300_000);
  let repo: ClonedRepo;

  before(() => buildDist());
  beforeEach(() => {
    repo = clonedRepo();
  });
  afterEach(() => fs.rmSync(repo.root, { recursive: true, force: true }));

  for (const command of ['detect', 'doctor']) {
    it(`${command} without --discover never runs the folder's .venv/bin/python, and names it with the flag that would`, () => {
      const out = cli(repo, [command]);
      assert.ok(!fs.existsSync(repo.marker), `${command} ran ${repo.venvPython}`);
      assert.ok(out.includes(`  Not probed, as they run this folder's code: ${repo.venvPython} (run 'device-doctor ${command} --discover' to include them)`), out);
    });

    it(`${command} --discover probes the folder's .venv/bin/python`, () => {
      const out = cli(repo, [command, '--discover']);
      assert.ok(fs.existsSync(repo.marker), `${command} --discover did not run ${repo.venvPython}`);
      assert.match(out, new RegExp(`  Without PyTorch: [^\\n]*${repo.venvPython.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`), out);
      assert.ok(!out.includes('--discover'), 'nothing left to opt in to');
    });
  }
});
