// A notebook finding in the words a reader of the notebook needs: "line 13" in a message or a
// related location means line 13 of some cell, and for a place in another cell the editor
// and the CLI showed it bare, so it read as this cell's line 13 (issue 28 item 3). Places in other cells
// are said as "cell 17, line 13", with the cell's number in the notebook (markdown cells
// counted, as the editor and the CLI number them).
import { nameOtherPlacesLines } from './otherPlaceLines';
import type { CellFinding, Finding } from './types';

/** `cellNumbers[i]`: the notebook position (1-based) of the i-th code cell analysed. */
export function withCellWording(found: CellFinding, cellNumbers: readonly number[]): Finding {
  const { finding, cellIndex } = found;
  const elsewhere = finding.related.filter((r) => r.cellIndex !== undefined && r.cellIndex !== cellIndex && cellNumbers[r.cellIndex] !== undefined);
  if (elsewhere.length === 0) return finding;
  const ownLines = [finding.range.start.line + 1, ...finding.related.filter((r) => r.cellIndex === undefined || r.cellIndex === cellIndex).map((r) => r.range.start.line + 1)];
  const others = elsewhere.map((r) => ({ line: r.range.start.line + 1, place: cellNumbers[r.cellIndex!]! }));
  const message = nameOtherPlacesLines(finding.message, ownLines, others, (text, line, cell) => text
    .replace(new RegExp(`\\bon line ${line}\\b`, 'g'), `in cell ${cell}, line ${line}`)
    .replace(new RegExp(`(?<!cell \\d+, )\\bline ${line}\\b`, 'g'), `cell ${cell}, line ${line}`));
  const related = finding.related.map((r) => (elsewhere.includes(r)
    ? { ...r, message: `cell ${cellNumbers[r.cellIndex!]}, line ${r.range.start.line + 1}: ${r.message}` }
    : r));
  return { ...finding, message, related };
}
