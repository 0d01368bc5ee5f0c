// Reads nbformat 4 notebooks the way the language server and CLI see them: the code
// cells' sources, in order, as the `cells` argument of analyzeNotebook.
import * as fs from 'fs';
import * as path from 'path';
import type { CellFinding, Fix, TextEdit } from '../../../src/core/analysis';
import { applyTextEdits } from '../../../src/core/python/edits';
import { dedupeEdits } from './fixes';
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

/** Applies a fix of a notebook finding: each edit goes to its own cell, or to the finding's cell. */
export function applyCellFix(cells: readonly string[], findingCell: number, fix: Fix): string[] {
  const byCell = new Map<number, TextEdit[]>();
  for (const edit of fix.edits) {
    const cell = edit.cellIndex ?? findingCell;
    byCell.set(cell, [...(byCell.get(cell) ?? []), edit]);
  }
  return cells.map((text, i) => (byCell.has(i) ? applyTextEdits(text, byCell.get(i)!) : text));
}

/** Notebook fix-all: every preferred fix, per cell, re-analysing until nothing changes. */
export function fixAllCells(cells: readonly string[], analyze: (cells: readonly string[]) => CellFinding[], maxRounds = 4): { cells: string[]; rounds: number; remaining: CellFinding[] } {
  let current = [...cells];
  for (let round = 0; round < maxRounds; round++) {
    const findings = analyze(current);
    const edits = dedupeEdits(findings.flatMap((c) => c.finding.fixes.filter((f) => f.preferred)
      .flatMap((f) => f.edits.map((e) => ({ ...e, cellIndex: e.cellIndex ?? c.cellIndex })))));
    const next = applyCellFix(current, -1, { title: 'fix all', preferred: true, edits });
    if (next.every((text, i) => text === current[i])) return { cells: current, rounds: round, remaining: findings };
    current = next;
  }
  return { cells: current, rounds: maxRounds, remaining: analyze(current) };
}
