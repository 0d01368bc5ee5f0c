// A finding's message names places by line number ("moved to device on line 5"), which a
// reader takes as a line of the file or cell the finding is in. Where such a line is only
// another place's (a file that imports this one, another notebook cell), the message says
// which place; the analyzer ("line 5 of train.py") and the editor's notebook cells
// ("cell 3, line 5") each say it in their own words through this one decision.

/** A line of another place that a message may name, and which place it is. */
export interface OtherPlaceLine<P> {
  line: number;
  place: P;
}

/**
 * `message` with each line number of another place reworded by `say`, except the lines
 * that are also `ownLines` and those two different places share: which one is meant is
 * unknown there, so they stay as they are. Places are compared with `===`.
 */
export function nameOtherPlacesLines<P>(
  message: string,
  ownLines: Iterable<number>,
  others: Iterable<OtherPlaceLine<P>>,
  say: (message: string, line: number, place: P) => string,
): string {
  const own = new Set(ownLines);
  const named = new Map<number, P>();
  const ambiguous = new Set<number>();
  for (const { line, place } of others) {
    if (own.has(line)) continue;
    if (named.has(line) && named.get(line) !== place) ambiguous.add(line);
    named.set(line, place);
  }
  let out = message;
  for (const [line, place] of named) if (!ambiguous.has(line)) out = say(out, line, place);
  return out;
}
