// Ruff's concise text output: `path:row:col: CODE [*] message`, `[*]` when --fix can
// fix it, and `path:cell N:row:col: ...` in notebooks; then one summary line.
import { cellNumber, hasPreferredFix, Locator, sortedFindings, type LintReport, type LintedFile } from './report';
import { terminalText } from './terminalText';
import type { Severity } from '../../core/analysis';
import type { LocatedFinding } from '../lint/fixes';

export interface TextFormatOptions {
  color: boolean;
  /** Findings only, no summary line. */
  quiet: boolean;
}

type Paint = (text: string) => string;

function painter(color: boolean, code: string): Paint {
  return color ? (text) => `\x1b[${code}m${text}\x1b[0m` : (text) => text;
}

function fileLines(file: LintedFile, color: boolean): string[] {
  const bold = painter(color, '1');
  const red = painter(color, '1;31');
  const cyan = painter(color, '36');
  const locator = new Locator(file.sources);
  return sortedFindings(file).map((found) => {
    const { row, column } = locator.locate(found.finding.range.start, found.cellIndex);
    const cell = cellNumber(file, found.cellIndex);
    // The path and the message (which quotes source text) are made safe before colour is added.
    const where = `${bold(terminalText(file.displayPath))}${cell === undefined ? '' : `:cell ${cell}`}:${row}:${column}:`;
    const fixable = hasPreferredFix(found) ? ` ${cyan('[*]')}` : '';
    return `${where} ${red(found.finding.code)}${fixable} ${terminalText(found.finding.message)}`;
  });
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

const SEVERITY_WORDS: ReadonlyArray<[Severity, string]> = [['error', 'error'], ['warning', 'warning'], ['information', 'note'], ['hint', 'hint']];

/**
 * What was found, in the words of its severities: most rules warn, and "Found 3 errors" for
 * three warnings would say the code is broken. One severity names itself ("2 warnings");
 * several are counted as findings, with each severity's count in the brackets.
 */
function foundWords(findings: readonly LocatedFinding[], fixable: number): string {
  const counts = SEVERITY_WORDS.map(([severity, word]) => [findings.filter((f) => f.finding.severity === severity).length, word] as const).filter(([n]) => n > 0);
  const notes = [
    ...(counts.length > 1 ? [counts.map(([n, word]) => plural(n, word)).join(', ')] : []),
    ...(fixable > 0 ? [`${fixable} fixable with --fix`] : []),
  ];
  const head = counts.length === 1 ? plural(counts[0][0], counts[0][1]) : plural(findings.length, 'finding');
  return notes.length > 0 ? `${head} (${notes.join('; ')})` : head;
}

function findingsSummary(report: LintReport): string | undefined {
  const found = report.files.flatMap((f) => f.findings);
  const fixed = report.files.reduce((n, f) => n + f.fixed, 0);
  if (found.length + fixed === 0) return undefined;
  // Fixed findings are counted, not kept: their severities are not known here.
  if (report.fixMode && fixed > 0) return `Found ${plural(found.length + fixed, 'finding')} (${fixed} fixed, ${found.length} remaining).`;
  return `Found ${foundWords(found, report.fixMode ? 0 : found.filter(hasPreferredFix).length)}.`;
}

/** "All checks passed!" only when every file was checked; unreadable files are never "passed". */
export function summaryLine(report: LintReport): string {
  const findings = findingsSummary(report);
  const unchecked = report.problems.length;
  if (unchecked === 0) return findings ?? 'All checks passed!';
  const notChecked = `${plural(unchecked, 'file')} could not be checked (see the errors above).`;
  return findings ? `${findings} ${notChecked}` : `No findings in the files checked, but ${notChecked}`;
}

export function formatText(report: LintReport, options: TextFormatOptions): string {
  const lines = report.files.flatMap((file) => fileLines(file, options.color));
  if (!options.quiet) {
    const summary = summaryLine(report);
    lines.push(summary === 'All checks passed!' ? painter(options.color, '32')(summary) : painter(options.color, '1')(summary));
  }
  return lines.length > 0 ? `${lines.join('\n')}\n` : '';
}
