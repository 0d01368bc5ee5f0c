// A notebook finding in the words a reader of the notebook needs: "line 13" in a message or a
// related location means line 13 of some cell, and for a place in another cell the editor
// showed it bare, so it read as this cell's line 13 (issue 28 item 3). Places in other cells
// are said as "cell 17, line 13", with the cell's number in the notebook (markdown cells
// counted, as the editor and the CLI number them).
import type { CellFinding, Finding } from '../core/analysis';

/** `cellNumbers[i]`: the notebook position (1-based) of the i-th code cell analysed. */
export function withCellWording(found: CellFinding, cellNumbers: readonly number[]): Finding {
  const { finding, cellIndex } = found;
  const elsewhere = finding.related.filter((r) => r.cellIndex !== undefined && r.cellIndex !== cellIndex && cellNumbers[r.cellIndex] !== undefined);
  if (elsewhere.length === 0) return finding;
  const ownLines = new Set<number>(finding.related.filter((r) => r.cellIndex === undefined || r.cellIndex === cellIndex).map((r) => r.range.start.line + 1));
  ownLines.add(finding.range.start.line + 1);
  let message = finding.message;
  const named = new Map<number, number>();
  const ambiguous = new Set<number>(ownLines);
  for (const r of elsewhere) {
    const line = r.range.start.line + 1;
    const cell = cellNumbers[r.cellIndex!];
    // A line number of this cell too, or of two other cells, stays as it is: which one it means is unknown here.
    if (named.has(line) && named.get(line) !== cell) ambiguous.add(line);
    named.set(line, cell);
  }
  for (const line of ambiguous) named.delete(line);
  for (const [line, cell] of named) {
    message = message.replace(new RegExp(`\\bon line ${line}\\b`, 'g'), `in cell ${cell}, line ${line}`)
      .replace(new RegExp(`(?<!cell \\d+, )\\bline ${line}\\b`, 'g'), `cell ${cell}, line ${line}`);
  }
  const related = finding.related.map((r) => (elsewhere.includes(r)
    ? { ...r, message: `cell ${cellNumbers[r.cellIndex!]}, line ${r.range.start.line + 1}: ${r.message}` }
    : r));
  return { ...finding, message, related };
}
