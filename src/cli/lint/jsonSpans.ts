// Where each notebook cell's "source" value lies in the notebook's JSON text, so that --fix
// can replace exactly those bytes and leave every other byte as the author's tools wrote it
// (re-serialising would unescape "\u00e9", round 12345678901234567890 and turn 1.0 into 1).
//
// The text has already passed JSON.parse, so this scanner only finds boundaries: it reads
// the top-level object's members, the "cells" array's elements and each cell's members,
// and skips every other value without recursion. Duplicate keys resolve as in JSON.parse:
// the last one wins.

/** A value's text is `text.slice(start, end)`. */
export interface Span {
  start: number;
  end: number;
}

export interface CellSpans {
  /** The cell's "source" value, when it has one. */
  source?: Span;
}

export class JsonShapeError extends Error {}

class Scanner {
  pos = 0;

  constructor(private readonly text: string) {}

  skipSpace(): void {
    while (this.pos < this.text.length && ' \t\n\r'.includes(this.text[this.pos])) this.pos++;
  }

  peek(): string {
    this.skipSpace();
    return this.text[this.pos] ?? '';
  }

  expect(char: string): void {
    if (this.peek() !== char) throw new JsonShapeError(`expected '${char}' at offset ${this.pos}`);
    this.pos++;
  }

  /** Skips a string starting at pos (at its opening quote) and returns its span. */
  string(): Span {
    this.skipSpace();
    const start = this.pos;
    if (this.text[start] !== '"') throw new JsonShapeError(`expected a string at offset ${start}`);
    let i = start + 1;
    for (;;) {
      const quote = this.text.indexOf('"', i);
      if (quote < 0) throw new JsonShapeError('unterminated string');
      let backslashes = 0;
      for (let j = quote - 1; this.text[j] === '\\'; j--) backslashes++;
      i = quote + 1;
      if (backslashes % 2 === 0) break;
    }
    this.pos = i;
    return { start, end: i };
  }

  /** Skips any value, nesting counted rather than recursed into. */
  value(): Span {
    this.skipSpace();
    const start = this.pos;
    let depth = 0;
    do {
      const char = this.peek();
      if (char === '"') this.string();
      else if (char === '{' || char === '[') {
        depth++;
        this.pos++;
      } else if (char === '}' || char === ']') {
        depth--;
        this.pos++;
      } else if (char === ',' || char === ':') {
        if (depth === 0) break;
        this.pos++;
      } else if (char === '') throw new JsonShapeError('unexpected end of text');
      else {
        // A number, true, false or null: up to the next delimiter.
        while (this.pos < this.text.length && !',:]}" \t\n\r'.includes(this.text[this.pos])) this.pos++;
      }
    } while (depth > 0);
    return { start, end: this.pos };
  }

  /** The members of an object at pos: `onMember` reads each value (leaving pos after it). */
  object(onMember: (key: string) => void): void {
    this.expect('{');
    if (this.peek() === '}') {
      this.pos++;
      return;
    }
    for (;;) {
      const key = this.string();
      this.expect(':');
      onMember(JSON.parse(this.text.slice(key.start, key.end)) as string);
      if (this.peek() === ',') this.pos++;
      else return this.expect('}');
    }
  }

  array(onElement: () => void): void {
    this.expect('[');
    if (this.peek() === ']') {
      this.pos++;
      return;
    }
    for (;;) {
      onElement();
      if (this.peek() === ',') this.pos++;
      else return this.expect(']');
    }
  }
}

/** Each element of the top-level "cells" array, in order, with the span of its "source". */
export function notebookCellSpans(text: string): CellSpans[] {
  const scanner = new Scanner(text);
  let cells: CellSpans[] | undefined;
  scanner.object((key) => {
    if (key !== 'cells' || scanner.peek() !== '[') {
      scanner.value();
      return;
    }
    const found: CellSpans[] = [];
    scanner.array(() => {
      const cell: CellSpans = {};
      found.push(cell);
      if (scanner.peek() !== '{') {
        scanner.value();
        return;
      }
      scanner.object((member) => {
        const span = scanner.value();
        if (member === 'source') cell.source = span;
      });
    });
    cells = found;
  });
  scanner.skipSpace();
  if (scanner.pos !== text.length) throw new JsonShapeError(`unexpected text at offset ${scanner.pos}`);
  if (!cells) throw new JsonShapeError('no "cells" list');
  return cells;
}
