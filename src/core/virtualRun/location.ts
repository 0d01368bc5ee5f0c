// Where a finding of a virtual-GPU run is shown: the innermost frame of the user's stack,
// the line the person has to change or the line that called into the code that failed.
// The whole line from its first non-blank character is the range: a runtime frame knows
// its line, not its column.
import type { Range } from '../analysis/types';
import type { RunFrame } from './report';

/** The range of a frame's line in `source` (the file, or the notebook cell), 0-based. */
export function frameRange(frame: RunFrame, source: string | undefined): Range {
  const line = frame.line - 1;
  const lines = source === undefined ? [] : source.split(/\r?\n/);
  const textLine = lines[line] ?? '';
  const start = textLine.length - textLine.trimStart().length;
  return { start: { line, character: start }, end: { line, character: textLine.trimEnd().length } };
}

/** "train.py:40 in main" for a message or a list. */
export function frameLabel(frame: RunFrame, displayPath: string, cellNumber?: number): string {
  const cell = cellNumber === undefined ? '' : `:cell ${cellNumber}`;
  return `${displayPath}${cell}:${frame.line} in ${frame.function}`;
}
