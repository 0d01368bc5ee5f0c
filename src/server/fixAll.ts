// source.fixAll: every preferred fix that does not collide with another, so that applying
// the result can never corrupt the text. Collisions are left for the next save, and so are
// fixes that together would leave a syntax error (when the caller can judge that).
import type { Position, Range } from 'vscode-languageserver';
import type { LocatedEdit, LocatedFinding, LocatedFix } from './locatedFinding';

function comparePositions(a: Position, b: Position): number {
  return a.line - b.line || a.character - b.character;
}

function sameRange(a: Range, b: Range): boolean {
  return comparePositions(a.start, b.start) === 0 && comparePositions(a.end, b.end) === 0;
}

function sameEdit(a: LocatedEdit, b: LocatedEdit): boolean {
  return a.uri === b.uri && a.newText === b.newText && sameRange(a.range, b.range);
}

/**
 * Two edits collide when their ranges overlap, or when both start at the same place
 * (then their order would be ambiguous: two insertions at one point, say).
 */
export function editsCollide(a: LocatedEdit, b: LocatedEdit): boolean {
  if (a.uri !== b.uri) return false;
  if (comparePositions(a.range.start, b.range.start) === 0) return true;
  return comparePositions(a.range.start, b.range.end) < 0 && comparePositions(b.range.start, a.range.end) < 0;
}

/** The fix fix-all would apply for a finding: its preferred one, or none. */
export function preferredFix(fixes: readonly LocatedFix[]): LocatedFix | undefined {
  return fixes.find((fix) => fix.preferred);
}

/**
 * Edits of every preferred fix, in document order, skipping fixes that collide with one
 * already taken. An edit identical to one already taken (two findings sharing a fix, as
 * DD003 and DD010 do) is applied once.
 */
export function fixAllEdits(findings: readonly LocatedFinding[], isSafe?: (edits: readonly LocatedEdit[]) => boolean): LocatedEdit[] {
  const fixes = findings
    .map((finding) => preferredFix(finding.fixes))
    .filter((fix): fix is LocatedFix => fix !== undefined)
    .sort((a, b) => comparePositions(a.edits[0].range.start, b.edits[0].range.start));
  const all = takeFixes(fixes, () => true);
  if (!isSafe || isSafe(all)) return all;
  // Together they break the syntax: take each fix only if the edits taken so far stay safe.
  return takeFixes(fixes, isSafe);
}

function takeFixes(fixes: readonly LocatedFix[], accept: (edits: readonly LocatedEdit[]) => boolean): LocatedEdit[] {
  const taken: LocatedEdit[] = [];
  for (const fix of fixes) {
    const fresh = fix.edits.filter((edit) => !taken.some((t) => sameEdit(t, edit)));
    if (fresh.some((edit, i) => fresh.slice(i + 1).some((other) => editsCollide(edit, other)))) continue;
    if (fresh.some((edit) => taken.some((t) => editsCollide(t, edit)))) continue;
    if (!accept([...taken, ...fresh])) continue;
    taken.push(...fresh);
  }
  return taken;
}
