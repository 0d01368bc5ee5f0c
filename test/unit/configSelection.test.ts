import * as assert from 'assert';
import * as path from 'path';
import { applySelectionLayer, resolveSelection, selectionForFile, type ProjectConfig } from '../../src/core/config';
import { RULES } from '../../src/core/analysis/catalog';
import type { RuleCode } from '../../src/core/analysis/types';

const ALL = RULES.map((r) => r.code);
/** What runs when nothing is selected: every rule outside the opt-in groups (performance). */
const DEFAULT = RULES.filter((r) => !r.group).map((r) => r.code);
const PERFORMANCE = RULES.filter((r) => r.group === 'performance').map((r) => r.code);
const root = path.resolve('/project');

function enabled(config: ProjectConfig, file: string, overrides?: Parameters<typeof selectionForFile>[3]): RuleCode[] {
  const selection = selectionForFile(config, root, path.join(root, file), overrides);
  // The selection is explicit: every code is in exactly one list.
  assert.deepStrictEqual([...(selection.select ?? []), ...(selection.ignore ?? [])].sort(), [...ALL].sort());
  return selection.select as RuleCode[];
}

describe('config: rule selection for a file', () => {
  it('runs every rule outside the opt-in groups by default', () => {
    assert.deepStrictEqual(enabled({}, 'train.py'), DEFAULT);
    assert.deepStrictEqual(PERFORMANCE, ['DD007', 'DD012', 'DD014']);
  });

  it('turns an opt-in group on by its name (any case), and a code or ALL turns its rules on too', () => {
    assert.deepStrictEqual(enabled({ extendSelect: ['performance'] }, 'a.py'), ALL);
    assert.deepStrictEqual(enabled({ select: ['Performance'] }, 'a.py'), PERFORMANCE);
    assert.deepStrictEqual(enabled({ extendSelect: ['DD007'] }, 'a.py'), [...DEFAULT, 'DD007'].sort());
    assert.deepStrictEqual(enabled({ select: ['ALL'] }, 'a.py'), ALL);
    assert.deepStrictEqual(enabled({}, 'a.py', { extendSelect: ['performance'] }), ALL);
  });

  it('lets a code win over the group that holds it, in either direction', () => {
    assert.deepStrictEqual(enabled({ extendSelect: ['performance'], ignore: ['DD007'] }, 'a.py'), ALL.filter((c) => c !== 'DD007'));
    assert.deepStrictEqual(enabled({ select: ['DD012'], ignore: ['performance'] }, 'a.py'), ['DD012']);
  });

  it('select replaces the default; ignore removes', () => {
    assert.deepStrictEqual(enabled({ select: ['DD001', 'DD003'] }, 'train.py'), ['DD001', 'DD003']);
    assert.deepStrictEqual(enabled({ ignore: ['DD004'] }, 'train.py'), DEFAULT.filter((c) => c !== 'DD004'));
  });

  it('expands prefixes', () => {
    // DD010 to DD019, as many as the catalogue declares (prefix expansion, not a list to keep in step).
    const dd01 = RULES.map((r) => r.code as string).filter((c) => /^DD01\d$/.test(c));
    assert.ok(dd01.length >= 5 && dd01[0] === 'DD010', dd01.join(' '));
    assert.deepStrictEqual(enabled({ select: ['DD01'] }, 'train.py'), dd01);
    assert.deepStrictEqual(enabled({ select: ['ALL'], ignore: ['DD00'] }, 'a.py'), ALL.filter((c) => !c.startsWith('DD00')));
  });

  it('lets the more specific selector win, in either direction', () => {
    assert.deepStrictEqual(enabled({ select: ['DD'], ignore: ['DD003'] }, 'a.py'), ALL.filter((c) => c !== 'DD003'));
    assert.deepStrictEqual(enabled({ select: ['DD003'], ignore: ['DD'] }, 'a.py'), ['DD003']);
    assert.deepStrictEqual(enabled({ select: ['DD001'], ignore: ['DD00'] }, 'a.py'), ['DD001']);
  });

  it('lets ignore win at equal specificity', () => {
    assert.deepStrictEqual(enabled({ select: ['DD003'], ignore: ['DD003'] }, 'a.py'), []);
  });

  it('adds extend-select to select or to the default', () => {
    assert.deepStrictEqual(enabled({ select: ['DD001'], extendSelect: ['DD010'] }, 'a.py'), ['DD001', 'DD010']);
    assert.deepStrictEqual(enabled({ extendSelect: ['DD010'] }, 'a.py'), DEFAULT);
  });

  it('applies per-file-ignores matching the path relative to the root', () => {
    const config: ProjectConfig = { perFileIgnores: [{ pattern: 'tests/**', codes: ['DD001', 'DD002'] }] };
    assert.deepStrictEqual(enabled(config, 'tests/unit/test_train.py'), DEFAULT.filter((c) => c !== 'DD001' && c !== 'DD002'));
    assert.deepStrictEqual(enabled(config, 'src/tests_helpers.py'), DEFAULT);
  });

  it('applies a slash-free per-file-ignores pattern to the file name anywhere', () => {
    const config: ProjectConfig = { perFileIgnores: [{ pattern: 'conftest.py', codes: ['DD'] }] };
    assert.deepStrictEqual(enabled(config, 'tests/deep/conftest.py'), []);
    assert.deepStrictEqual(enabled(config, 'tests/deep/other.py'), DEFAULT);
  });

  it('combines every matching per-file-ignores entry', () => {
    const config: ProjectConfig = {
      perFileIgnores: [
        { pattern: 'notebooks/*.ipynb', codes: ['DD003'] },
        { pattern: '*.ipynb', codes: ['DD010'] },
        { pattern: 'scripts/*', codes: ['DD001'] },
      ],
    };
    assert.deepStrictEqual(enabled(config, 'notebooks/eda.ipynb'), DEFAULT.filter((c) => c !== 'DD003' && c !== 'DD010'));
  });

  it('lets per-file-ignores win even over a more specific select', () => {
    const config: ProjectConfig = { select: ['DD003'], perFileIgnores: [{ pattern: 'legacy/*.py', codes: ['DD'] }] };
    assert.deepStrictEqual(enabled(config, 'legacy/old.py'), []);
  });

  it('does not apply relative per-file-ignores to a file outside the root, except by file name', () => {
    const config: ProjectConfig = {
      perFileIgnores: [
        { pattern: 'tests/*.py', codes: ['DD001'] },
        { pattern: 'outside.py', codes: ['DD002'] },
      ],
    };
    const selection = selectionForFile(config, root, path.resolve('/elsewhere/tests/outside.py'));
    assert.deepStrictEqual(selection.ignore, [...PERFORMANCE, 'DD002'].sort());
  });

  it('accepts absolute per-file-ignores patterns', () => {
    const pattern = `${root.split(path.sep).join('/')}/gen/*.py`;
    const config: ProjectConfig = { perFileIgnores: [{ pattern, codes: ['DD004'] }] };
    assert.deepStrictEqual(enabled(config, 'gen/model.py'), DEFAULT.filter((c) => c !== 'DD004'));
  });

  describe('command-line overrides (Ruff semantics)', () => {
    const config: ProjectConfig = { select: ['DD001', 'DD003'], ignore: ['DD003'] };

    it('a command-line select replaces the pyproject select and ignore', () => {
      assert.deepStrictEqual(enabled(config, 'a.py', { select: ['DD003', 'DD004'] }), ['DD003', 'DD004']);
    });

    it('a command-line ignore adds to the pyproject selection', () => {
      assert.deepStrictEqual(enabled(config, 'a.py', { ignore: ['DD001'] }), []);
      assert.deepStrictEqual(enabled({}, 'a.py', { ignore: ['DD0'] }), []);
    });

    it('command-line select and ignore resolve by specificity together', () => {
      assert.deepStrictEqual(enabled({}, 'a.py', { select: ['DD00'], ignore: ['DD002'] }),
        ['DD001', 'DD003', 'DD004', 'DD005', 'DD006', 'DD007', 'DD008', 'DD009']);
    });

    it('per-file-ignores still apply after the command line', () => {
      const withIgnores: ProjectConfig = { perFileIgnores: [{ pattern: 'tests/*', codes: ['DD003'] }] };
      assert.deepStrictEqual(enabled(withIgnores, 'tests/t.py', { select: ['DD003'] }), []);
    });
  });

  it('resolveSelection and applySelectionLayer agree on an empty layer list', () => {
    assert.deepStrictEqual(resolveSelection([]), { select: DEFAULT, ignore: PERFORMANCE });
    assert.strictEqual(applySelectionLayer(new Set(ALL), {}).size, ALL.length);
  });
});
