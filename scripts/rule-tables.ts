// Rewrites the rule tables of README.md and docs/rules/README.md from the catalogue.
import { readFileSync, writeFileSync } from 'fs';
import { join } from 'path';
import { withRuleTable } from '../src/core/analysis/ruleTable';

export const RULE_TABLE_DOCUMENTS: ReadonlyArray<{ path: string; docsPrefix: string }> = [
  { path: 'README.md', docsPrefix: 'docs/rules/' },
  { path: 'docs/rules/README.md', docsPrefix: '' },
];

if (require.main === module) {
  const root = join(__dirname, '..');
  for (const doc of RULE_TABLE_DOCUMENTS) {
    const file = join(root, doc.path);
    const updated = withRuleTable(readFileSync(file, 'utf8'), doc.docsPrefix);
    if (updated === undefined) {
      process.stderr.write(`${doc.path}: no rule-table markers\n`);
      process.exitCode = 1;
      continue;
    }
    writeFileSync(file, updated);
    process.stdout.write(`${doc.path}: rule table written\n`);
  }
}
