// `device-doctor rule DD003` prints the rule's documentation (docs/rules/DD003.md) to the
// terminal, as `ruff rule F401` does; `device-doctor rule` lists the rules. Read from the
// package itself: it works offline.
import * as fs from 'fs';
import * as path from 'path';
import { isRuleCode, RULES } from '../../core/analysis/catalog';
import type { CliIo } from '../io';
import { findRuleDocsDir } from '../ruleDocs';
import { terminalText } from '../formats/terminalText';
import { EXIT_USAGE } from './lint';

export function runRuleCommand(code: string | undefined, io: CliIo): number {
  if (code === undefined) {
    const width = Math.max(...RULES.map((r) => r.name.length));
    io.stdout(RULES.map((r) => `${r.code}  ${r.name.padEnd(width)}  ${r.implemented ? r.severity.padEnd(11) : 'planned    '}  ${r.summary}`).join('\n') + '\n');
    return 0;
  }
  const normalized = code.trim().toUpperCase();
  if (!isRuleCode(normalized)) {
    io.stderr(`error: unknown rule code '${terminalText(code)}' (known: ${RULES[0].code} … ${RULES[RULES.length - 1].code}; 'device-doctor rule' lists them)\n`);
    return EXIT_USAGE;
  }
  const dir = findRuleDocsDir();
  const file = dir === undefined ? undefined : path.join(dir, `${normalized}.md`);
  if (file === undefined || !fs.existsSync(file)) {
    io.stderr(`error: the documentation of ${normalized} is missing from this installation (docs/rules/${normalized}.md); reinstall Device Doctor\n`);
    return 1;
  }
  const text = fs.readFileSync(file, 'utf8');
  io.stdout(text.endsWith('\n') ? text : `${text}\n`);
  return 0;
}
