import * as assert from 'assert';
import { compileGlob, globToRegExp } from '../../src/core/config';

function matches(pattern: string, relativePath: string): boolean {
  return compileGlob(pattern).matches(relativePath);
}

describe('config: per-file-ignores globs', () => {
  const cases: Array<[pattern: string, path: string, expected: boolean]> = [
    ['tests/test_model.py', 'tests/test_model.py', true],
    ['tests/test_model.py', 'src/tests/test_model.py', false],
    ['tests/*.py', 'tests/test_model.py', true],
    ['tests/*.py', 'tests/unit/test_model.py', false], // '*' stays inside one folder
    ['tests/**/*.py', 'tests/test_model.py', true], // '**/' also matches zero folders
    ['tests/**/*.py', 'tests/unit/deep/test_model.py', true],
    ['tests/**', 'tests/unit/deep/test_model.py', true],
    ['tests/**', 'testsuite/a.py', false],
    ['**/notebooks/*.ipynb', 'notebooks/explore.ipynb', true],
    ['**/notebooks/*.ipynb', 'research/notebooks/explore.ipynb', true],
    ['**/notebooks/*.ipynb', 'research/notebooks/old/explore.ipynb', false],
    ['scripts/train_?.py', 'scripts/train_a.py', true],
    ['scripts/train_?.py', 'scripts/train_ab.py', false],
    ['scripts/train_?.py', 'scripts/train_/.py', false],
    ['scripts/train_[0-9].py', 'scripts/train_3.py', true],
    ['scripts/train_[0-9].py', 'scripts/train_x.py', false],
    ['scripts/train_[!0-9].py', 'scripts/train_x.py', true],
    ['scripts/train_[!0-9].py', 'scripts/train_3.py', false],
    ['{tests,docs}/*.py', 'docs/conf.py', true],
    ['{tests,docs}/*.py', 'src/conf.py', false],
    ['./scripts/*.py', 'scripts/a.py', true],
    ['file.with.dots.py', 'filexwithxdots.py', false], // '.' is literal
    ['a+b(c).py', 'a+b(c).py', true],
    ['literal\\*.py', 'literal*.py', true],
    ['literal\\*.py', 'literalx.py', false],
  ];
  for (const [pattern, file, expected] of cases) {
    it(`${pattern} ${expected ? 'matches' : 'does not match'} ${file}`, () => {
      assert.strictEqual(matches(pattern, file), expected);
    });
  }

  it('matches a pattern without a slash against the file name in any folder, like Ruff', () => {
    assert.ok(matches('__init__.py', 'pkg/sub/__init__.py'));
    assert.ok(matches('test_*.py', 'tests/unit/test_loader.py'));
    assert.ok(!matches('test_*.py', 'tests/unit/loader_test.py'));
  });

  it('does not match a pattern with a slash against the file name alone', () => {
    assert.ok(!matches('unit/test_*.py', 'tests/unit/test_loader.py'));
    assert.ok(matches('tests/unit/test_*.py', 'tests/unit/test_loader.py'));
  });

  it('treats an unclosed bracket or brace as a literal character', () => {
    assert.ok(globToRegExp('a[b.py').test('a[b.py'));
    assert.ok(globToRegExp('a{b.py').test('a{b.py'));
  });

  it('anchors the whole path', () => {
    assert.ok(!matches('train.py', 'train.py.bak'));
    assert.ok(!matches('scripts/*.py', 'old/scripts/a.py'));
  });
});
