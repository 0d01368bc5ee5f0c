// The rule tables of README.md and docs/rules/README.md, written from the catalogue so the
// documents cannot drift from what runs (`npm run rule-tables` rewrites them; a unit test
// fails when they differ).
import { RULES } from './catalog';

export const RULE_TABLE_BEGIN = '<!-- rule-table:begin (generated from src/core/analysis/catalog.ts by `npm run rule-tables`) -->';
export const RULE_TABLE_END = '<!-- rule-table:end -->';

/** The Markdown table, each code linking to its page under `docsPrefix` (`docs/rules/` from the README, `` beside the pages). */
export function ruleTableMarkdown(docsPrefix: string): string {
  const rows = RULES.filter((r) => r.implemented).map((r) => {
    const refines = 'refines' in r && r.refines ? `refines [${r.refines}](${docsPrefix}${r.refines}.md)` : '';
    return `| [${r.code}](${docsPrefix}${r.code}.md) | ${r.name} | ${r.severity} | ${r.summary} | ${refines} |`;
  });
  return ['| code | name | default | finds | |', '|---|---|---|---|---|', ...rows].join('\n');
}

/** `document` with the text between the markers replaced by the table; undefined when the markers are missing. */
export function withRuleTable(document: string, docsPrefix: string): string | undefined {
  const begin = document.indexOf(RULE_TABLE_BEGIN);
  const end = document.indexOf(RULE_TABLE_END);
  if (begin < 0 || end < begin) return undefined;
  return `${document.slice(0, begin + RULE_TABLE_BEGIN.length)}\n${ruleTableMarkdown(docsPrefix)}\n${document.slice(end)}`;
}
