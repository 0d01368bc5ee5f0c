// A marimo notebook is a Python file whose cells are functions (`@app.cell def _(mo, net):
// ... return (model,)`): marimo runs each body once, in order of what it needs, with the
// names other cells define. Analysed as functions, every cell saw its inputs as unknown
// parameters and nothing in the notebook was found. Read as the script marimo runs, each
// cell's header is overwritten in place with `with 0:` (a block that always runs, unlike an
// `if` the analysis does not decide: a cell's body then runs at module level, in file order,
// which is the order marimo writes a runnable notebook in) and its decorator with spaces:
// every position of a body maps 1:1 to the file, so findings and related places need no
// mapping. A cell's `return` at module level is ignored. The cells
// are found line by line, not by a parse: a body that does not parse while it is typed must
// not turn the notebook back into functions.
// A cell sees another cell's names only through its parameters: a fix that writes one the
// cell does not take (`.to(device)` in a cell without `device`) would raise NameError there,
// so it is dropped.
import type { Finding } from './types';

const CELL_DECORATOR = /^@[ \t]*\w+\.cell\b/;
const HEADER = 'with 0:';

interface Cell {
  /** Rows of the body, first and last. */
  firstRow: number;
  lastRow: number;
  /** Its parameters and the names it returns: what it may name of the notebook's. */
  sees: Set<string>;
}

export interface MarimoScript {
  script: string;
  cells: Cell[];
  /** Every name a cell returns: another cell's unless it takes it. */
  cellNames: Set<string>;
}

/** `source` as the script its marimo cells make, or undefined when it is not a marimo notebook. */
export function marimoScript(source: string): MarimoScript | undefined {
  if (!/^import marimo\b/m.test(source) || !/^@[ \t]*\w+\.cell\b/m.test(source)) return undefined;
  // Lines as the parser counts them: `\n`, `\r\n` and a lone `\r` each end one.
  const lines = source.split(/(?<=\n|\r(?!\n))/);
  const cells: Cell[] = [];
  const cellNames = new Set<string>();
  for (let row = 0; row < lines.length; row++) {
    if (!CELL_DECORATOR.test(lines[row]!) || !balanced(lines[row]!)) continue;
    const header = headerRows(lines, row + 1);
    if (!header) continue;
    const params = parameters(lines.slice(row + 1, header.last + 1).join(''));
    // On the first header line long enough (`def _(` alone is not, when the parameters run on).
    const at = header.rows.find((r) => lines[r]!.replace(/[\r\n]+$/, '').length >= HEADER.length);
    if (at === undefined) continue;
    lines[row] = blank(lines[row]!);
    for (const r of header.rows) lines[r] = blank(lines[r]!);
    lines[at] = HEADER + lines[at]!.slice(HEADER.length);
    const lastRow = bodyEnd(lines, header.last + 1);
    const returned = returnedNames(lines.slice(header.last + 1, lastRow + 1));
    for (const name of returned) cellNames.add(name);
    cells.push({ firstRow: header.last + 1, lastRow, sees: new Set([...params, ...returned]) });
    row = header.last;
  }
  return cells.length ? { script: lines.join(''), cells, cellNames } : undefined;
}

/** The findings with every fix dropped that names, in a cell, another cell's name the cell does not take. */
export function withoutFixesNamingOtherCells(findings: Finding[], notebook: MarimoScript): Finding[] {
  return findings.map((f) => {
    const fixes = f.fixes.filter((fix) => fix.edits.every((edit) => {
      const cell = notebook.cells.find((c) => c.firstRow <= edit.range.start.line && edit.range.start.line <= c.lastRow);
      if (!cell) return true;
      const named = edit.newText.match(/(?<![.\w])[A-Za-z_]\w*/g) ?? [];
      return named.every((name) => !notebook.cellNames.has(name) || cell.sees.has(name));
    }));
    return fixes.length === f.fixes.length ? f : { ...f, fixes };
  });
}

/** `def _(a, b):` from `row`, over as many lines as its parentheses take: its last row. */
function headerRows(lines: readonly string[], row: number): { last: number; rows: number[] } | undefined {
  const first = lines[row];
  // `async def` cells stay functions.
  if (!first || !/^def \w+\s*\(/.test(first)) return undefined;
  let depth = 0;
  for (let r = row; r < lines.length && r < row + 50; r++) {
    depth += parenDepth(lines[r]!);
    if (depth === 0 && /:\s*(#.*)?$/.test(lines[r]!.trimEnd())) return { last: r, rows: Array.from({ length: r - row + 1 }, (_, i) => row + i) };
  }
  return undefined;
}

/** The last row of the body that starts at `row`: before the next line of code at column 0. */
function bodyEnd(lines: readonly string[], row: number): number {
  let last = row - 1;
  for (let r = row; r < lines.length; r++) {
    const line = lines[r]!;
    if (/^\S/.test(line) && !line.startsWith('#')) break;
    if (line.trim()) last = r;
  }
  return Math.max(last, row);
}

function parameters(header: string): string[] {
  const open = header.indexOf('(');
  const close = header.lastIndexOf(')');
  if (open < 0 || close < open) return [];
  return header.slice(open + 1, close).split(',').map((p) => /^\s*\**\s*([A-Za-z_]\w*)/.exec(p)?.[1]).filter((p): p is string => !!p);
}

/** `return (a, b)`, `return a, b`, `return a` as the body's last statement. */
function returnedNames(body: readonly string[]): string[] {
  let at = body.length - 1;
  while (at >= 0 && !/^[ \t]+return\b/.test(body[at]!)) at--;
  if (at < 0) return [];
  const text = body.slice(at).join('').replace(/^[ \t]+return\b/, '');
  return text.replace(/[()]/g, ' ').split(',').map((p) => p.trim()).filter((p) => /^[A-Za-z_]\w*$/.test(p));
}

function parenDepth(line: string): number {
  const code = line.replace(/#.*$/, '').replace(/(["'])(?:\\.|(?!\1).)*\1/g, '');
  return (code.match(/[([{]/g)?.length ?? 0) - (code.match(/[)\]}]/g)?.length ?? 0);
}

function balanced(line: string): boolean {
  return parenDepth(line) === 0;
}

/** The line's text as spaces, its line break kept. */
function blank(line: string): string {
  return line.replace(/[^\r\n]/g, ' ');
}
