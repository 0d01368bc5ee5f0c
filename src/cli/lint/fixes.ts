// --fix: applies each finding's preferred fix, re-analysing between passes, until no
// fix applies. Works on a list of sources: one for a .py file, the code cells of a notebook.
import type { Finding, TextEdit } from '../../core/analysis/types';
import { applyTextEdits, lineStarts, offsetAt } from '../../core/python/edits';

/** A finding and, in a notebook, the index of the code cell it is in. */
export interface LocatedFinding {
  finding: Finding;
  cellIndex?: number;
}

export type AnalyzeSources = (sources: readonly string[]) => LocatedFinding[];

export interface FixResult {
  sources: string[];
  /** Findings whose preferred fix was applied. */
  fixed: number;
  /** Findings in the final sources. */
  remaining: LocatedFinding[];
  /**
   * Findings whose fix would have left a syntax error. When there are any, nothing is
   * fixed: `sources` are the sources as given (a fix that breaks the file is a bug in it,
   * and the file is safer untouched), and `remaining` are the findings in them.
   */
  refused: LocatedFinding[];
}

export interface FixOptions {
  maxPasses?: number;
  /** True when `after`, a source after fixes, has a syntax error that `before` did not have. */
  addsSyntaxError?: (before: string, after: string) => boolean;
}

/** Passes after which we stop even if fixes still apply: a fix that never converges is a bug. */
export const MAX_FIX_PASSES = 10;

interface ResolvedEdit {
  cell: number;
  start: number;
  end: number;
  edit: TextEdit;
}

function resolveEdits(sources: readonly string[], found: LocatedFinding, starts: number[][]): ResolvedEdit[] | undefined {
  const fix = found.finding.fixes.find((f) => f.preferred);
  if (!fix || fix.edits.length === 0) return undefined;
  const resolved: ResolvedEdit[] = [];
  for (const edit of fix.edits) {
    const cell = edit.cellIndex ?? found.cellIndex ?? 0;
    if (cell < 0 || cell >= sources.length) return undefined;
    const start = offsetAt(starts[cell], sources[cell], edit.range.start);
    const end = offsetAt(starts[cell], sources[cell], edit.range.end);
    resolved.push({ cell, start, end, edit });
  }
  return resolved;
}

/** Two edits conflict when they overlap or insert at the same place (their order would be a guess). */
function conflicts(a: ResolvedEdit, b: ResolvedEdit): boolean {
  return a.cell === b.cell && (a.start === b.start || (a.start < b.end && b.start < a.end));
}

function sameEdit(a: ResolvedEdit, b: ResolvedEdit): boolean {
  return a.cell === b.cell && a.start === b.start && a.end === b.end && a.edit.newText === b.edit.newText;
}

function editsKey(edits: ResolvedEdit[]): string {
  return JSON.stringify(edits.map((e) => [e.cell, e.start, e.end, e.edit.newText]));
}

/** One fix to apply, and the findings it fixes (two when findings share a fix). */
interface ChosenFix {
  edits: ResolvedEdit[];
  findings: LocatedFinding[];
}

/** Chooses fixes that do not conflict; the rest wait for the next pass. */
function chooseFixes(sources: readonly string[], findings: readonly LocatedFinding[]): { edits: ResolvedEdit[]; fixed: number; chosen: ChosenFix[] } {
  const starts = sources.map((s) => lineStarts(s));
  const accepted: ResolvedEdit[] = [];
  const byKey = new Map<string, ChosenFix>();
  let fixed = 0;
  for (const found of findings) {
    const edits = resolveEdits(sources, found, starts);
    if (!edits) continue;
    const key = editsKey(edits);
    // DD003 and DD010 on one `.numpy()` may carry the same merged fix: apply it once, count both.
    const same = byKey.get(key);
    if (same) {
      same.findings.push(found);
      fixed++;
      continue;
    }
    // An edit identical to one taken (two DD005 fixes that both add `import torch`) is applied once.
    const fresh = edits.filter((e) => !accepted.some((a) => sameEdit(a, e)));
    if (fresh.some((e) => accepted.some((a) => conflicts(a, e)))) continue;
    accepted.push(...fresh);
    byKey.set(key, { edits, findings: [found] });
    fixed++;
  }
  return { edits: accepted, fixed, chosen: [...byKey.values()] };
}

function applyToSources(sources: readonly string[], edits: readonly ResolvedEdit[]): string[] {
  return sources.map((source, cell) => {
    const cellEdits = edits.filter((e) => e.cell === cell).map((e) => e.edit);
    return cellEdits.length > 0 ? applyTextEdits(source, cellEdits) : source;
  });
}

/** True when some cell of `after` has a syntax error that the same cell of `before` did not. */
function breaksSyntax(before: readonly string[], after: readonly string[], check: NonNullable<FixOptions['addsSyntaxError']>): boolean {
  return after.some((source, cell) => source !== before[cell] && check(before[cell], source));
}

/**
 * The findings to blame when a pass's fixes broke the syntax: those whose fix does alone,
 * or, when only their combination does, all of them.
 */
function culprits(sources: readonly string[], chosen: readonly ChosenFix[], check: NonNullable<FixOptions['addsSyntaxError']>): LocatedFinding[] {
  const alone = chosen.filter((fix) => breaksSyntax(sources, applyToSources(sources, fix.edits), check));
  return (alone.length > 0 ? alone : chosen).flatMap((fix) => fix.findings);
}

export function fixUntilStable(initial: readonly string[], analyze: AnalyzeSources, options: FixOptions = {}): FixResult {
  const { maxPasses = MAX_FIX_PASSES, addsSyntaxError } = options;
  let sources = initial.slice();
  let fixed = 0;
  let firstFindings: LocatedFinding[] | undefined;
  const seen = new Set<string>([JSON.stringify(sources)]);
  for (let pass = 0; pass < maxPasses; pass++) {
    const findings = analyze(sources);
    firstFindings ??= findings;
    const chosen = chooseFixes(sources, findings);
    if (chosen.edits.length === 0) return { sources, fixed, remaining: findings, refused: [] };
    const next = applyToSources(sources, chosen.edits);
    // Each pass is checked against the one before, so no pass can add an error: the
    // result has no syntax error that the original did not have.
    if (addsSyntaxError && breaksSyntax(sources, next, addsSyntaxError)) {
      const refused = culprits(sources, chosen.chosen, addsSyntaxError);
      return { sources: initial.slice(), fixed: 0, remaining: firstFindings ?? findings, refused };
    }
    const key = JSON.stringify(next);
    // A fix that changes nothing, or undoes an earlier one, would loop: stop here.
    if (seen.has(key)) return { sources, fixed, remaining: findings, refused: [] };
    seen.add(key);
    sources = next;
    fixed += chosen.fixed;
  }
  return { sources, fixed, remaining: analyze(sources), refused: [] };
}
