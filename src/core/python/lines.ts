// The project's one definition of lines and columns: LSP's. `\n`, `\r\n` and a lone `\r`
// each end a line, and a column counts UTF-16 code units from the line's start. Tree-sitter
// starts a row only at `\n`; the parser is given lone `\r`s as `\n` (parser.ts), so its
// positions agree with these.
import type { Position } from '../analysis/types';

/** Offsets where each line starts. */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 13 /* \r */) {
      if (text.charCodeAt(i + 1) === 10) i++;
      starts.push(i + 1);
    } else if (ch === 10 /* \n */) {
      starts.push(i + 1);
    }
  }
  return starts;
}

/** The offset of `pos`, clamped to its line (a column past the end is the line's end, before its break). */
export function offsetAt(starts: number[], text: string, pos: Position): number {
  if (pos.line >= starts.length) return text.length;
  if (pos.line < 0) return 0;
  const lineStart = starts[pos.line];
  const nextStart = pos.line + 1 < starts.length ? starts[pos.line + 1] : text.length;
  let lineEnd = nextStart;
  if (pos.line + 1 < starts.length) {
    lineEnd -= text.charCodeAt(nextStart - 1) === 10 && text.charCodeAt(nextStart - 2) === 13 ? 2 : 1;
  }
  return Math.min(lineStart + Math.max(0, pos.character), lineEnd);
}

export function positionAt(starts: number[], offset: number): Position {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo, character: offset - starts[lo] };
}

/** A text's line table, built once: offsets to positions by binary search. */
export class LineIndex {
  readonly starts: number[];

  constructor(readonly text: string) {
    this.starts = lineStarts(text);
  }

  positionAt(offset: number): Position {
    return positionAt(this.starts, offset);
  }

  offsetAt(pos: Position): number {
    return offsetAt(this.starts, this.text, pos);
  }

  get lineCount(): number {
    return this.starts.length;
  }
}

/**
 * The point of `newEnd` in `next`, read from the lines a change starting on `startLine` can
 * touch (from the line before it: a `\r` ending that line pairs with a `\n` the change begins
 * with) instead of a line table of the whole new text, which would cost a scan of a large file
 * on every keystroke. The lines before are `starts` of the text before the change.
 */
export function newEndOf(next: string, starts: readonly number[], startLine: number, newEnd: number): { line: number; character: number } {
  // A `\r` just before the end that pairs with a `\n` after it is one break the window cannot see.
  if (next.charCodeAt(newEnd - 1) === 13 && next.charCodeAt(newEnd) === 10) return positionAt(lineStarts(next), newEnd);
  const firstLine = Math.max(0, startLine - 1);
  const from = starts[firstLine];
  const window = lineStarts(next.slice(from, newEnd));
  return { line: firstLine + window.length - 1, character: newEnd - from - window[window.length - 1] };
}
