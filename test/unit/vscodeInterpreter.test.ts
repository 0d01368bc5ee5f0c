// Interpreter discovery and Workspace Trust: which Python the worker may run.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { chooseInterpreter, RESTRICTED_NOTE } from '../../src/vscode/interpreter/interpreterChoice';
import type { InterpreterContext, InterpreterLookups } from '../../src/vscode/interpreter/interpreterChoice';
import { findExecutable, findPythonOnPath } from '../../src/node/pathLookup';
import { isInside } from '../../src/core/paths/containment';

const HOME = '/home/ada';
const FOLDER = '/work/project';

/** Lookups that record whether they were asked; inside the workspace: FOLDER, or what `alsoInside` names (a symlink to it). */
function lookups(pythonExtension?: string, onPath?: string, alsoInside: readonly string[] = []) {
  const asked: string[] = [];
  const value: InterpreterLookups = {
    pythonExtension: async () => { asked.push('python-extension'); return pythonExtension; },
    onPath: () => { asked.push('path'); return onPath; },
    insideWorkspace: (file) => isInside(file, FOLDER) || alsoInside.includes(file),
  };
  return { value, asked };
}

function context(trusted: boolean, setting: InterpreterContext['setting'] = {}): InterpreterContext {
  return { trusted, setting, workspaceFolder: FOLDER, homeDir: HOME };
}

describe('vscode: choosing the interpreter', () => {
  describe('in a trusted workspace', () => {
    it('prefers the setting, workspace level over user level', async () => {
      const { value, asked } = lookups('/envs/active/bin/python', '/usr/bin/python3');
      const choice = await chooseInterpreter(context(true, { globalValue: '/usr/bin/python3.12', workspaceValue: '/opt/py/bin/python' }), value);
      assert.deepStrictEqual([choice.pythonPath, choice.source], ['/opt/py/bin/python', 'workspace-setting']);
      assert.deepStrictEqual(asked, [], 'no need to ask the Python extension');
    });

    it('uses the folder-level value over the workspace level', async () => {
      const choice = await chooseInterpreter(context(true, { workspaceValue: '/a/python', workspaceFolderValue: '/b/python' }), lookups().value);
      assert.strictEqual(choice.pythonPath, '/b/python');
    });

    it('then the Python extension\'s active environment', async () => {
      const { value, asked } = lookups('/envs/active/bin/python', '/usr/bin/python3');
      const choice = await chooseInterpreter(context(true, { globalValue: '  ' }), value);
      assert.deepStrictEqual([choice.pythonPath, choice.source], ['/envs/active/bin/python', 'python-extension']);
      assert.match(choice.note, /Python extension's active interpreter/);
      assert.deepStrictEqual(asked, ['python-extension']);
    });

    it('then python3/python on PATH', async () => {
      const choice = await chooseInterpreter(context(true), lookups(undefined, '/usr/bin/python3').value);
      assert.deepStrictEqual([choice.pythonPath, choice.source], ['/usr/bin/python3', 'path']);
    });

    it('finally a bare python3, which the worker reports missing', async () => {
      const choice = await chooseInterpreter(context(true), lookups().value);
      assert.deepStrictEqual([choice.pythonPath, choice.source], ['python3', 'none']);
      assert.match(choice.note, /No Python interpreter found/);
    });

    it('expands ~, ${userHome}, ${workspaceFolder} and relative paths', async () => {
      const resolve = async (globalValue: string) => (await chooseInterpreter(context(true, { globalValue }), lookups().value)).pythonPath;
      assert.strictEqual(await resolve('~/venv/bin/python'), `${HOME}/venv/bin/python`);
      assert.strictEqual(await resolve('${userHome}/venv/bin/python'), `${HOME}/venv/bin/python`);
      assert.strictEqual(await resolve('${workspaceFolder}/.venv/bin/python'), `${FOLDER}/.venv/bin/python`);
      assert.strictEqual(await resolve('.venv/bin/python'), `${FOLDER}/.venv/bin/python`);
      assert.strictEqual(await resolve('python3.11'), 'python3.11', 'a bare name stays a PATH lookup');
    });
  });

  describe('in Restricted Mode', () => {
    it('ignores workspace and folder values and never asks the Python extension or PATH', async () => {
      const { value, asked } = lookups('/work/project/.venv/bin/python', '/usr/bin/python3');
      const choice = await chooseInterpreter(
        context(false, { workspaceValue: '/work/project/evil/python', workspaceFolderValue: '/work/project/evil2/python' }),
        value,
      );
      assert.deepStrictEqual(choice, { pythonPath: null, source: 'none', note: RESTRICTED_NOTE });
      assert.deepStrictEqual(asked, []);
    });

    it('honours an absolute user-level path, and ignores the workspace value beside it', async () => {
      const { value, asked } = lookups('/work/project/.venv/bin/python');
      const choice = await chooseInterpreter(context(false, { globalValue: '~/venv/bin/python', workspaceValue: '/work/project/evil/python' }), value);
      assert.deepStrictEqual([choice.pythonPath, choice.source], [`${HOME}/venv/bin/python`, 'user-setting']);
      assert.deepStrictEqual(asked, []);
    });

    it('refuses a user-level path that points into the workspace (${workspaceFolder} or relative)', async () => {
      for (const globalValue of ['${workspaceFolder}/.venv/bin/python', '.venv/bin/python', 'venv\\Scripts\\python.exe']) {
        const choice = await chooseInterpreter(context(false, { globalValue }), lookups().value);
        assert.strictEqual(choice.pythonPath, null, globalValue);
        assert.match(choice.note, /depends on the workspace/);
      }
    });

    it('refuses an absolute user-level path inside a workspace folder: a `..venv` one, one the file system resolves into it, or one PATH finds there', async () => {
      for (const globalValue of ['/work/project/.venv/bin/python', '/work/project/..venv/bin/python', '/opt/link/python']) {
        const choice = await chooseInterpreter(context(false, { globalValue }), lookups(undefined, undefined, ['/opt/link/python']).value);
        assert.strictEqual(choice.pythonPath, null, globalValue);
        assert.match(choice.note, /inside this workspace/);
      }
      const planted = await chooseInterpreter(context(false, { globalValue: 'python3.12' }), lookups(undefined, undefined, ['python3.12']).value);
      assert.strictEqual(planted.pythonPath, null, 'a bare name that PATH finds inside the workspace');
      const beside = await chooseInterpreter(context(false, { globalValue: '/work/project-tools/bin/python' }), lookups().value);
      assert.strictEqual(beside.pythonPath, '/work/project-tools/bin/python', 'a folder beside the workspace is not inside it');
    });

    it('accepts a bare command name from the user settings (a PATH lookup, not the workspace)', async () => {
      const choice = await chooseInterpreter(context(false, { globalValue: 'python3.12' }), lookups().value);
      assert.strictEqual(choice.pythonPath, 'python3.12');
    });
  });
});

describe('vscode: finding python on PATH', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dd-path-'));
    for (const sub of ['a', 'b', 'c']) fs.mkdirSync(path.join(dir, sub));
    fs.writeFileSync(path.join(dir, 'a', 'python3'), '#!/bin/sh\n', { mode: 0o644 }); // not executable
    fs.writeFileSync(path.join(dir, 'b', 'python'), '#!/bin/sh\n', { mode: 0o755 });
    fs.writeFileSync(path.join(dir, 'c', 'python3'), '#!/bin/sh\n', { mode: 0o755 });
    fs.mkdirSync(path.join(dir, 'a', 'python')); // a directory is not an interpreter
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const PATH = () => ['a', 'b', 'c'].map((s) => path.join(dir, s)).join(path.delimiter);

  it('prefers python3 anywhere on PATH over python, skipping non-executables and directories', () => {
    assert.strictEqual(findPythonOnPath({ PATH: PATH() }, 'linux'), path.join(dir, 'c', 'python3'));
  });

  it('falls back to python', () => {
    assert.strictEqual(findPythonOnPath({ PATH: [path.join(dir, 'a'), path.join(dir, 'b')].join(path.delimiter) }, 'linux'), path.join(dir, 'b', 'python'));
  });

  it('never looks in the current directory (empty or relative PATH entries)', () => {
    const cwd = process.cwd();
    try {
      process.chdir(path.join(dir, 'c'));
      assert.strictEqual(findExecutable('python3', { PATH: `${path.delimiter}.${path.delimiter}c` }, 'linux'), undefined);
    } finally {
      process.chdir(cwd);
    }
  });

  it('returns undefined when there is none', () => {
    assert.strictEqual(findPythonOnPath({ PATH: path.join(dir, 'a') }, 'linux'), undefined);
    assert.strictEqual(findPythonOnPath({}, 'linux'), undefined);
  });
});
