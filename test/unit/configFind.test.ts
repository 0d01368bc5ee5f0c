import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { clearProjectConfigCache, findProjectConfig } from '../../src/core/config';

describe('config: finding the pyproject.toml that applies', () => {
  let tmp: string;

  function write(relative: string, text: string): string {
    const file = path.join(tmp, relative);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
    return file;
  }

  beforeEach(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dd-config-')));
    clearProjectConfigCache();
  });

  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('finds the table in a parent folder and reports that folder as the root', () => {
    write('pyproject.toml', '[tool.device-doctor]\nignore = ["DD004"]\n');
    const script = write('src/pkg/train.py', '');
    const found = findProjectConfig(script);
    assert.deepStrictEqual(found, { root: tmp, config: { ignore: ['DD004'] }, errors: [] });
  });

  it('passes over a nearer pyproject.toml without the table, as Ruff does', () => {
    write('pyproject.toml', '[tool.device-doctor]\nselect = ["DD003"]\n');
    write('sub/pyproject.toml', '[project]\nname = "sub"\n');
    const found = findProjectConfig(write('sub/train.py', ''));
    assert.strictEqual(found?.root, tmp);
    assert.deepStrictEqual(found?.config, { select: ['DD003'] });
  });

  it('lets the nearest table win over an outer one', () => {
    write('pyproject.toml', '[tool.device-doctor]\nselect = ["DD003"]\n');
    write('sub/pyproject.toml', '[tool.device-doctor]\nselect = ["DD001"]\n');
    const found = findProjectConfig(write('sub/deeper/train.py', ''));
    assert.strictEqual(found?.root, path.join(tmp, 'sub'));
    assert.deepStrictEqual(found?.config, { select: ['DD001'] });
  });

  it('returns undefined when nothing configures the file', () => {
    const found = findProjectConfig(write('lonely/train.py', ''));
    // An ancestor of the temp folder could in theory hold a config; it must not be ours.
    assert.ok(found === undefined || !found.root.startsWith(tmp));
  });

  it('reports errors prefixed with the pyproject path', () => {
    const pyproject = write('pyproject.toml', '[tool.device-doctor]\nselect = ["DD999"]\n');
    const found = findProjectConfig(write('a.py', ''));
    assert.deepStrictEqual(found?.errors, [`${pyproject}: [tool.device-doctor] select: unknown rule code "DD999"`]);
  });

  it('stops at a pyproject.toml that is not valid TOML and says so', () => {
    write('pyproject.toml', '[tool.device-doctor]\nselect = ["DD003"]\n');
    const broken = write('sub/pyproject.toml', '[project\n');
    const found = findProjectConfig(write('sub/a.py', ''));
    assert.strictEqual(found?.root, path.join(tmp, 'sub'));
    assert.strictEqual(found?.errors.length, 1);
    assert.ok(found?.errors[0].startsWith(`${broken}: invalid TOML`));
  });

  it('notices when the pyproject.toml changes', () => {
    const pyproject = write('pyproject.toml', '[tool.device-doctor]\nselect = ["DD003"]\n');
    const script = write('a.py', '');
    assert.deepStrictEqual(findProjectConfig(script)?.config, { select: ['DD003'] });
    fs.writeFileSync(pyproject, '[tool.device-doctor]\nselect = ["DD001", "DD004"]\n');
    const later = new Date(Date.now() + 5000);
    fs.utimesSync(pyproject, later, later);
    assert.deepStrictEqual(findProjectConfig(script)?.config, { select: ['DD001', 'DD004'] });
  });

  it('ignores a folder named pyproject.toml', () => {
    write('pyproject.toml', '[tool.device-doctor]\nignore = ["DD001"]\n');
    fs.mkdirSync(path.join(tmp, 'sub/pyproject.toml'), { recursive: true });
    assert.strictEqual(findProjectConfig(write('sub/a.py', ''))?.root, tmp);
  });
});
