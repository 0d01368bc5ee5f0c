// Analysis around syntax errors. Tree-sitter recovers from an error, but after an unclosed
// bracket its ERROR node may swallow the rest of the file, and every statement in it is lost
// to the analysis (a file went from 7 findings to 1). Here the broken statement is found,
// its lines are blanked with spaces (every other line and column stays where it was, so
// positions in the recovered text are positions in the original) and a `pass` is left at
// its start (a block never becomes empty), and the text is parsed again, a bounded number
// of times. The caller analyses the recovered tree and reports the skipped statements.
import type { Node as TsNode } from 'web-tree-sitter';
import type { Range } from '../analysis/types';
import { CLAUSE, scanLines, type LineInfo } from './logicalLines';
import { copyTree, deleteTree, editTree, parsePython, parserText, type Tree, type TreeEdit } from './parser';

/** Enough for a file with a few half-typed statements; each round costs a parse. */
export const MAX_RECOVERY_ROUNDS = 20;

export interface RecoveredParse {
  /** The tree to analyse: the given one when it had no error, else a new one (see `owned`). */
  tree: Tree;
  /** The text `tree` was parsed from: the source with the skipped statements blanked. */
  text: string;
  /** True when `tree` was made here and the caller must delete it. */
  owned: boolean;
  /** The statements blanked, in the original's positions, in order. */
  skipped: Range[];
}

const SIMPLE_STATEMENTS = new Set([
  'expression_statement', 'return_statement', 'import_statement', 'import_from_statement', 'future_import_statement',
  'assert_statement', 'delete_statement', 'raise_statement', 'pass_statement', 'break_statement', 'continue_statement',
  'global_statement', 'nonlocal_statement', 'print_statement', 'exec_statement', 'type_alias_statement',
]);

/** The first ERROR or MISSING node in reading order (an outer ERROR before those inside it). */
function firstError(tree: Tree): TsNode | undefined {
  if (!tree.rootNode.hasError) return undefined;
  const cursor = tree.walk();
  try {
    // Without recursion: deeply nested code must not overflow the stack.
    for (;;) {
      const node = cursor.currentNode;
      if (node.isError || node.isMissing) return node;
      if (node.hasError && cursor.gotoFirstChild()) continue;
      while (!cursor.gotoNextSibling()) {
        if (!cursor.gotoParent()) return undefined;
      }
    }
  } finally {
    cursor.delete();
  }
}

/** The first and last rows of each outermost ERROR node and each MISSING node. */
function errorSpans(tree: Tree): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  const cursor = tree.walk();
  try {
    for (;;) {
      const node = cursor.currentNode;
      const isError = node.isError || node.isMissing;
      if (isError) spans.push([node.startPosition.row, node.endPosition.row]);
      // The errors inside an ERROR are within its rows: one ERROR swallowing a file has thousands.
      if (!isError && node.hasError && cursor.gotoFirstChild()) continue;
      while (!cursor.gotoNextSibling()) {
        if (!cursor.gotoParent()) return spans;
      }
    }
  } finally {
    cursor.delete();
  }
}

const STATEMENTS = new Set([
  ...SIMPLE_STATEMENTS, 'function_definition', 'class_definition', 'decorated_definition', 'if_statement', 'for_statement',
  'while_statement', 'try_statement', 'with_statement', 'match_statement',
]);

/** Holds statements: an ERROR in a block's or the module's place holds those it swallowed. */
function holdsStatements(node: TsNode | null): boolean {
  return !node || node.type === 'module' || node.type === 'block' || node.isError;
}

/**
 * Where in `error` the trouble starts. An ERROR in a statement's place, or in a block's (after
 * a `def ...:`), may begin with the well-formed statements it swallowed (tree-sitter made the
 * whole module one ERROR after a half-typed `x if y`, from the docstring on): the first child
 * that is not one is the place.
 */
function troubleIn(error: TsNode): TsNode {
  let e = error;
  while (e.isError && (holdsStatements(e.parent) || (STATEMENTS.has(e.parent!.type) && !SIMPLE_STATEMENTS.has(e.parent!.type)))) {
    const first = e.children.find((c) => !!c && c.type !== 'comment' && !(STATEMENTS.has(c.type) && !c.hasError));
    if (!first) break;
    if (!first.isError && STATEMENTS.has(first.type)) return firstErrorWithin(first) ?? first;
    e = first;
  }
  return e;
}

/** The first ERROR or MISSING node inside `node`, in reading order. */
function firstErrorWithin(node: TsNode): TsNode | undefined {
  // A loop, not recursion: a broken expression may be nested thousands deep.
  let n: TsNode | undefined = node;
  while (n) {
    const child: TsNode | null | undefined = n.children.find((c) => !!c && (c.isError || c.isMissing || c.hasError));
    if (!child || child.isError || child.isMissing) return child ?? undefined;
    n = child;
  }
  return undefined;
}

/** The node itself or its ancestor that is a statement of a block or of the module (or of an ERROR in their place). */
function statementOf(node: TsNode): TsNode {
  let n = node;
  while (!holdsStatements(n.parent)) n = n.parent!;
  return n;
}

/** The line where the statement containing line `row` starts. */
function statementLineOf(lines: readonly LineInfo[], row: number): number {
  let r = Math.min(row, lines.length - 1);
  while (r > 0 && lines[r].kind !== 'statement') r--;
  return r;
}

/** Where the broken statement starts: row and column. */
function brokenStart(firstError: TsNode, lines: readonly LineInfo[]): { row: number; column: number } {
  const error = troubleIn(firstError);
  const statement = statementOf(error);
  const own = statementLineOf(lines, error.startPosition.row);
  const row = statement.startPosition.row;
  // Tree-sitter may hang the ERROR on an enclosing compound statement (a `def` whose header is
  // fine): the broken statement is then the deeper one the error starts in, not the `def`.
  if (row < own && !SIMPLE_STATEMENTS.has(statement.type) && lines[own].indent > lines[row].indent) {
    return { row: own, column: lines[own].indent };
  }
  if (own < row) return { row: own, column: lines[own].indent };
  return { row, column: statement.startPosition.column };
}

/** The last line of the statement that starts on `row`: before the next statement at its indentation or left of it. */
function brokenEnd(lines: readonly LineInfo[], row: number, text: readonly string[]): number {
  const indent = lines[row].indent;
  let end = row;
  for (let r = row + 1; r < lines.length; r++) {
    const line = lines[r];
    if (line.kind === 'blank') continue;
    if (line.kind === 'statement' && line.indent <= indent) {
      // `else:`, `except:` at the statement's own indentation are its clauses, broken with it.
      if (!(line.indent === indent && CLAUSE.test(text[r].slice(line.indent)) && isCompoundHeader(text[row], indent))) break;
    }
    end = r;
  }
  return end;
}

function isCompoundHeader(line: string, indent: number): boolean {
  return /^(?:if|elif|else|for|while|with|try|except|finally|async)\b/.test(line.slice(indent));
}

/**
 * `text` with the lines of `range` blanked (line breaks kept) and `pass` at its start, and the
 * edit that tells tree-sitter so.
 */
function blank(text: string, starts: readonly number[], range: Range): { text: string; edit: TreeEdit } {
  const from = starts[range.start.line] + range.start.character;
  const to = range.end.line + 1 < starts.length ? starts[range.end.line + 1] : text.length;
  const blanked = text.slice(from, to).replace(/[^\r\n]/g, ' ');
  // `pass` may lengthen a line shorter than it (`(` alone): only columns on that line move, all blank.
  const firstBreak = blanked.search(/[\r\n]|$/);
  const replacement = 'pass' + blanked.slice(Math.min(4, firstBreak), firstBreak) + blanked.slice(firstBreak);
  const startPosition = { row: range.start.line, column: range.start.character };
  const endOf = (s: string) => {
    const lastBreak = s.lastIndexOf('\n');
    return lastBreak < 0 ? { row: startPosition.row, column: startPosition.column + s.length } : { row: startPosition.row + (s.match(/\n/g)?.length ?? 0), column: s.length - lastBreak - 1 };
  };
  const edit: TreeEdit = {
    startIndex: from, oldEndIndex: to, newEndIndex: from + replacement.length,
    startPosition, oldEndPosition: endOf(parserText(text.slice(from, to))), newEndPosition: endOf(parserText(replacement)),
  };
  return { text: text.slice(0, from) + replacement + text.slice(to), edit };
}

function lineStartsOf(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/**
 * The tree to analyse for `source` parsed as `tree`: `tree` itself when it has no syntax
 * error; else the tree of the source with each broken statement blanked. `tree` is never
 * changed or deleted here.
 */
export function recoverFromSyntaxErrors(tree: Tree, source: string): RecoveredParse {
  let current: RecoveredParse = { tree, text: source, owned: false, skipped: [] };
  for (let round = 0; round < MAX_RECOVERY_ROUNDS && current.tree.rootNode.hasError; round++) {
    const ranges = brokenStatements(current);
    if (ranges.length === 0) break;
    // Re-parsed incrementally: only the blanked statements and what they touched are read again.
    const edited = current.owned ? current.tree : copyTree(current.tree);
    for (const edit of ranges.edits) editTree(edited, edit);
    const next = parsePython(ranges.text, edited);
    deleteTree(edited);
    current = { tree: next, text: ranges.text, owned: true, skipped: [...current.skipped, ...ranges] };
  }
  current.skipped.sort((a, b) => a.start.line - b.start.line);
  return current;
}

/**
 * The broken statements of this round, and the text with them blanked. Brackets that do
 * not match are the text's to find (tree-sitter may hang the whole file on one unclosed
 * `(`), as long as an error of the tree covers them too (a statement the text misjudges,
 * such as a keyword argument `a = 1` unindented inside a call, is then left alone in valid
 * code); any other error is located by the tree.
 */
function brokenStatements(current: RecoveredParse): Range[] & { text: string; edits: TreeEdit[] } {
  // Rows are tree-sitter's: lines end at `\n` (a lone `\r` is `\n` to the parser).
  const parsed = parserText(current.text);
  const { lines, unbalanced, dangling } = scanLines(parsed);
  const lineTexts = parsed.split('\n');
  const errors = errorSpans(current.tree);
  const blankedBefore = (row: number) => current.skipped.some((r) => r.start.line <= row && row <= r.end.line);
  const starts: Array<{ row: number; column: number; endRow?: number }> = unbalanced
    // An unclosed `(` often shows its error only on the next statement's first row; a string
    // read swapped, anywhere after it.
    .filter((u) => !blankedBefore(u.start) && errors.some(([first, last]) => (u.stringRow !== undefined || first <= u.end + (u.unclosed ? 1 : 0)) && last >= u.start))
    .map((u) => ({ row: u.start, column: lines[u.start].indent, endRow: u.stringRow }));
  // A half-typed line (`optimizer.`) is the broken statement itself, not the block tree-sitter
  // hung the error on: blanking that block would hide every statement in it.
  for (const row of dangling) {
    if (!blankedBefore(row) && !starts.some((s) => s.row === row) && errors.some(([first, last]) => first <= row && row <= last)) {
      starts.push({ row, column: lines[row].indent, endRow: lastRowOf(lines, row) });
    }
  }
  if (starts.length === 0) {
    const error = firstError(current.tree);
    const start = error && brokenStart(error, lines);
    // A statement blanked already cannot be blanked again: recovery made no progress.
    if (start && !blankedBefore(start.row)) starts.push(start);
  }
  const all = starts.map(({ row, column, endRow: through }): Range => {
    const endRow = through ?? brokenEnd(lines, row, lineTexts);
    return { start: { line: row, character: column }, end: { line: endRow, character: lineTexts[endRow].replace(/\r$/, '').length } };
  });
  // A broken statement inside another (in the body of a broken `for`) goes with it.
  const ranges = all.filter((r) => !all.some((o) => o !== r && o.start.line < r.start.line && r.start.line <= o.end.line));
  const lineStarts = lineStartsOf(parsed);
  let text = current.text;
  const edits: TreeEdit[] = [];
  // From the last to the first, so that a lengthened line (`pass`) moves no offset still to be used.
  for (const range of [...ranges].sort((a, b) => b.start.line - a.start.line)) {
    const blanked = blank(text, lineStarts, range);
    text = blanked.text;
    edits.push(blanked.edit);
  }
  return Object.assign(ranges, { text, edits });
}

/** The last row of the logical line that starts on `row` (its continuation lines). */
function lastRowOf(lines: readonly LineInfo[], row: number): number {
  let end = row;
  while (end + 1 < lines.length && lines[end + 1].kind === 'continuation') end++;
  return end;
}

/** Whether any line of `range` is a line of one of `skipped` (a fix there would edit unseen code). */
export function touchesSkipped(range: Range, skipped: readonly Range[]): boolean {
  return skipped.some((s) => range.start.line <= s.end.line && range.end.line >= s.start.line);
}
