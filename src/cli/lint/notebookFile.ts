// Jupyter notebooks (nbformat 4) as the CLI needs them: the code cells' sources in
// order, and a way to write changed sources back without disturbing anything else.
import { UnreadableFileError } from './pythonFile';

type Json = Record<string, unknown>;

export interface NotebookFile {
  /** The parsed notebook; cells other than code cells are never touched. */
  document: Json;
  /** Position (0-based) in `cells` of each code cell, in order. */
  codeCellPositions: number[];
  /** Each code cell's source as one string. */
  sources: string[];
  /** Jupyter writes JSON indented by one space; other tools use other indents. */
  indent: string | undefined;
  trailingNewline: boolean;
}

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
  return { document: document as Json, codeCellPositions, sources, indent: detectIndent(text), trailingNewline: text.endsWith('\n') };
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

/** The notebook's JSON text with code cell sources replaced by `sources`. */
export function serializeNotebook(notebook: NotebookFile, sources: readonly string[]): string {
  const cells = notebook.document.cells as Json[];
  const updated = cells.slice();
  notebook.codeCellPositions.forEach((position, index) => {
    const cell = cells[position];
    if (sources[index] === notebook.sources[index]) return;
    updated[position] = { ...cell, source: typeof cell.source === 'string' ? sources[index] : toSourceLines(sources[index]) };
  });
  const text = JSON.stringify({ ...notebook.document, cells: updated }, null, notebook.indent);
  return notebook.trailingNewline ? `${text}\n` : text;
}
