// Where Python statements start, read from the text alone, for syntax-error recovery
// (recovery.ts). Tree-sitter's error recovery may swallow the rest of a file into one ERROR
// node after an unclosed bracket, so it cannot say where the broken statement ends; the
// text can: a line is a new statement when it is outside brackets, strings and `\`
// continuations, and an open bracket is taken as unclosed when a line that can only be a
// statement comes at or left of the bracket's statement's indentation.

export type LineKind =
  /** Starts a statement (a logical line). */
  | 'statement'
  /** Continues the statement above: inside brackets, a string, or after a `\`. */
  | 'continuation'
  /** Only whitespace or a comment. */
  | 'blank';

export interface LineInfo {
  kind: LineKind;
  /** Columns of leading whitespace. */
  indent: number;
}

export interface ScannedLines {
  lines: LineInfo[];
  /**
   * Statements whose brackets do not match: one left open when a line that can only be a new
   * statement came (or the text ended), or a closing bracket without its opener; or a
   * triple-quoted string that looks unclosed: its "closing" quotes are followed by words, so
   * they open the next string (a one-line docstring cut open), and from there on strings and
   * code are read swapped, so nothing after it is reported. Each is the row where it starts
   * and the last row it can reach (before the next statement); `stringRow`, for a string, is
   * the row it opens on: the broken part ends there.
   */
  unbalanced: Array<{ start: number; end: number; unclosed: boolean; stringRow?: number }>;
  /**
   * Rows of statements whose code stops where an operand must follow (`optimizer.`, `x =`,
   * `a +`): outside brackets and without a `\` a line cannot continue, so the statement is
   * half-typed. Tree-sitter may read on into the next line (`optimizer.` + `with …` became
   * `optimizer.with`) and hang the error on the block around it.
   */
  dangling: number[];
}

/** Never mistaken for a continuation when they start a line, inside brackets or not. */
const SIMPLE_STATEMENT = /^(?:def|class|return|import|from|raise|assert|del|pass|break|continue|global|nonlocal)\b|^@[A-Za-z_]/;
/** Also start expressions or clauses (`x if c else y`, `[f(x) for x in xs]`): a statement only with its trailing colon. */
const COMPOUND_HEADER = /^(?:if|elif|else|for|while|with|try|except|finally|async)\b.*:\s*(?:#.*)?$/;
/** `name = value` with spaces around `=` (keyword arguments are written `name=value`), or augmented. */
const ASSIGNMENT = /^[A-Za-z_][\w.]*(?:\[[^\]]*\])?(?:\s*,\s*[A-Za-z_][\w.]*)*\s+(?:[-+*/%&|^@]|\/\/|\*\*|<<|>>)?=\s/;
/** Words that continue an expression at the start of a line (`and b`, `for x in y]`). */
const EXPRESSION_WORD = /^(?:and|or|not|in|is|if|else|for|async|lambda|await)\b/;
/** After a string's closing quotes, text no expression has there: the quotes opened a string instead. */
const WORDS_AFTER_STRING = /^\s*(?!(?:if|else|for|in|and|or|not|is)\b)[A-Za-z0-9_]/;
/** Clauses that continue a compound statement at its own indentation. */
export const CLAUSE = /^(?:elif|else|except|finally)\b/;

interface ScanState {
  depth: number;
  /** Row of the statement being read, and whether its brackets went wrong. */
  statementRow: number;
  unbalanced: boolean;
  /** The quote of an open string that spans lines (triple-quoted, or single with `\`), and the row it opened on. */
  quote: string | undefined;
  quoteRow: number;
  row: number;
  /** The row of a triple-quoted string of this statement that looks unclosed. */
  unclosedStringRow: number | undefined;
  backslash: boolean;
  /** Indentation of the statement the open brackets belong to. */
  statementIndent: number;
  /** The line's code so far with strings and comments left out, trimmed at each string: what it ends with. */
  tail: string;
}

/** Whether a logical line's code stops where an operand must follow: an attribute's dot, an assignment, an operator. */
function awaitsOperand(tail: string): boolean {
  const code = tail.trimEnd();
  if (/\bimport\s+\*$/.test(code)) return false;
  if (/[=+\-*/%@&|^~<>]$/.test(code)) return true;
  // `1.` is a number and `...` the Ellipsis: both complete.
  return code.endsWith('.') && !code.endsWith('...') && !/(?:^|[^\w.])\d+\.$/.test(code);
}

/** The kind of each line of `text` (lines end at `\n`, as tree-sitter's rows do). */
export function scanLines(text: string): ScannedLines {
  const lines: LineInfo[] = [];
  const unbalanced: ScannedLines['unbalanced'] = [];
  const dangling: number[] = [];
  const state: ScanState = { depth: 0, statementRow: 0, unbalanced: false, quote: undefined, quoteRow: 0, row: 0, unclosedStringRow: undefined, backslash: false, statementIndent: 0, tail: '' };
  let swapped = false;
  const endStatement = (end: number) => {
    if (swapped) return;
    if (state.unclosedStringRow !== undefined) {
      unbalanced.push({ start: state.statementRow, end, unclosed: true, stringRow: state.unclosedStringRow });
      swapped = true;
    } else if (state.unbalanced || state.depth > 0) unbalanced.push({ start: state.statementRow, end, unclosed: state.depth > 0 });
  };
  let start = 0;
  for (let row = 0; ; row++) {
    const newline = text.indexOf('\n', start);
    const line = text.slice(start, newline < 0 ? text.length : newline);
    const info = classify(line, state);
    if (info.kind === 'statement') {
      if (row > 0) endStatement(row - 1);
      state.depth = 0;
      state.statementRow = row;
      state.unbalanced = false;
      state.unclosedStringRow = undefined;
      state.statementIndent = info.indent;
    }
    lines.push(info);
    state.row = row;
    scanLine(line, state);
    if (!swapped && info.kind !== 'blank' && state.depth === 0 && !state.backslash && state.quote === undefined && awaitsOperand(state.tail)) {
      dangling.push(state.statementRow);
    }
    if (newline < 0) {
      endStatement(row);
      return { lines, unbalanced, dangling };
    }
    start = newline + 1;
  }
}

function indentOf(line: string): number {
  let i = 0;
  while (i < line.length && (line[i] === ' ' || line[i] === '\t' || line[i] === '\f')) i++;
  return i;
}

function classify(line: string, state: ScanState): LineInfo {
  const indent = indentOf(line);
  const code = line.slice(indent).replace(/\r$/, '');
  if (state.quote !== undefined || state.backslash) return { kind: 'continuation', indent };
  if (code === '' || code.startsWith('#')) return { kind: 'blank', indent };
  if (state.depth > 0 && !(indent <= state.statementIndent && startsStatement(code))) return { kind: 'continuation', indent };
  // Outside brackets, or an open bracket given up: a new statement.
  return { kind: 'statement', indent };
}

/**
 * Whether `code`, inside an open bracket but not indented past the bracket's statement, starts
 * a new statement. Continuation lines are indented (PEP 8, Black); at the statement's own
 * indentation only closing brackets, operators and words that continue an expression come.
 */
function startsStatement(code: string): boolean {
  if (SIMPLE_STATEMENT.test(code) || COMPOUND_HEADER.test(code) || ASSIGNMENT.test(code)) return true;
  return /^[A-Za-z_]/.test(code) && !EXPRESSION_WORD.test(code);
}

/** Updates brackets, strings and continuation across one line. */
function scanLine(line: string, state: ScanState): void {
  state.backslash = false;
  state.tail = '';
  let i = 0;
  while (i < line.length) {
    const ch = line[i];
    if (state.quote !== undefined) {
      if (ch === '\\') {
        if (i + 1 >= line.length || (i + 2 === line.length && line[i + 1] === '\r')) state.backslash = true;
        i += 2;
        continue;
      }
      if (line.startsWith(state.quote, i)) {
        i += state.quote.length;
        state.tail = '"';
        if (state.quote.length === 3 && state.row > state.quoteRow && WORDS_AFTER_STRING.test(line.slice(i))) state.unclosedStringRow ??= state.quoteRow;
        state.quote = undefined;
        continue;
      }
      i++;
      continue;
    }
    if (ch === '#') break;
    state.tail += ch;
    if (ch === '"' || ch === "'") {
      state.quote = line.startsWith(ch.repeat(3), i) ? ch.repeat(3) : ch;
      state.quoteRow = state.row;
      i += state.quote.length;
      continue;
    }
    if (ch === '(' || ch === '[' || ch === '{') state.depth++;
    else if (ch === ')' || ch === ']' || ch === '}') {
      if (state.depth === 0) state.unbalanced = true;
      state.depth = Math.max(0, state.depth - 1);
    }
    if (ch === '\\' && line.slice(i + 1).trim() === '') state.backslash = true;
    i++;
  }
  // A single-quoted string ends at the line's end unless a backslash continues it (else it is an error).
  if (state.quote !== undefined && state.quote.length === 1 && !state.backslash) state.quote = undefined;
}
