// Notebook cells as program units. IPython syntax (`%magic`, `!shell`, `%%cell magics`,
// `x = !cmd`, `x = %magic`, `obj?`) is not Python: it is overwritten in place, so every
// position of the Python around it maps 1:1 to the cell. The forms follow IPython's own
// input transformers (IPython/core/inputtransformer2.py): they apply only where a logical
// line starts, and an IPython line runs on through its backslash continuations.

const NON_PYTHON_CELL_MAGICS =
  /^%%(bash|sh|script|html|javascript|js|latex|markdown|perl|ruby|svg|writefile|file|sql|cython|R|bigquery|sx|system|python[23]?|pypy|capture\s+--no-stdout\s*$)\b/;
/** IPython's escape characters: a logical line starting with one is not Python. */
const ESCAPES = new Set(['!', '%', '?', ',', ';', '/']);

export function blankIPythonSyntax(cell: string): string {
  const lines = cell.split(/(?<=\n)/);
  if (lines.length > 0 && NON_PYTHON_CELL_MAGICS.test(lines[0].trimStart())) {
    return lines.map(blank).join('');
  }
  const out: string[] = [];
  let state: LineState = LOGICAL_LINE_START;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const atStart = startsLogicalLine(state);
    const scanned = scanLine(line, state);
    const ipython = atStart ? ipythonForm(line, scanned) : undefined;
    if (!ipython) {
      out.push(line);
      state = scanned.end;
      continue;
    }
    out.push(ipython);
    // The command goes on through `\`-continued lines, whatever they contain.
    while (/\\\r?\n$/.test(lines[i]) && i + 1 < lines.length) out.push(blank(lines[++i]));
    state = LOGICAL_LINE_START;
  }
  return out.join('');
}

/** The line rewritten as Python, or undefined when it is Python already. */
function ipythonForm(line: string, scanned: ScannedLine): string | undefined {
  const first = line.trimStart()[0];
  // `!cmd`, `%magic`, `%%magic`, `?obj`: a statement that runs no Python of this program.
  if (first !== undefined && ESCAPES.has(first)) return asPass(line);
  const assign = scanned.firstAssign;
  if (assign !== undefined) {
    // `x = !cmd` (SystemAssign) and `x = %magic args` (MagicAssign): the name stays bound.
    const rhs = /^\s*(!|%(?=[A-Za-z_]))/.exec(line.slice(assign + 1));
    if (rhs) {
      const start = assign + 1 + rhs[0].length - rhs[1].length;
      const body = line.slice(start).replace(/\r?\n$/, '');
      return line.slice(0, start) + 'None' + ' '.repeat(Math.max(0, body.length - 4)) + line.slice(start + body.length);
    }
  }
  // `obj?` / `obj??` (help): Python never has a `?` outside a string.
  if (scanned.lastCode !== undefined && line[scanned.lastCode] === '?' && startsLogicalLine(scanned.end)) return asPass(line);
  return undefined;
}

/** A statement that does nothing, so an IPython line alone in a block leaves the block valid. */
function asPass(line: string): string {
  const indent = /^[ \t]*/.exec(line)![0];
  const rest = blank(line.slice(indent.length));
  return indent + 'pass' + rest.slice(Math.min(4, rest.replace(/\r?\n$/, '').length));
}

function blank(line: string): string {
  return line.replace(/[^\r\n]/g, ' ');
}

/** Where a physical line leaves the tokenizer: inside brackets, a string, or a `\` continuation. */
interface LineState {
  depth: number;
  quote: string | undefined;
  continued: boolean;
}

const LOGICAL_LINE_START: LineState = { depth: 0, quote: undefined, continued: false };

function startsLogicalLine(state: LineState): boolean {
  return state.depth === 0 && state.quote === undefined && !state.continued;
}

interface ScannedLine {
  end: LineState;
  /** Column of the first plain `=` outside brackets and strings (IPython's `_find_assign_op`). */
  firstAssign: number | undefined;
  /** Column of the last character of code, outside strings and comments. */
  lastCode: number | undefined;
}

/** A small Python tokenizer, just enough to know strings, comments and brackets. */
function scanLine(line: string, from: LineState): ScannedLine {
  let { depth, quote } = from;
  let firstAssign: number | undefined;
  let lastCode: number | undefined;
  const text = line.replace(/\r?\n$/, '');
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (quote !== undefined) {
      if (c === '\\') i += 2;
      else if (text.startsWith(quote, i)) {
        i += quote.length;
        quote = undefined;
        lastCode = i - 1;
      } else i += 1;
      continue;
    }
    if (c === '#') break;
    if (c === '"' || c === "'") {
      quote = text.startsWith(c.repeat(3), i) ? c.repeat(3) : c;
      i += quote.length;
      continue;
    }
    if ('([{'.includes(c)) depth += 1;
    else if (')]}'.includes(c)) depth = Math.max(0, depth - 1);
    else if (c === '=' && depth === 0 && firstAssign === undefined && isPlainAssign(text, i)) firstAssign = i;
    if (!/\s/.test(c)) lastCode = i;
    i += 1;
  }
  const continued = /\\$/.test(text) && (quote === undefined || quote.length === 1);
  // A one-quote string ends with its line unless the line is continued.
  if (quote !== undefined && quote.length === 1 && !continued) quote = undefined;
  return { end: { depth, quote, continued }, firstAssign, lastCode };
}

/** `=` that is neither part of `==`, `!=`, `<=`, `>=`, `:=` nor of an augmented assignment. */
function isPlainAssign(text: string, i: number): boolean {
  return text[i + 1] !== '=' && !'=!<>:+-*/%&|^@~'.includes(text[i - 1] ?? ' ');
}

/**
 * A notebook file's code cells, in order, IPython syntax blanked: what its kernel runs, for
 * reading its imports and running it with a module it imports. Undefined for text that is
 * not nbformat JSON.
 */
export function notebookCells(json: string): string[] | undefined {
  let document: unknown;
  try {
    document = JSON.parse(json);
  } catch {
    return undefined;
  }
  const cells = (document as { cells?: unknown } | null)?.cells;
  if (!Array.isArray(cells)) return undefined;
  const code: string[] = [];
  for (const cell of cells as Array<{ cell_type?: unknown; source?: unknown }>) {
    if (cell?.cell_type !== 'code') continue;
    const source = typeof cell.source === 'string' ? cell.source : Array.isArray(cell.source) ? cell.source.filter((l): l is string => typeof l === 'string').join('') : '';
    code.push(blankIPythonSyntax(source));
  }
  return code;
}
