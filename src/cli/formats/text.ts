// Ruff's concise text output: `path:row:col: CODE [*] message`, `[*]` when --fix can
// fix it, and `path:cell N:row:col: ...` in notebooks; then one summary line.
import { cellNumber, hasPreferredFix, Locator, sortedFindings, type LintReport, type LintedFile } from './report';
import { terminalText } from './terminalText';

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

function findingsSummary(report: LintReport): string | undefined {
  const remaining = report.files.reduce((n, f) => n + f.findings.length, 0);
  const fixed = report.files.reduce((n, f) => n + f.fixed, 0);
  if (remaining + fixed === 0) return undefined;
  if (report.fixMode && fixed > 0) {
    return `Found ${plural(remaining + fixed, 'error')} (${fixed} fixed, ${remaining} remaining).`;
  }
  const fixable = report.files.reduce((n, f) => n + f.findings.filter(hasPreferredFix).length, 0);
  const hint = !report.fixMode && fixable > 0 ? ` (${fixable} fixable with --fix)` : '';
  return `Found ${plural(remaining, 'error')}${hint}.`;
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
