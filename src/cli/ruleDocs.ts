// Where the rule pages (docs/rules/DDxxx.md) are: beside the CLI bundle in the package
// (dist/cli.js → ../docs/rules) and beside the sources when run from them (tests). Both are
// found by walking up from this file to the folder that holds docs/rules/README.md.
import * as fs from 'fs';
import * as path from 'path';

const MAX_LEVELS = 5;

export function findRuleDocsDir(start = __dirname): string | undefined {
  let dir = start;
  for (let level = 0; level < MAX_LEVELS; level++) {
    const candidate = path.join(dir, 'docs', 'rules');
    if (fs.existsSync(path.join(candidate, 'README.md'))) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return undefined;
}
