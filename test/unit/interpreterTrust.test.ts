// Workspace Trust's "inside the workspace", as Restricted Mode judges it: by path segments (a
// folder whose name starts with two dots is a folder, not a way out), and on the names the file
// system gives both sides (a workspace opened through a symlink, a venv reached through one).
// The symlinks are real ones in a temporary folder; nothing is run.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { mayRun } from '../../src/core/interpreters/trust';
import { trustFacts } from '../../src/node/interpreters/discover';

describe('Restricted Mode: which interpreters are inside the workspace', () => {
  let root: string;
  beforeEach(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dd-trust-')));
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  /** An executable file (never run): a venv interpreter as a file of its own. */
  function plant(file: string): string {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, '#!/bin/sh\n', { mode: 0o755 });
    return file;
  }

  it('a `..venv` folder is inside the workspace and its interpreter is never run untrusted', () => {
    const candidate = { path: '/w/..venv/bin/python', origins: ['venv' as const] };
    assert.strictEqual(mayRun(candidate, { trusted: false, workspaceFolders: ['/w'] }), false);
    assert.strictEqual(mayRun({ ...candidate, path: '/w/..env/..x/python' }, { trusted: false, workspaceFolders: ['/w'] }), false);
    assert.strictEqual(mayRun(candidate, { trusted: true, workspaceFolders: ['/w'] }), true, 'a trusted workspace runs it');
  });

  it('a `..venv` interpreter on disk is judged inside by the facts the node layer gathers', () => {
    const workspace = path.join(root, 'project');
    const python = plant(path.join(workspace, '..venv', 'bin', 'python'));
    assert.strictEqual(mayRun({ path: python, origins: ['venv'] }, trustFacts({ trusted: false, workspaceFolders: [workspace] })), false);
  });

  it('a workspace opened through a symlink judges an interpreter reached by its real path as inside', () => {
    const real = path.join(root, 'project');
    const python = plant(path.join(real, '.venv', 'bin', 'python'));
    const opened = path.join(root, 'link-to-project');
    fs.symlinkSync(real, opened, 'dir');
    assert.strictEqual(mayRun({ path: python, origins: ['path'] }, trustFacts({ trusted: false, workspaceFolders: [opened] })), false);
  });

  it('a venv python that links to the system Python, reached through a symlinked folder, is inside the workspace it lives in', () => {
    const workspace = path.join(root, 'project');
    const venvBin = path.join(workspace, '.venv', 'bin');
    fs.mkdirSync(venvBin, { recursive: true });
    const base = plant(path.join(root, 'base', 'python3'));
    fs.symlinkSync(base, path.join(venvBin, 'python'));
    const shortcut = path.join(root, 'shortcut');
    fs.symlinkSync(path.join(workspace, '.venv'), shortcut, 'dir');
    const facts = trustFacts({ trusted: false, workspaceFolders: [workspace] });
    assert.strictEqual(mayRun({ path: path.join(shortcut, 'bin', 'python'), origins: ['python-extension'] }, facts), false);
    assert.strictEqual(mayRun({ path: base, origins: ['system'] }, facts), true, 'the base interpreter itself lives outside');
  });

  it('an interpreter beside the workspace, in a folder whose name only starts like it, may run', () => {
    const workspace = path.join(root, 'project');
    fs.mkdirSync(workspace);
    const beside = plant(path.join(root, 'project-tools', 'bin', 'python'));
    assert.strictEqual(mayRun({ path: beside, origins: ['path'] }, trustFacts({ trusted: false, workspaceFolders: [workspace] })), true);
  });
});
