// The rule tables of README.md and docs/rules/README.md, written from the catalogue so the
// documents cannot drift from what runs (`npm run rule-tables` rewrites them; a unit test
// fails when they differ).
import { RULE_GROUPS, RULES, type RuleGroup } from './catalog';

export const RULE_TABLE_BEGIN = '<!-- rule-table:begin (generated from src/core/analysis/catalog.ts by `npm run rule-tables`) -->';
export const RULE_TABLE_END = '<!-- rule-table:end -->';

/** The Markdown table, each code linking to its page under `docsPrefix` (`docs/rules/` from the README, `` beside the pages). */
export function ruleTableMarkdown(docsPrefix: string): string {
  const rows = RULES.filter((r) => r.implemented).map((r) => {
    const notes = [
      ...('refines' in r && r.refines ? [`refines [${r.refines}](${docsPrefix}${r.refines}.md)`] : []),
      ...(r.group ? [`opt-in: \`${r.group}\``] : []),
    ].join('; ');
    return `| [${r.code}](${docsPrefix}${r.code}.md) | ${r.name} | ${r.severity} | ${r.summary} | ${notes} |`;
  });
  // Each opt-in group, its rules and the setting that turns it on, under the table.
  const groups = (Object.keys(RULE_GROUPS) as RuleGroup[]).map((g) => {
    const codes = RULES.filter((r) => r.group === g).map((r) => r.code).join(', ');
    return `Opt-in \`${g}\` (${codes}): off by default; turn it on with \`extend-select = ["${g}"]\` under \`[tool.device-doctor]\`, or \`--extend-select ${g}\`. Every other rule is on by default.`;
  });
  return ['| code | name | default | finds | |', '|---|---|---|---|---|', ...rows, '', ...groups].join('\n');
}

/** `document` with the text between the markers replaced by the table; undefined when the markers are missing. */
export function withRuleTable(document: string, docsPrefix: string): string | undefined {
  const begin = document.indexOf(RULE_TABLE_BEGIN);
  const end = document.indexOf(RULE_TABLE_END);
  if (begin < 0 || end < begin) return undefined;
  return `${document.slice(0, begin + RULE_TABLE_BEGIN.length)}\n${ruleTableMarkdown(docsPrefix)}\n${document.slice(end)}`;
}
