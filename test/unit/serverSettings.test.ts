import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { pathToFileURL } from 'url';
import { clearProjectConfigCache } from '../../src/core/config';
import { filePathOf, selectionForDocument, settingsLayer } from '../../src/server/ruleSelection';
import { DEFAULT_SETTINGS, parseSettings } from '../../src/server/settings';

describe('server: settings', () => {
  it('falls back to the defaults for a missing section', () => {
    assert.deepStrictEqual(parseSettings(undefined), DEFAULT_SETTINGS);
    assert.deepStrictEqual(parseSettings(null), DEFAULT_SETTINGS);
    assert.deepStrictEqual(parseSettings('nonsense'), DEFAULT_SETTINGS);
  });

  it('reads the settings a VS Code user writes', () => {
    const settings = parseSettings({
      enable: false,
      severity: { DD003: 'warning', DD004: 'off', dd010: 'Hint' },
      select: ['DD00', 'dd010'],
      ignore: ['DD004'],
      debounceMs: 350,
      maxFileLines: 5000,
      pythonPath: '/usr/bin/python3',
    });
    assert.deepStrictEqual(settings, {
      enable: false,
      severity: { DD003: 'warning', DD004: 'off', DD010: 'hint' },
      select: ['DD00', 'DD010'],
      ignore: ['DD004'],
      debounceMs: 350,
      maxFileLines: 5000,
      maxFileBytes: DEFAULT_SETTINGS.maxFileBytes,
    });
  });

  it('drops values of the wrong type or unknown rules instead of failing', () => {
    const settings = parseSettings({
      enable: 'yes',
      severity: { DD003: 'fatal', DD999: 'error', DD001: 3, E501: 'off' },
      select: 'DD003',
      ignore: [42, 'not a code', 'DD002'],
      debounceMs: 'fast',
      maxFileLines: Number.NaN,
    });
    assert.deepStrictEqual(settings, { ...DEFAULT_SETTINGS, severity: {}, ignore: ['DD002'] });
  });

  it('takes the opt-in group and ALL in select and ignore, as pyproject does', () => {
    const settings = parseSettings({ select: ['DD', 'Performance', 'all'], ignore: ['PERFORMANCE', 'speed'] });
    assert.deepStrictEqual(settings.select, ['DD', 'performance', 'ALL']);
    assert.deepStrictEqual(settings.ignore, ['performance']);
  });

  it('keeps numbers in sensible bounds', () => {
    assert.strictEqual(parseSettings({ debounceMs: -5 }).debounceMs, 0);
    assert.strictEqual(parseSettings({ debounceMs: 1e9 }).debounceMs, 5000);
    assert.strictEqual(parseSettings({ maxFileLines: 12.6 }).maxFileLines, 13);
    assert.strictEqual(parseSettings({ maxFileLines: 0 }).maxFileLines, 0);
  });
});

describe('server: rule selection per document', () => {
  let dir: string;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dd-server-'));
    fs.mkdirSync(path.join(dir, 'scripts'));
    fs.writeFileSync(path.join(dir, 'pyproject.toml'), [
      '[project]', 'name = "trainer"', '',
      '[tool.device-doctor]', 'ignore = ["DD004"]', '',
      '[tool.device-doctor.per-file-ignores]', '"scripts/*.py" = ["DD003"]', '',
    ].join('\n'));
    clearProjectConfigCache();
  });

  after(() => {
    fs.rmSync(dir, { recursive: true, force: true });
    clearProjectConfigCache();
  });

  const uriOf = (...parts: string[]) => pathToFileURL(path.join(dir, ...parts)).toString();
  const noSettings = { select: [], ignore: [] };

  it('maps file URIs to paths and nothing else', () => {
    assert.strictEqual(filePathOf(uriOf('train.py')), path.join(dir, 'train.py'));
    assert.strictEqual(filePathOf('untitled:Untitled-1'), undefined);
    assert.strictEqual(filePathOf('vscode-notebook-cell:/w/nb.ipynb#a'), undefined);
  });

  it('turns non-empty settings into one selection layer', () => {
    assert.deepStrictEqual(settingsLayer(noSettings), {});
    assert.deepStrictEqual(settingsLayer({ select: ['DD003'], ignore: ['DD01'] }), { select: ['DD003'], ignore: ['DD01'] });
  });

  it('applies pyproject ignore and per-file-ignores', () => {
    const train = selectionForDocument(uriOf('train.py'), noSettings).selection;
    assert.ok(train.ignore?.includes('DD004') && !train.ignore.includes('DD003'));
    assert.ok(train.select?.includes('DD003'));
    const script = selectionForDocument(uriOf('scripts', 'eval.py'), noSettings).selection;
    assert.ok(script.ignore?.includes('DD003') && script.ignore.includes('DD004'));
    assert.ok(!script.select?.includes('DD003'));
  });

  it('layers the settings on top: ignore adds, select replaces pyproject\'s selection', () => {
    const ignored = selectionForDocument(uriOf('train.py'), { select: [], ignore: ['DD001'] }).selection;
    assert.ok(ignored.ignore?.includes('DD001') && ignored.ignore.includes('DD004'));
    const selected = selectionForDocument(uriOf('train.py'), { select: ['DD004', 'DD003'], ignore: [] }).selection;
    assert.deepStrictEqual(selected.select, ['DD003', 'DD004']);
    const script = selectionForDocument(uriOf('scripts', 'eval.py'), { select: ['DD003'], ignore: [] }).selection;
    assert.deepStrictEqual(script.select, [], 'per-file-ignores still win over the settings');
  });

  it('uses the settings alone for untitled documents and folders without pyproject', () => {
    const untitled = selectionForDocument('untitled:Untitled-1', { select: [], ignore: ['DD003'] }).selection;
    assert.ok(untitled.ignore?.includes('DD003') && !untitled.ignore.includes('DD004'));
    assert.ok(untitled.select?.includes('DD001'));
  });

  it('reports problems in the pyproject.toml that applies', () => {
    const broken = fs.mkdtempSync(path.join(os.tmpdir(), 'dd-broken-'));
    try {
      fs.writeFileSync(path.join(broken, 'pyproject.toml'), '[tool.device-doctor]\nignore = ["DD999"]\n');
      const { problems } = selectionForDocument(pathToFileURL(path.join(broken, 'a.py')).toString(), noSettings);
      assert.strictEqual(problems.length, 1);
      assert.match(problems[0], /DD999/);
    } finally {
      fs.rmSync(broken, { recursive: true, force: true });
    }
  });
});
