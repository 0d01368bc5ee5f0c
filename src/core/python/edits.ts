// Text edits over plain strings: offsets <-> positions, and applying edits, shared by
// the CLI's --fix, the incremental parser and the fix tests.
import type { Position, TextEdit } from '../analysis/types';

/** Offsets where each line starts; line breaks are \n, \r\n or \r. */
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

export function offsetAt(starts: number[], text: string, pos: Position): number {
  if (pos.line >= starts.length) return text.length;
  const lineStart = starts[pos.line];
  const nextStart = pos.line + 1 < starts.length ? starts[pos.line + 1] : text.length;
  return Math.min(lineStart + pos.character, nextStart);
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

/**
 * Applies edits (any order) and returns the new text. Identical edits apply once (two
 * findings may share one fix, as DD003 and DD010 do); an edit overlapping one already
 * applied is skipped, so a second pass can pick it up.
 */
export function applyTextEdits(text: string, edits: readonly TextEdit[]): string {
  const starts = lineStarts(text);
  const seen = new Set<string>();
  const resolved = edits
    .map((e) => ({ start: offsetAt(starts, text, e.range.start), end: offsetAt(starts, text, e.range.end), text: e.newText }))
    .filter((e) => {
      const key = `${e.start}:${e.end}:${e.text}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .sort((a, b) => b.start - a.start || b.end - a.end);
  let out = text;
  let limit = Infinity;
  for (const edit of resolved) {
    if (edit.end > limit) continue; // overlaps an edit already applied: skip, the next run gets it
    out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
    limit = edit.start;
  }
  return out;
}
