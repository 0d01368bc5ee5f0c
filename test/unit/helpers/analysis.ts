// Runs the analyzer the way the tests need it: only the rules the corpus covers, and
// findings printed so that a failing test shows what the analyzer actually said.
import { analyzeNotebook, analyzeSource, RULES } from '../../../src/core/analysis';
import type { AnalyzeOptions, CellFinding, Finding, RuleCode } from '../../../src/core/analysis';

/**
 * The rules the fixture corpus covers: every implemented rule in the catalogue (each has
 * test/fixtures/rules/<CODE>/), read from it so that enabling a rule needs no edit here.
 */
export const CORE_RULES: readonly RuleCode[] = RULES.filter((r) => r.implemented).map((r) => r.code);

/**
 * Rules whose findings offer no fix by design (the message explains what to change): the
 * fix checks skip them, and their docs page's "Fixed" code is written by hand.
 */
export const RULES_WITHOUT_FIX: readonly RuleCode[] = ['DD007', 'DD014', 'DD019'];

export function offersNoFix(code: string): boolean {
  return (RULES_WITHOUT_FIX as readonly string[]).includes(code);
}

export function isCoreRule(code: string): boolean {
  return (CORE_RULES as readonly string[]).includes(code);
}

function byPosition(a: Finding, b: Finding): number {
  return a.range.start.line - b.range.start.line
    || a.range.start.character - b.range.start.character
    || a.code.localeCompare(b.code);
}

/**
 * Every implemented rule, the opt-in groups (performance) included, unless the test
 * selects: the corpus speaks for each rule, whether or not it is on by default.
 */
function allRulesUnlessSelected(options: AnalyzeOptions): AnalyzeOptions {
  return options.select ? options : { ...options, select: ['ALL'] };
}

/** Findings of the core rules, in source order. Filters here too, not only via `select`. */
export function coreFindings(source: string, options: AnalyzeOptions = {}): Finding[] {
  return analyzeSource(source, allRulesUnlessSelected(options)).filter((f) => isCoreRule(f.code)).sort(byPosition);
}

export function coreCellFindings(cells: readonly string[], options: AnalyzeOptions = {}): CellFinding[] {
  return analyzeNotebook(cells, allRulesUnlessSelected(options))
    .filter((c) => isCoreRule(c.finding.code))
    .sort((a, b) => a.cellIndex - b.cellIndex || byPosition(a.finding, b.finding));
}

export function formatFinding(f: Finding): string {
  const { start, end } = f.range;
  const fixes = f.fixes.map((x) => `${x.preferred ? '*' : ''}${x.title}`).join(' | ');
  return `${f.code} ${start.line + 1}:${start.character + 1}-${end.line + 1}:${end.character + 1} `
    + `"${f.message}" [related ${f.related.length}] [fixes: ${fixes}]`;
}

export function formatFindings(findings: readonly Finding[]): string {
  return findings.length ? findings.map((f) => `    ${formatFinding(f)}`).join('\n') : '    (none)';
}

/** 0-based line of the first line containing `needle`; throws so a typo cannot pass. */
export function lineOf(source: string, needle: string, from = 0): number {
  const index = source.split('\n').findIndex((text, i) => i >= from && text.includes(needle));
  if (index < 0) throw new Error(`no line contains ${JSON.stringify(needle)}`);
  return index;
}
