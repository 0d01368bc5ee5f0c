// What the formatters print: the files checked and their findings, as plain data
// (so each format can be tested with fabricated findings, no analyzer needed).
import type { Position, SkippedStatement } from '../../core/analysis/types';
import { lineStarts } from '../../core/python/edits';
import type { LocatedFinding } from '../lint/fixes';

export interface LintedFile {
  /** Absolute path. */
  path: string;
  /** Relative to the working folder when inside it, else absolute. */
  displayPath: string;
  /** The file's text, or each code cell's source for a notebook (after --fix, the fixed text). */
  sources: string[];
  /** Notebooks only: 1-based position in the notebook of each code cell, as Jupyter counts cells. */
  cellNumbers?: number[];
  findings: LocatedFinding[];
  /** Findings fixed by --fix in this file. */
  fixed: number;
  /**
   * Why --fix left this file (or some of its fixes) alone, e.g. "not fixed: a symbolic
   * link"; printed on stderr as `path: note`. The findings are still reported.
   */
  notes?: string[];
  /**
   * Why --fix could not write this file although it was checked (read-only, changed while
   * fixing, a full disk); printed on stderr as errors, and the run exits 1. The findings
   * are those of the file as it stands.
   */
  fixErrors?: string[];
  /** Statements of the final sources that have a syntax error and were skipped by the analysis (printed on stderr). */
  syntaxErrors?: SkippedStatement[];
}

export interface LintReport {
  files: LintedFile[];
  /** Files that could not be checked, with the reason (printed on stderr). */
  problems: Array<{ path: string; displayPath: string; reason: string }>;
  fixMode: boolean;
}

/** A 1-based row and column, the column counted in Unicode code points as Ruff does. */
export interface RowColumn {
  row: number;
  column: number;
}

/** Converts positions in one file's sources (UTF-16, 0-based) to Ruff's rows and columns. */
export class Locator {
  private readonly starts: Array<number[] | undefined> = [];

  constructor(private readonly sources: readonly string[]) {}

  locate(position: Position, cellIndex = 0): RowColumn {
    const source = this.sources[cellIndex];
    if (source === undefined) return { row: position.line + 1, column: position.character + 1 };
    const starts = (this.starts[cellIndex] ??= lineStarts(source));
    const lineStart = starts[Math.min(position.line, starts.length - 1)];
    const prefix = source.slice(lineStart, lineStart + position.character);
    // Array.from iterates by code point, so a surrogate pair (an emoji) counts once.
    return { row: position.line + 1, column: Array.from(prefix).length + 1 };
  }
}

/** Findings in reading order: cell, line, character, then code. */
export function sortedFindings(file: LintedFile): LocatedFinding[] {
  return file.findings.slice().sort((a, b) => {
    const ra = a.finding.range.start;
    const rb = b.finding.range.start;
    return (a.cellIndex ?? 0) - (b.cellIndex ?? 0) || ra.line - rb.line || ra.character - rb.character
      || (a.finding.code < b.finding.code ? -1 : a.finding.code > b.finding.code ? 1 : 0);
  });
}

export function hasPreferredFix(found: LocatedFinding): boolean {
  return found.finding.fixes.some((f) => f.preferred && f.edits.length > 0);
}

/** The 1-based notebook cell number of a finding, or undefined outside notebooks. */
export function cellNumber(file: LintedFile, cellIndex: number | undefined): number | undefined {
  if (!file.cellNumbers) return undefined;
  return file.cellNumbers[cellIndex ?? 0] ?? (cellIndex ?? 0) + 1;
}
