// Reads nbformat 4 notebooks the way the language server and CLI see them: the code
// cells' sources, in order, as the `cells` argument of analyzeNotebook.
import * as fs from 'fs';
import * as path from 'path';
import { NOTEBOOK_FIXTURES_DIR } from './fixtures';
import { Marker, parseMarkers } from './markers';

interface NotebookCellJson {
  cell_type: 'code' | 'markdown' | 'raw';
  source: string | string[];
}

interface NotebookJson {
  nbformat: number;
  cells: NotebookCellJson[];
}

export interface LoadedNotebook {
  name: string;
  json: NotebookJson;
  /** Sources of the code cells only, in notebook order. */
  codeCells: string[];
  /** Expectation markers per code cell (cell-local lines). */
  markers: Array<{ cellIndex: number; marker: Marker }>;
}

function joinSource(source: string | string[]): string {
  return Array.isArray(source) ? source.join('') : source;
}

export function loadNotebook(name: string): LoadedNotebook {
  const json = JSON.parse(fs.readFileSync(path.join(NOTEBOOK_FIXTURES_DIR, name), 'utf8')) as NotebookJson;
  const codeCells = json.cells.filter((c) => c.cell_type === 'code').map((c) => joinSource(c.source));
  const markers = codeCells.flatMap((cell, cellIndex) => parseMarkers(cell).map((marker) => ({ cellIndex, marker })));
  return { name, json, codeCells, markers };
}

export function listNotebooks(): string[] {
  return fs.readdirSync(NOTEBOOK_FIXTURES_DIR).filter((f) => f.endsWith('.ipynb')).sort();
}
