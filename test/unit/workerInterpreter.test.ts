// resolveInterpreter: the first candidate that exists and is executable, without running it.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { cliInterpreter, findOnPath, resolveInterpreter } from '../../src/node/interpreter';
import { tempDir } from '../process/workerTestKit';

describe('worker: resolveInterpreter', () => {
  let tmp: string;
  let binA: string;
  let binB: string;

  function executable(dir: string, name: string, mode = 0o755): string {
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, name);
    fs.writeFileSync(file, '#!/bin/sh\nexit 0\n', { mode });
    return file;
  }

  beforeEach(() => {
    tmp = tempDir('dd-interp-');
    binA = path.join(tmp, 'a');
    binB = path.join(tmp, 'b');
  });

  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('takes the first candidate that exists, in order', () => {
    const venv = executable(path.join(tmp, '.venv', 'bin'), 'python');
    const onPath = executable(binA, 'python3');
    const pathEnv = binA;
    assert.strictEqual(resolveInterpreter([path.join(tmp, 'missing', 'python'), venv, 'python3'], { pathEnv }), venv);
    assert.strictEqual(resolveInterpreter(['', 'python3', venv], { pathEnv }), onPath);
  });

  it('searches bare names on PATH in PATH order and skips files that are not executable', () => {
    executable(binA, 'python3', 0o644);
    const good = executable(binB, 'python3');
    assert.strictEqual(findOnPath('python3', { pathEnv: `${binA}${path.delimiter}${binB}` }), good);
    assert.strictEqual(resolveInterpreter(['python3', 'python'], { pathEnv: binA }), null);
  });

  it('falls back from python3 to python', () => {
    const python = executable(binA, 'python');
    assert.strictEqual(resolveInterpreter(['python3', 'python'], { pathEnv: binA }), python);
  });

  it('never treats a folder as an interpreter', () => {
    fs.mkdirSync(path.join(binA, 'python3'), { recursive: true });
    assert.strictEqual(resolveInterpreter(['python3', path.join(binA, 'python3')], { pathEnv: binA }), null);
  });

  it('finds python.exe on Windows-style PATHs', () => {
    const exe = executable(binA, 'python.exe', 0o644);
    assert.strictEqual(resolveInterpreter(['python'], { pathEnv: binA, platform: 'win32' }), exe);
  });

  it('the CLI keeps an explicit --python even when it does not exist, so the report can say so', () => {
    assert.strictEqual(cliInterpreter('/nowhere/python', { pathEnv: binA }), '/nowhere/python');
    const python3 = executable(binA, 'python3');
    assert.strictEqual(cliInterpreter(undefined, { pathEnv: binA }), python3);
    assert.strictEqual(cliInterpreter(undefined, { pathEnv: binB }), 'python3');
  });

  it('the CLI makes a relative --python absolute (the runner refuses relative paths) and leaves a bare name to PATH', () => {
    assert.strictEqual(cliInterpreter(path.join('.venv', 'bin', 'python')), path.resolve('.venv', 'bin', 'python'));
    assert.strictEqual(cliInterpreter('python3.12'), 'python3.12');
  });
});
