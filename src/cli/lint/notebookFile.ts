// Jupyter notebooks (nbformat 4) as the CLI needs them: the code cells' sources in
// order, and a way to write changed sources back without disturbing anything else: only
// the changed cells' "source" values are replaced in the original text, every other byte
// stays as it was, and the result is checked before anything is written.
import { isDeepStrictEqual } from 'util';
import { notebookCellSpans, type Span } from './jsonSpans';
import { UnreadableFileError } from './pythonFile';

type Json = Record<string, unknown>;

export interface NotebookFile {
  /** The parsed notebook; cells other than code cells are never touched. */
  document: Json;
  /** Position (0-based) in `cells` of each code cell, in order. */
  codeCellPositions: number[];
  /** Each code cell's source as one string. */
  sources: string[];
  /** The JSON text as read: what --fix changes as little of as it can. */
  text: string;
  /** Jupyter writes JSON indented by one space; other tools use other indents. */
  indent: string | undefined;
}

/** The changed sources could not be written back without risk; the notebook is left as it was. */
export class NotebookWriteError extends Error {}

function cellSource(cell: Json, position: number): string {
  const source = cell.source;
  if (typeof source === 'string') return source;
  if (Array.isArray(source) && source.every((line) => typeof line === 'string')) return source.join('');
  if (source === undefined) return '';
  throw new UnreadableFileError(`cell ${position + 1} has a source that is neither text nor a list of lines`);
}

/** The language named by the notebook's metadata, when it names one. */
function notebookLanguage(document: Json): string | undefined {
  const metadata = document.metadata as Json | undefined;
  const info = metadata?.language_info as Json | undefined;
  const kernel = metadata?.kernelspec as Json | undefined;
  const name = info?.name ?? kernel?.language;
  return typeof name === 'string' ? name.toLowerCase() : undefined;
}

function detectIndent(text: string): string | undefined {
  const match = /\n([ \t]+)\S/.exec(text);
  return match ? match[1] : undefined;
}

/** Parses notebook JSON; throws UnreadableFileError with a reason for anything else. */
export function parseNotebook(text: string): NotebookFile {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (err) {
    throw new UnreadableFileError(`not valid notebook JSON: ${(err as Error).message}`);
  }
  if (typeof document !== 'object' || document === null || !Array.isArray((document as Json).cells)) {
    throw new UnreadableFileError('not a Jupyter notebook (nbformat 4 with a "cells" list is expected)');
  }
  const cells = (document as Json).cells as unknown[];
  const codeCellPositions: number[] = [];
  const sources: string[] = [];
  cells.forEach((cell, position) => {
    if (typeof cell !== 'object' || cell === null || (cell as Json).cell_type !== 'code') return;
    codeCellPositions.push(position);
    sources.push(cellSource(cell as Json, position));
  });
  return { document: document as Json, codeCellPositions, sources, text, indent: detectIndent(text) };
}

/** false for a notebook whose metadata names another language (R, Julia, ...). */
export function isPythonNotebook(notebook: NotebookFile): boolean {
  const language = notebookLanguage(notebook.document);
  return language === undefined || language === 'python' || language === 'python3';
}

/** Lines with their line breaks, the list form nbformat writes. */
function toSourceLines(source: string): string[] {
  return source === '' ? [] : source.split(/(?<=\n)/);
}

/**
 * Whether the notebook escapes non-ASCII characters (`\u00e9`, Python's json.dump with
 * ensure_ascii, as some tools write) rather than writing them as they are (nbformat's way).
 */
function escapesNonAscii(text: string): boolean {
  return !/[^\x00-\x7f]/.test(text) && /\\u(00[89a-fA-F][0-9a-fA-F]|0[1-9a-fA-F][0-9a-fA-F]{2}|[1-9a-fA-F][0-9a-fA-F]{3})/.test(text);
}

/** A JSON string literal in the notebook's style. */
function jsonString(value: string, asciiOnly: boolean): string {
  const literal = JSON.stringify(value);
  return asciiOnly ? literal.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`) : literal;
}

/** The whitespace that starts the line `offset` is on. */
function lineIndent(text: string, offset: number): string {
  const indent = /[ \t]*/y;
  indent.lastIndex = text.lastIndexOf('\n', offset - 1) + 1;
  return indent.exec(text)?.[0] ?? '';
}

/**
 * A list of lines laid out as the original list was: one element per line at the
 * original's indent (Jupyter's layout), or on one line with its separator.
 */
function jsonLines(lines: readonly string[], original: string, span: Span, notebook: NotebookFile, asciiOnly: boolean): string {
  if (lines.length === 0) return '[]';
  const elements = lines.map((line) => jsonString(line, asciiOnly));
  const before = original.slice(span.start, span.end);
  if (before.includes('\n')) {
    const firstIndent = /^\[[ \t]*\r?\n([ \t]*)/.exec(before)?.[1] ?? '';
    const closingIndent = /\n([ \t]*)\]$/.exec(before)?.[1] ?? '';
    const eol = before.includes('\r\n') ? '\r\n' : '\n';
    return `[${eol}${elements.map((e) => firstIndent + e).join(`,${eol}`)}${eol}${closingIndent}]`;
  }
  if (before === '[]' && notebook.indent !== undefined) {
    // An empty list gives no layout to copy: Jupyter's, one level below the key's line.
    const keyIndent = lineIndent(original, span.start);
    const eol = original.includes('\r\n') ? '\r\n' : '\n';
    return `[${eol}${elements.map((e) => keyIndent + notebook.indent + e).join(`,${eol}`)}${eol}${keyIndent}]`;
  }
  const separator = /^\[\s*"(?:[^"\\]|\\.)*"(\s*,\s*)/.exec(before)?.[1] ?? ',';
  return `[${elements.join(separator)}]`;
}

/**
 * The notebook's JSON text with code cell sources replaced by `sources`: only the changed
 * cells' "source" values are rewritten, as a string or a list of lines as they were. Throws
 * NotebookWriteError when that cannot be done exactly; nothing should then be written.
 */
export function serializeNotebook(notebook: NotebookFile, sources: readonly string[]): string {
  const changed = notebook.codeCellPositions
    .map((position, index) => ({ position, source: sources[index] }))
    .filter(({ source }, index) => source !== notebook.sources[index]);
  if (changed.length === 0) return notebook.text;
  const original = notebook.text;
  let spans;
  try {
    spans = notebookCellSpans(original);
  } catch (err) {
    throw new NotebookWriteError(`cannot locate the cells in the notebook's JSON (${(err as Error).message})`);
  }
  const cells = notebook.document.cells as Json[];
  const asciiOnly = escapesNonAscii(original);
  const expected = JSON.parse(original) as Json;
  const replacements: Array<Span & { text: string }> = [];
  for (const { position, source } of changed) {
    const span = spans[position]?.source;
    if (!span) throw new NotebookWriteError(`cell ${position + 1} has no "source" to write the fix into`);
    const asString = typeof cells[position].source === 'string';
    const value = asString ? source : toSourceLines(source);
    (expected.cells as Json[])[position].source = value;
    const text = asString ? jsonString(source, asciiOnly) : jsonLines(value as string[], original, span, notebook, asciiOnly);
    replacements.push({ ...span, text });
  }
  let written = original;
  for (const r of replacements.sort((a, b) => b.start - a.start)) written = written.slice(0, r.start) + r.text + written.slice(r.end);
  // What was written must read back as the intended notebook, or it is not written at all.
  let reread: unknown;
  try {
    reread = JSON.parse(written);
  } catch {
    reread = undefined;
  }
  if (!sameDocument(reread, expected, original)) throw new NotebookWriteError("the fixed cells could not be written back exactly into the notebook's JSON");
  return written;
}

/**
 * isDeepStrictEqual, which recurses: JSON nested thousands deep (JSON.parse reads it) makes
 * it overflow the stack, and then the rewrite cannot be checked and is not written.
 */
function sameDocument(reread: unknown, expected: Json, original: string): boolean {
  try {
    return isDeepStrictEqual(reread, expected);
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    throw new NotebookWriteError(`the notebook's JSON is nested ${jsonDepth(original).toLocaleString('en-US')} levels deep, too deep to check the rewritten notebook`);
  }
}

/** The deepest nesting of arrays and objects in JSON `text`, counted without recursion. */
export function jsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      // Skip the string: to its closing quote, past escaped characters.
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
    } else if (c === '[' || c === '{') deepest = Math.max(deepest, ++depth);
    else if (c === ']' || c === '}') depth--;
  }
  return deepest;
}
