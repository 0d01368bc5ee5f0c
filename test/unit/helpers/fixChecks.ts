// The checks every quick fix must pass (ANALYZER.md: "a minimal text edit that keeps
// formatting, leaves valid Python, makes its diagnostic disappear, and is idempotent").
import type { Finding, Fix } from '../../../src/core/analysis';
import { coreFindings, offersNoFix } from './analysis';
import {
  applyFix, countByCode, findingText, firstSyntaxError, fixAll, formattingProblems, mapLine, overlappingEdits,
} from './fixes';

function label(f: Finding): string {
  return `${f.code} on line ${f.range.start.line + 1}`;
}

function countAt(findings: readonly Finding[], code: string, line: number): number {
  return findings.filter((f) => f.code === code && f.range.start.line === line).length;
}

function indentation(text: string | undefined): string {
  return /^[ \t]*/.exec(text ?? '')![0];
}

function splitLines(text: string): string[] {
  return text.split(/\r\n|\r|\n/);
}

/** Problems with a finding's set of fixes, before any is applied. */
export function fixListProblems(f: Finding, source: string): string[] {
  const problems: string[] = [];
  if (f.fixes.length === 0 && !offersNoFix(f.code)) problems.push(`${label(f)}: no fix offered`);
  const preferred = f.fixes.filter((x) => x.preferred).length;
  if (f.fixes.length > 0 && preferred !== 1) problems.push(`${label(f)}: ${preferred} preferred fixes, expected exactly 1`);
  for (const fix of f.fixes) {
    if (!fix.title.trim()) problems.push(`${label(f)}: a fix without a title`);
    if (fix.edits.length === 0) problems.push(`${label(f)}: fix "${fix.title}" has no edits`);
    if (overlappingEdits(source, fix.edits)) problems.push(`${label(f)}: fix "${fix.title}" has overlapping edits`);
    if (fix.edits.some((e) => e.cellIndex !== undefined)) problems.push(`${label(f)}: a plain file's fix edit carries a cellIndex`);
  }
  return problems;
}

/** DD002's fix inserts the move as the loop body's first statement, with the body's indentation. */
function loopInsertionProblems(f: Finding, source: string, result: string, mappedLine: number): string[] {
  const originalBody = splitLines(source)[f.range.start.line + 1];
  const inserted = splitLines(result)[mappedLine + 1];
  if (inserted === originalBody || indentation(inserted) !== indentation(originalBody)) {
    return [`${label(f)}: the move is not inserted as the loop body's first statement with its indentation: ${JSON.stringify(inserted)}`];
  }
  return [];
}

/** Applies one fix and judges the result against the findings before it. */
export function appliedFixProblems(f: Finding, fix: Fix, source: string, before: readonly Finding[]): string[] {
  const where = `${label(f)}, fix "${fix.title}"`;
  const result = applyFix(source, fix);
  if (result === source) return [`${where}: changes nothing`];
  const syntax = firstSyntaxError(result);
  if (syntax) return [`${where}: result does not parse (${syntax}):\n${result}`];
  const problems = formattingProblems(source, fix.edits, result).map((p) => `${where}: ${p}`);
  if (/from_numpy\([^)]*device\s*=/.test(result)) problems.push(`${where}: adds device= to torch.from_numpy, which takes none`);
  const after = coreFindings(result);
  const line = f.range.start.line;
  const mapped = mapLine(source, fix.edits, line);
  if (countAt(after, f.code, mapped) >= countAt(before, f.code, line)) problems.push(`${where}: the finding is still reported after the fix`);
  // DD003 and DD010 on one conversion share a merged fix: either removes both.
  const partner = f.code === 'DD003' ? 'DD010' : f.code === 'DD010' ? 'DD003' : undefined;
  if (fix.preferred && partner && countAt(before, partner, line) > 0 && countAt(after, partner, mapped) > 0) {
    problems.push(`${where}: ${partner} on the same line survives; the fixes should be merged (.detach().cpu())`);
  }
  // A fix that writes the file's own device expression (DD001's `.to("cuda")` where the model
  // was moved with `.cuda()`) repeats a finding the file already has (DD005 on each place that
  // names CUDA): the same problem, which that rule's own fix removes, not a new one.
  const written = fix.edits.map((e) => e.newText).join('\n');
  const repeatsBefore = (g: Finding) => {
    const text = findingText(result, g);
    return text.length > 0 && written.includes(text) && before.some((b) => b.code === g.code);
  };
  const countsBefore = countByCode(before);
  for (const [code, n] of countByCode(after.filter((g) => !repeatsBefore(g)))) {
    if (n > (countsBefore.get(code) ?? 0)) problems.push(`${where}: introduces a new ${code}`);
  }
  if (f.code === 'DD002' && fix.preferred) problems.push(...loopInsertionProblems(f, source, result, mapped));
  return problems;
}

/**
 * Which findings a check fixes: every core finding, or only those of the rules a fixture
 * speaks for (its own and those its markers name; see rules.test.ts).
 */
export type FixScope = (code: string) => boolean;

const EVERY_RULE: FixScope = () => true;

/** Every fix of every core finding in `source` (in `scope`), applied one at a time. Any rule's new finding counts. */
export function everyFixProblems(source: string, scope: FixScope = EVERY_RULE): { findings: Finding[]; problems: string[] } {
  const all = coreFindings(source);
  const findings = all.filter((f) => scope(f.code));
  const problems = findings.flatMap((f) => [
    ...fixListProblems(f, source),
    ...f.fixes.flatMap((fix) => appliedFixProblems(f, fix, source, all)),
  ]);
  return { findings, problems };
}

/** Fix-all to a fixpoint must leave valid Python with no core finding (in `scope`), and a second run must change nothing. */
export function fixAllProblems(source: string, scope: FixScope = EVERY_RULE): string[] {
  const inScope = (text: string) => coreFindings(text).filter((f) => scope(f.code));
  const first = fixAll(source, inScope);
  const problems: string[] = [];
  const syntax = firstSyntaxError(first.text);
  if (syntax) problems.push(`fix-all leaves invalid Python (${syntax}):\n${first.text}`);
  const remaining = first.remaining.filter((f) => !offersNoFix(f.code));
  if (remaining.length) {
    problems.push(`fix-all leaves findings after ${first.rounds} rounds: ${remaining.map(label).join(', ')}\n${first.text}`);
  }
  const second = fixAll(first.text, inScope);
  if (second.rounds !== 0 || second.text !== first.text) problems.push(`running fix-all again changes the file:\n${second.text}`);
  return problems;
}
