// Rule documentation offline: the pages ship in the .vsix, and the diagnostics' code links
// name them (a file in the extension) rather than a public URL.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { RULES } from '../../src/core/analysis/catalog';
import { ownRuleCode, ruleDocPath } from '../../src/vscode/ruleDocs/ruleDocLink';
import { findRuleDocsDir } from '../../src/cli/ruleDocs';

const ROOT = path.resolve(__dirname, '..', '..');

describe('vscode: rule documentation offline', () => {
  it('rewrites only our own codes, whether given as a string or as {value, target}', () => {
    assert.strictEqual(ownRuleCode('DD001'), 'DD001');
    assert.strictEqual(ownRuleCode({ value: 'DD010', target: 'https://example.invalid' }), 'DD010');
    assert.strictEqual(ownRuleCode('E501'), undefined);
    assert.strictEqual(ownRuleCode({ value: 501 }), undefined);
    assert.strictEqual(ownRuleCode(undefined), undefined);
  });

  it('turns only a known code into a path (no ../ from a crafted link)', () => {
    assert.deepStrictEqual(ruleDocPath('DD003'), ['docs', 'rules', 'DD003.md']);
    assert.strictEqual(ruleDocPath('../../package'), undefined);
    assert.strictEqual(ruleDocPath('DD999'), undefined);
  });

  it('has a page for every rule, and packages docs/rules in the .vsix', () => {
    for (const rule of RULES) assert.ok(fs.existsSync(path.join(ROOT, 'docs', 'rules', `${rule.code}.md`)), rule.code);
    const ignore = fs.readFileSync(path.join(ROOT, '.vscodeignore'), 'utf8').split('\n');
    assert.strictEqual(ignore[0], '**', 'an allow-list');
    assert.ok(ignore.includes('!docs/rules/**'));
  });

  it('finds the pages from the sources as the CLI finds them from its bundle', () => {
    assert.strictEqual(findRuleDocsDir(path.join(ROOT, 'src', 'cli')), path.join(ROOT, 'docs', 'rules'));
    assert.strictEqual(findRuleDocsDir(path.join(ROOT, 'dist')), path.join(ROOT, 'docs', 'rules'));
    assert.strictEqual(findRuleDocsDir('/'), undefined);
  });
});
