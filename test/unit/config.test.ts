import * as assert from 'assert';
import { isRuleSelector, parseProjectConfig } from '../../src/core/config';

describe('config: parsing [tool.device-doctor]', () => {
  it('reads select, extend-select, ignore and per-file-ignores', () => {
    const { config, errors } = parseProjectConfig(`
[project]
name = "trainer"

[tool.device-doctor]
select = ["DD001", "DD003"]
extend-select = ["DD010"]
ignore = ["DD004"]

[tool.device-doctor.per-file-ignores]
"tests/**" = ["DD001"]
"__init__.py" = ["DD"]
`);
    assert.deepStrictEqual(errors, []);
    assert.deepStrictEqual(config, {
      select: ['DD001', 'DD003'],
      extendSelect: ['DD010'],
      ignore: ['DD004'],
      perFileIgnores: [
        { pattern: 'tests/**', codes: ['DD001'] },
        { pattern: '__init__.py', codes: ['DD'] },
      ],
    });
  });

  it('accepts an inline per-file-ignores table', () => {
    const { config, errors } = parseProjectConfig(`
[tool.device-doctor]
per-file-ignores = { "notebooks/*.ipynb" = ["DD003", "DD010"] }
`);
    assert.deepStrictEqual(errors, []);
    assert.deepStrictEqual(config.perFileIgnores, [{ pattern: 'notebooks/*.ipynb', codes: ['DD003', 'DD010'] }]);
  });

  it('gives an empty config and no errors when the table is absent', () => {
    assert.deepStrictEqual(parseProjectConfig('[tool.ruff]\nselect = ["E"]\n'), { config: {}, errors: [] });
    assert.deepStrictEqual(parseProjectConfig(''), { config: {}, errors: [] });
  });

  it('reports invalid TOML with its line instead of throwing', () => {
    const { config, errors } = parseProjectConfig('[tool.device-doctor]\nselect = ["DD001"\n');
    assert.deepStrictEqual(config, {});
    assert.strictEqual(errors.length, 1);
    assert.match(errors[0], /^invalid TOML at line \d+, column \d+: /);
  });

  it('reports unknown codes and keeps the valid ones', () => {
    const { config, errors } = parseProjectConfig('[tool.device-doctor]\nselect = ["DD001", "DD999", "E501"]\n');
    assert.deepStrictEqual(config.select, ['DD001']);
    assert.deepStrictEqual(errors, [
      '[tool.device-doctor] select: unknown rule code "DD999"',
      '[tool.device-doctor] select: unknown rule code "E501"',
    ]);
  });

  it('reports a value of the wrong type and ignores that key', () => {
    const { config, errors } = parseProjectConfig('[tool.device-doctor]\nselect = "DD001"\nignore = [1]\n');
    assert.deepStrictEqual(config, {});
    assert.strictEqual(errors.length, 2);
    assert.match(errors[0], /select must be a list of rule codes/);
    assert.match(errors[1], /ignore must be a list of rule codes/);
  });

  it('reports a per-file-ignores that is not a table, and bad entries in it', () => {
    const notTable = parseProjectConfig('[tool.device-doctor]\nper-file-ignores = ["tests/**"]\n');
    assert.deepStrictEqual(notTable.config, {});
    assert.match(notTable.errors[0], /per-file-ignores must be a table/);

    const badEntry = parseProjectConfig('[tool.device-doctor.per-file-ignores]\n"a.py" = "DD001"\n"b.py" = ["DD002"]\n');
    assert.deepStrictEqual(badEntry.config.perFileIgnores, [{ pattern: 'b.py', codes: ['DD002'] }]);
    assert.match(badEntry.errors[0], /per-file-ignores "a.py" must be a list/);
  });

  it('reports unknown keys, which are usually typos', () => {
    const { config, errors } = parseProjectConfig('[tool.device-doctor]\nselct = ["DD001"]\nignore = ["DD004"]\n');
    assert.deepStrictEqual(config, { ignore: ['DD004'] });
    assert.match(errors[0], /unknown key "selct"/);
  });

  it('reports a [tool.device-doctor] that is not a table', () => {
    const { errors } = parseProjectConfig('[tool]\ndevice-doctor = "on"\n');
    assert.deepStrictEqual(errors, ['[tool.device-doctor] must be a table']);
  });

  it('never throws, whatever the text', () => {
    for (const text of ['\u0000\u0001', '[[[', 'tool = 3', '[tool]\n"device-doctor" = []', 'a = """', '\uFFFF'.repeat(100)]) {
      const result = parseProjectConfig(text);
      assert.ok(Array.isArray(result.errors));
    }
  });
});

describe('config: rule selectors', () => {
  it('accepts full codes, reserved codes, prefixes, ALL and opt-in group names', () => {
    for (const value of ['DD001', 'DD010', 'DD014', 'DD00', 'DD01', 'DD0', 'DD', 'ALL', 'performance', 'Performance']) {
      assert.ok(isRuleSelector(value), value);
    }
  });

  it('rejects codes that select nothing', () => {
    for (const value of ['DD999', 'DD09', 'DD1', 'D', 'dd001', 'E501', '', 'DD0001', 'all']) {
      assert.ok(!isRuleSelector(value), value);
    }
  });
});
