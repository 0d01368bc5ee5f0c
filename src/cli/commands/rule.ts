// `device-doctor rule DD003` prints the rule's documentation (docs/rules/DD003.md) to the
// terminal, as `ruff rule F401` does; `device-doctor rule` lists the rules and the opt-in
// groups, and `device-doctor rule performance` a group's rules and how to turn them on.
// Read from the package itself: it works offline.
import * as fs from 'fs';
import * as path from 'path';
import { isRuleCode, isRuleGroup, RULE_GROUPS, RULES, type RuleGroup } from '../../core/analysis/catalog';
import type { CliIo } from '../io';
import { findRuleDocsDir } from '../ruleDocs';
import { terminalText } from '../formats/terminalText';
import { EXIT_USAGE } from './lint';

/** One line per rule; a rule of an opt-in group says so before its summary. */
function ruleList(): string {
  const width = Math.max(...RULES.map((r) => r.name.length));
  const lines = RULES.map((r) => `${r.code}  ${r.name.padEnd(width)}  ${r.implemented ? r.severity.padEnd(11) : 'planned    '}  ${r.group ? `[${r.group}, opt-in] ` : ''}${sentence(r.summary)}`);
  return `${lines.join('\n')}\n\n${groupList()}`;
}

/** A summary as a line of its own: capitalised, as the terminal list reads. */
function sentence(summary: string): string {
  return summary.charAt(0).toUpperCase() + summary.slice(1);
}

function groupRules(group: RuleGroup): string {
  return RULES.filter((r) => r.group === group).map((r) => r.code).join(', ');
}

/** The opt-in groups: their rules, and the setting that turns them on. */
function groupList(): string {
  const groups = Object.keys(RULE_GROUPS) as RuleGroup[];
  const lines = groups.map((g) => `  ${g}: ${groupRules(g)} (${RULE_GROUPS[g]})`);
  return `Opt-in groups (off by default; every other implemented rule is on):\n${lines.join('\n')}\n`;
}

export function runRuleCommand(code: string | undefined, io: CliIo): number {
  if (code === undefined) {
    io.stdout(ruleList());
    return 0;
  }
  if (isRuleGroup(code)) {
    const group = code.trim().toLowerCase() as RuleGroup;
    const rules = RULES.filter((r) => r.group === group).map((r) => `${r.code}  ${r.name}  ${r.summary}`);
    io.stdout(`${group} (opt-in): ${RULE_GROUPS[group]}\n${rules.join('\n')}\n`);
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
