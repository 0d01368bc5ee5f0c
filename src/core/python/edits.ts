// Text edits over plain strings: offsets <-> positions, and applying edits, shared by
// the CLI's --fix, the incremental parser and the fix tests.
import type { TextEdit } from '../analysis/types';
import { lineStarts, offsetAt } from './lines';

// Lines and columns are defined in lines.ts; re-exported for the callers that apply edits.
export { lineStarts, offsetAt, positionAt } from './lines';

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
