import * as assert from 'assert';
import { compileGlob, globMatches, globProblem, GlobError, MAX_GLOB_LENGTH, parseProjectConfig } from '../../src/core/config';

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
    assert.ok(globMatches('a[b.py', 'a[b.py'));
    assert.ok(globMatches('a{b.py', 'a{b.py'));
  });

  it('anchors the whole path', () => {
    assert.ok(!matches('train.py', 'train.py.bak'));
    assert.ok(!matches('scripts/*.py', 'old/scripts/a.py'));
  });

  it('matches classes with ranges and a leading ]', () => {
    assert.ok(matches('data_[a-c][0-9].py', 'data_b7.py'));
    assert.ok(!matches('data_[a-c][0-9].py', 'data_d7.py'));
    assert.ok(matches('x[]a].py', 'x].py'));
    assert.ok(matches('x[!]a].py', 'xb.py') && !matches('x[!]a].py', 'x].py'));
  });

  it('keeps ** beside other characters inside one folder, and ** alone spanning folders', () => {
    assert.ok(matches('a/b**.py', 'a/bxyz.py'));
    assert.ok(!matches('a/b**.py', 'a/b/c.py'));
    assert.ok(matches('a/**/b/**/c.py', 'a/b/c.py'));
    assert.ok(matches('a/**/b/**/c.py', 'a/x/y/b/z/c.py'));
    assert.ok(!matches('a/**/b/**/c.py', 'a/x/y/z/c.py'));
    assert.ok(!matches('tests/**', 'tests'));
  });

  // Before the matcher was rewritten, this pattern became a regular expression that
  // backtracked for over a minute on the path below (measured: the language server blocked 64 s).
  it('matches a pattern built to make regular expressions backtrack in linear-ish time', () => {
    const pattern = '*a*a*a*a*a*a*a*a*a*a*a*a*b';
    const path = `${'a'.repeat(3000)}/${'a'.repeat(3000)}`;
    const started = process.hrtime.bigint();
    assert.strictEqual(matches(pattern, path), false);
    assert.strictEqual(matches(`**/${pattern}`, path), false);
    assert.strictEqual(matches(pattern, `${'a'.repeat(3000)}b`), true);
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    // Not a timing test: the old matcher needed minutes; anything under a few seconds is the new algorithm.
    assert.ok(ms < 5000, `${ms} ms`);
  });

  it('refuses a pattern that is too long or multiplies into too many alternatives', () => {
    assert.match(globProblem('a'.repeat(MAX_GLOB_LENGTH + 1)) ?? '', /longer than 1024/);
    assert.match(globProblem('{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}') ?? '', /alternatives/);
    assert.strictEqual(globProblem('tests/**/*.py'), undefined);
    assert.throws(() => compileGlob('x'.repeat(5000)), GlobError);
  });

  it('reports an unusable per-file-ignores pattern as a configuration error and keeps the others', () => {
    const parsed = parseProjectConfig(
      `[tool.device-doctor.per-file-ignores]\n"${'x'.repeat(2000)}" = ["DD001"]\n"tests/*" = ["DD002"]\n`,
    );
    assert.deepStrictEqual(parsed.config.perFileIgnores?.map((e) => e.pattern), ['tests/*']);
    assert.ok(parsed.errors.some((e) => /longer than 1024 characters/.test(e)), parsed.errors.join('\n'));
  });
});
