// "Inside a folder" by path segments, the one helper every containment test in src/ goes
// through: a name that starts with two dots (`..venv`, `..data`) is a folder inside, not a way
// out. Checked on the helper and on each place that asks: lint's display path, SARIF's
// artifact location, pyproject's per-file-ignores (Workspace Trust's is interpreterTrust.test.ts).
import * as assert from 'assert';
import * as path from 'path';
import { isInside, relativeInside } from '../../src/core/paths/containment';
import { perFileIgnoredCodes } from '../../src/core/config';
import { artifactLocation } from '../../src/cli/formats/sarif';
import { displayPath } from '../../src/cli/lint/lintFiles';

describe('path containment by segments', () => {
  it('a name that starts with two dots is inside; only .. itself, ../… and another root are outside', () => {
    assert.strictEqual(relativeInside('/w', '/w/..venv/bin/python', path.posix), '..venv/bin/python');
    assert.strictEqual(relativeInside('/w', '/w/...', path.posix), '...');
    assert.strictEqual(relativeInside('/w', '/w/a/..b', path.posix), 'a/..b');
    assert.strictEqual(relativeInside('/w', '/w', path.posix), '');
    assert.strictEqual(relativeInside('/w/x', '/w', path.posix), null);
    assert.strictEqual(relativeInside('/w', '/w/../x', path.posix), null);
    assert.strictEqual(relativeInside('/w', '/wx/bin/python', path.posix), null);
    assert.strictEqual(relativeInside('/w', '/..venv/bin/python', path.posix), null);
  });

  it('on Windows: a ..venv folder is inside, another drive and ..\\ are not', () => {
    assert.strictEqual(isInside('C:\\w\\..venv\\Scripts\\python.exe', 'C:\\w', path.win32), true);
    assert.strictEqual(isInside('C:\\other\\python.exe', 'C:\\w', path.win32), false);
    assert.strictEqual(isInside('D:\\w\\python.exe', 'C:\\w', path.win32), false);
  });
});

describe('every containment test in src/ treats a `..data` folder as inside', () => {
  const cwd = path.resolve('/project');
  const file = path.join(cwd, '..data', 'train.py');

  it('lint shows a file in a `..data` folder by its path relative to the current folder', () => {
    assert.strictEqual(displayPath(file, cwd), path.join('..data', 'train.py'));
    assert.strictEqual(displayPath(path.resolve('/elsewhere/train.py'), cwd), path.resolve('/elsewhere/train.py'));
  });

  it('SARIF locates a file in a `..data` folder under %SRCROOT%', () => {
    assert.deepStrictEqual(artifactLocation(file, cwd), { uri: '..data/train.py', uriBaseId: '%SRCROOT%' });
  });

  it('per-file-ignores match a file in a `..data` folder by its relative path', () => {
    const config = { perFileIgnores: [{ pattern: '..data/*.py', codes: ['DD003'] }] };
    assert.deepStrictEqual(perFileIgnoredCodes(config as Parameters<typeof perFileIgnoredCodes>[0], cwd, file), ['DD003']);
  });
});
