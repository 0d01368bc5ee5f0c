// STUB: replaced by the real abstract interpreter. Signatures are the contract.
import { parsePython, Tree } from '../python/parser';
import type { AnalyzeOptions, CellFinding, Finding } from './types';

/** Analyzes an already parsed file (the language server keeps trees incrementally). */
export function analyzeTree(_tree: Tree, _source: string, _options: AnalyzeOptions = {}): Finding[] {
  return [];
}

/** Parses and analyzes one Python file. Never throws on any input. */
export function analyzeSource(source: string, options: AnalyzeOptions = {}): Finding[] {
  const tree = parsePython(source);
  try {
    return analyzeTree(tree, source, options);
  } finally {
    tree.delete();
  }
}

/** Analyzes a notebook's code cells in order as one program; ranges are cell-local. */
export function analyzeNotebook(_cells: readonly string[], _options: AnalyzeOptions = {}): CellFinding[] {
  return [];
}
