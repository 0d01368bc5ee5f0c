// Which findings are shown: rule selection (select/ignore by code, prefix or opt-in group, as in Ruff)
// and `# noqa` / `# noqa: DD001, DD003` comments on the finding's first line.
import { isDefaultRule, RULES, selectorMatches } from './catalog';
import type { RuleCode, RuleSelection } from './types';

const NOQA = /#\s*noqa(?::[\s]?(?<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?/i;

/** undefined: no noqa on the line; 'all': a bare `# noqa`; else the listed codes. */
export function noqaCodes(line: string): 'all' | Set<string> | undefined {
  const hash = commentStart(line);
  if (hash < 0) return undefined;
  const m = NOQA.exec(line.slice(hash));
  if (!m) return undefined;
  const codes = m.groups?.codes;
  if (!codes) return 'all';
  return new Set(codes.split(/[,\s]+/).filter(Boolean).map((c) => c.toUpperCase()));
}

/** Where the line's comment starts: the first `#` outside a string literal, or -1. */
function commentStart(line: string): number {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quote) {
      if (ch === '\\') i++;
      else if (line.startsWith(quote, i)) {
        i += quote.length - 1;
        quote = undefined;
      }
    } else if (ch === '#') {
      return i;
    } else if (ch === '"' || ch === "'") {
      quote = line.startsWith(ch.repeat(3), i) ? ch.repeat(3) : ch;
      i += quote.length - 1;
    }
  }
  return -1;
}

export function isSuppressedByNoqa(code: RuleCode, line: string): boolean {
  const codes = noqaCodes(line);
  return codes === 'all' || (codes !== undefined && codes.has(code));
}

function matches(code: RuleCode, patterns: readonly string[]): boolean {
  const info = RULES.find((r) => r.code === code)!;
  return patterns.some((p) => selectorMatches(p, info));
}

/**
 * The rules that run: implemented ones matching `select` and not `ignore`. Without a
 * `select`, the default set: every implemented rule outside the opt-in groups.
 */
export function enabledRules(selection: RuleSelection): Set<RuleCode> {
  const out = new Set<RuleCode>();
  const selecting = !!selection.select && selection.select.length > 0;
  for (const r of RULES) {
    if (!r.implemented) continue;
    if (selecting ? !matches(r.code, selection.select!) : !isDefaultRule(r)) continue;
    if (selection.ignore && matches(r.code, selection.ignore)) continue;
    out.add(r.code);
  }
  return out;
}
