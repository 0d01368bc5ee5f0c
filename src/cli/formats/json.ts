// Ruff's JSON output (`ruff check --output-format json`): an array of diagnostics with
// 1-based rows and code-point columns, keys in Ruff's (alphabetical) order.
// Notebooks, as in Ruff, carry `"cell": N` and cell-local rows; elsewhere `"cell": null`.
import { ruleDocsUrl } from '../../core/analysis/catalog';
import type { Fix, Position } from '../../core/analysis/types';
import type { LocatedFinding } from '../lint/fixes';
import { cellNumber, Locator, sortedFindings, type LintReport, type LintedFile, type RowColumn } from './report';
import { terminalJson } from './terminalText';

/** Ruff prints `{"column": .., "row": ..}`: keys sorted, as everywhere in its JSON. */
function ruffLocation(locator: Locator, position: Position, cellIndex: number | undefined): RowColumn {
  const { row, column } = locator.locate(position, cellIndex);
  return { column, row };
}

export interface RuffJsonEdit {
  /** Notebooks only (an extension of Ruff's shape): the cell this edit is in, which may differ from the finding's. */
  cell?: number;
  content: string;
  end_location: RowColumn;
  location: RowColumn;
}

export interface RuffJsonDiagnostic {
  cell: number | null;
  code: string;
  end_location: RowColumn;
  filename: string;
  fix: { applicability: 'safe'; edits: RuffJsonEdit[]; message: string } | null;
  location: RowColumn;
  message: string;
  noqa_row: number;
  url: string;
}

function jsonFix(file: LintedFile, found: LocatedFinding, locator: Locator): RuffJsonDiagnostic['fix'] {
  const fix: Fix | undefined = found.finding.fixes.find((f) => f.preferred);
  if (!fix || fix.edits.length === 0) return null;
  const edits = fix.edits.map((edit): RuffJsonEdit => {
    const cellIndex = edit.cellIndex ?? found.cellIndex;
    const cell = cellNumber(file, cellIndex);
    return {
      ...(cell === undefined ? {} : { cell }),
      content: edit.newText,
      end_location: ruffLocation(locator, edit.range.end, cellIndex),
      location: ruffLocation(locator, edit.range.start, cellIndex),
    };
  });
  return { applicability: 'safe', edits, message: fix.title };
}

export function toRuffJson(report: LintReport): RuffJsonDiagnostic[] {
  return report.files.flatMap((file) => {
    const locator = new Locator(file.sources);
    return sortedFindings(file).map((found): RuffJsonDiagnostic => {
      const location = ruffLocation(locator, found.finding.range.start, found.cellIndex);
      return {
        cell: cellNumber(file, found.cellIndex) ?? null,
        code: found.finding.code,
        end_location: ruffLocation(locator, found.finding.range.end, found.cellIndex),
        filename: file.path,
        fix: jsonFix(file, found, locator),
        location,
        message: found.finding.message,
        // `# noqa` is honoured on the line where a finding starts.
        noqa_row: location.row,
        url: ruleDocsUrl(found.finding.code),
      };
    });
  });
}

export function formatJson(report: LintReport): string {
  return `${terminalJson(JSON.stringify(toRuffJson(report), null, 2))}\n`;
}
