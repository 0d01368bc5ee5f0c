// Interpreter discovery in the forked worker, on a fake tree: a venv in the workspace (a
// pyvenv.cfg and a bin/python that answers with a fake CUDA torch), a conda env listed by a fake
// `conda env list --json` and one only in ~/.conda/environments.txt, a python3 on PATH, and the
// system /usr/bin/python3 (Debian's real torch). Every fake interpreter appends to a marker file
// when it runs, which is how Restricted Mode is proved to run none inside the workspace.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import type { DiscoveredInterpreter } from '../../src/core/interpreters/model';
import { interpreterCapability } from '../../src/core/interpreters/capability';
import { InterpretersRequest, type InterpretersParams, type InterpretersResponse } from '../../src/protocol/interpreters';
import { buildDist, DEBIAN_PYTHON, FAKE_BIN, FAKE_TORCH, requireDebianTorch, scenarioEnv, tempDir, WorkerUnderTest } from './workerTestKit';

interface FakeTree {
  root: string;
  workspace: string;
  venvPython: string;
  condaListed: string;
  condaTxt: string;
  pathPython: string;
  namedBySetting: string;
  markers: string;
  env: NodeJS.ProcessEnv;
}

/** An executable sh script that records `name` in the marker file, then runs the real Python. */
function fakePython(file: string, name: string, markers: string, python: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `#!/bin/sh\necho ${name} >> '${markers}'\n${python} "$@"\n`, { mode: 0o755 });
}

function makeTree(): FakeTree {
  const root = tempDir('dd-interpreters-');
  const markers = path.join(root, 'ran.txt');
  const workspace = path.join(root, 'project');
  const home = path.join(root, 'home');
  const bin = path.join(root, 'bin');
  // A CUDA torch (the fake) in the venv; no torch at all (-S: no site-packages) in the conda envs.
  const cudaTorch = `PYTHONPATH='${path.join(FAKE_TORCH, 'cuda-two-devices')}' exec ${DEBIAN_PYTHON}`;
  const noTorch = `exec ${DEBIAN_PYTHON} -S`;
  fs.mkdirSync(path.join(workspace, '.venv'), { recursive: true });
  fs.writeFileSync(path.join(workspace, '.venv', 'pyvenv.cfg'), 'home = /usr/bin\n');
  const venvPython = path.join(workspace, '.venv', 'bin', 'python');
  fakePython(venvPython, 'venv', markers, cudaTorch);
  // Deeper than discovery looks, and inside node_modules: never found.
  fs.mkdirSync(path.join(workspace, 'node_modules', 'pkg', 'env'), { recursive: true });
  fs.writeFileSync(path.join(workspace, 'node_modules', 'pkg', 'env', 'pyvenv.cfg'), '');
  fakePython(path.join(workspace, 'node_modules', 'pkg', 'env', 'bin', 'python'), 'node_modules', markers, noTorch);
  const condaListed = path.join(root, 'conda', 'envs', 'listed', 'bin', 'python');
  fakePython(condaListed, 'conda-listed', markers, noTorch);
  const condaTxt = path.join(root, 'elsewhere', 'txtenv', 'bin', 'python');
  fakePython(condaTxt, 'conda-txt', markers, noTorch);
  fs.mkdirSync(path.join(home, '.conda'), { recursive: true });
  fs.writeFileSync(path.join(home, '.conda', 'environments.txt'), `${path.dirname(path.dirname(condaTxt))}\n`);
  fs.mkdirSync(bin, { recursive: true });
  fs.writeFileSync(path.join(bin, 'conda'), `#!/bin/sh\necho conda >> '${markers}'\necho '{"envs": ["${path.dirname(path.dirname(condaListed))}"]}'\n`, { mode: 0o755 });
  const pathPython = path.join(bin, 'python3');
  fakePython(pathPython, 'path', markers, noTorch);
  const namedBySetting = path.join(root, 'named', 'python');
  fakePython(namedBySetting, 'setting', markers, noTorch);
  const env = scenarioEnv('nvidia-two-gpus', { HOME: home });
  env.PATH = [bin, path.join(FAKE_BIN, 'nvidia-two-gpus'), '/usr/bin', '/bin'].join(path.delimiter);
  return { root, workspace, venvPython, condaListed, condaTxt, pathPython, namedBySetting, markers, env };
}

function ran(tree: FakeTree): string[] {
  return fs.existsSync(tree.markers) ? fs.readFileSync(tree.markers, 'utf8').split('\n').filter(Boolean).sort() : [];
}

function byPath(response: InterpretersResponse, file: string): DiscoveredInterpreter {
  const found = response.interpreters.find((i) => i.path === file);
  assert.ok(found, `${file} listed; got ${response.interpreters.map((i) => i.path).join(', ')}`);
  return found;
}

describe('worker: interpreter discovery on a fake tree', function () {
  this.timeout(120_000);
  let worker: WorkerUnderTest | undefined;
  let tree: FakeTree;

  before(() => {
    buildDist();
    requireDebianTorch();
  });
  beforeEach(() => {
    tree = makeTree();
  });
  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
    fs.rmSync(tree.root, { recursive: true, force: true });
  });

  function ask(params: Partial<InterpretersParams>): Promise<InterpretersResponse> {
    worker = new WorkerUnderTest(tree.env);
    return worker.connection.sendRequest(InterpretersRequest, { workspaceFolders: [tree.workspace], trusted: true, known: [], timeoutMs: 60_000, ...params });
  }

  it('trusted: finds the venv, both conda envs, PATH and the system interpreter, and probes each once', async () => {
    const response = await ask({ known: [{ path: tree.namedBySetting, origins: ['setting'] }] });
    assert.deepStrictEqual(byPath(response, tree.venvPython).origins, ['venv']);
    assert.deepStrictEqual(byPath(response, tree.condaListed).origins, ['conda']);
    assert.strictEqual(byPath(response, tree.condaListed).environmentName, 'listed');
    assert.deepStrictEqual(byPath(response, tree.condaTxt).origins, ['conda']);
    assert.deepStrictEqual(byPath(response, tree.pathPython).origins, ['path']);
    assert.deepStrictEqual(byPath(response, DEBIAN_PYTHON).origins, ['system']);
    assert.ok(!response.interpreters.some((i) => i.path.includes('node_modules')), 'node_modules is not searched');
    // Each fake ran exactly once (one probe), and conda was asked for its list.
    assert.deepStrictEqual(ran(tree), ['conda', 'conda-listed', 'conda-txt', 'path', 'setting', 'venv']);

    const accelerators = response.accelerators;
    assert.strictEqual(accelerators.length, 2, 'the fake nvidia-smi\'s two GPUs');
    assert.strictEqual(interpreterCapability(byPath(response, tree.venvPython), accelerators).label, 'torch 2.5.1 · CUDA 12.4 · can use cuda:0');
    assert.strictEqual(interpreterCapability(byPath(response, tree.condaListed), accelerators).label, 'no PyTorch');
    assert.strictEqual(interpreterCapability(byPath(response, DEBIAN_PYTHON), accelerators).kind, 'cpu-only-beside-gpu');
  });

  it('asked again, answers from its cache by path and mtime; touching an interpreter probes it again', async () => {
    await ask({});
    const first = ran(tree).length;
    const again = await worker!.connection.sendRequest(InterpretersRequest, { workspaceFolders: [tree.workspace], trusted: true, known: [], timeoutMs: 60_000 });
    const cached = byPath(again, tree.venvPython).torch;
    assert.ok(cached !== null && 'version' in cached && cached.version === '2.5.1+cu124', 'the cached answer is the probe\'s');
    assert.deepStrictEqual(ran(tree).filter((r) => r !== 'conda').length, first - 1, 'no interpreter ran a second time');
    const later = new Date(Date.now() + 5_000);
    fs.utimesSync(tree.venvPython, later, later);
    await worker!.connection.sendRequest(InterpretersRequest, { workspaceFolders: [tree.workspace], trusted: true, known: [], timeoutMs: 60_000 });
    assert.strictEqual(ran(tree).filter((r) => r === 'venv').length, 2, 'the touched venv was probed again');
  });

  it('Restricted Mode: lists the workspace venv and the interpreter a workspace setting names as "not probed: untrusted", and runs neither', async () => {
    const response = await ask({ trusted: false, known: [{ path: tree.namedBySetting, origins: ['setting'], namedByWorkspace: true }] });
    for (const file of [tree.venvPython, tree.namedBySetting]) {
      const listed = byPath(response, file);
      assert.strictEqual(listed.notProbed, 'untrusted');
      assert.strictEqual(listed.torch, null);
      assert.strictEqual(interpreterCapability(listed, response.accelerators).label, 'not probed: untrusted');
    }
    // What lives outside the workspace still is probed; the workspace's own never ran.
    assert.deepStrictEqual(ran(tree), ['conda', 'conda-listed', 'conda-txt', 'path']);
    assert.ok(byPath(response, DEBIAN_PYTHON).torch !== null);
  });

  it('Restricted Mode: a `..venv` folder is inside the workspace; its interpreter is listed "not probed: untrusted" and never runs', async () => {
    const dotted = path.join(tree.workspace, '..venv');
    fs.mkdirSync(dotted);
    fs.writeFileSync(path.join(dotted, 'pyvenv.cfg'), 'home = /usr/bin\n');
    const dottedPython = path.join(dotted, 'bin', 'python');
    fakePython(dottedPython, 'dotted-venv', tree.markers, `exec ${DEBIAN_PYTHON} -S`);
    const response = await ask({ trusted: false });
    assert.strictEqual(byPath(response, dottedPython).notProbed, 'untrusted');
    assert.ok(!ran(tree).includes('dotted-venv'), `ran: ${ran(tree).join(', ')}`);
  });

  it('Restricted Mode: a workspace opened through a symlink does not run an interpreter of its own that PATH reaches by its real path', async () => {
    const opened = path.join(tree.root, 'opened-through-link');
    fs.symlinkSync(tree.workspace, opened, 'dir');
    const toolPython = path.join(tree.workspace, 'tools', 'bin', 'python'); // no pyvenv.cfg: found on PATH only
    fakePython(toolPython, 'workspace-tool', tree.markers, `exec ${DEBIAN_PYTHON} -S`);
    tree.env.PATH = [path.dirname(toolPython), tree.env.PATH].join(path.delimiter);
    const response = await ask({ trusted: false, workspaceFolders: [opened] });
    assert.strictEqual(byPath(response, toolPython).notProbed, 'untrusted');
    assert.ok(!ran(tree).includes('workspace-tool'), `ran: ${ran(tree).join(', ')}`);
  });
});
