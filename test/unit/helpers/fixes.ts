// Applying fixes and judging the result: does it parse, did it touch only what it had to,
// and which line does a finding's line become after the edit.
import type { Finding, Fix, TextEdit } from '../../../src/core/analysis';
import { applyTextEdits, lineStarts, offsetAt } from '../../../src/core/python/edits';
import { parsePython } from '../../../src/core/python/parser';
import type { Node } from '../../../src/core/python/parser';

interface ResolvedEdit {
  start: number;
  end: number;
  newText: string;
}

function resolve(source: string, edits: readonly TextEdit[]): ResolvedEdit[] {
  const starts = lineStarts(source);
  return edits
    .map((e) => ({ start: offsetAt(starts, source, e.range.start), end: offsetAt(starts, source, e.range.end), newText: e.newText }))
    .sort((a, b) => a.start - b.start || a.end - b.end);
}

function countLineBreaks(text: string): number {
  return text.match(/\r\n|\r|\n/g)?.length ?? 0;
}

/** Where the first ERROR or MISSING node is, or undefined when the text parses cleanly. */
export function firstSyntaxError(source: string): string | undefined {
  const tree = parsePython(source);
  try {
    if (!tree.rootNode.hasError) return undefined;
    const stack: Node[] = [tree.rootNode];
    while (stack.length) {
      const node = stack.pop()!;
      if (node.isError || node.isMissing) {
        const { row, column } = node.startPosition;
        return `${node.isMissing ? 'MISSING' : 'ERROR'} at ${row + 1}:${column + 1} near ${JSON.stringify(node.text.slice(0, 40))}`;
      }
      for (let i = node.childCount - 1; i >= 0; i--) {
        const child = node.child(i);
        if (child?.hasError || child?.isMissing) stack.push(child);
      }
    }
    return 'rootNode.hasError is set';
  } finally {
    tree.delete();
  }
}

export function overlappingEdits(source: string, edits: readonly TextEdit[]): boolean {
  const resolved = resolve(source, edits);
  return resolved.some((e, i) => i > 0 && e.start < resolved[i - 1].end);
}

export function applyFix(source: string, fix: Fix): string {
  return applyTextEdits(source, fix.edits);
}

/** The line that `line` of `source` becomes once `edits` are applied. */
export function mapLine(source: string, edits: readonly TextEdit[], line: number): number {
  const lineStart = lineStarts(source)[line] ?? source.length;
  let shifted = line;
  for (const e of resolve(source, edits)) {
    if (e.end <= lineStart) shifted += countLineBreaks(e.newText) - countLineBreaks(source.slice(e.start, e.end));
  }
  return shifted;
}

/**
 * Problems with how a fix changed the text: lines it did not touch must be identical
 * (at their shifted offsets), no edit may replace more than one line break, and CRLF
 * files must not get bare LF line breaks.
 */
export function formattingProblems(source: string, edits: readonly TextEdit[], result: string): string[] {
  const problems: string[] = [];
  const starts = lineStarts(source);
  const resolved = resolve(source, edits);
  const touched = new Set<number>();
  for (const e of edits) for (let l = e.range.start.line; l <= e.range.end.line; l++) touched.add(l);
  for (const e of resolved) {
    if (countLineBreaks(source.slice(e.start, e.end)) > 1) {
      problems.push(`an edit replaces several lines: ${JSON.stringify(source.slice(e.start, e.end))}`);
    }
  }
  starts.forEach((lineStart, line) => {
    if (touched.has(line)) return;
    const text = source.slice(lineStart, starts[line + 1] ?? source.length);
    const shift = resolved.filter((e) => e.end <= lineStart).reduce((sum, e) => sum + e.newText.length - (e.end - e.start), 0);
    if (result.slice(lineStart + shift, lineStart + shift + text.length) !== text) {
      problems.push(`untouched line ${line + 1} changed: ${JSON.stringify(text)}`);
    }
  });
  if (source.includes('\r\n') && !/(^|[^\r])\n/.test(source) && /(^|[^\r])\n/.test(result)) {
    problems.push('a CRLF file got a bare LF line break');
  }
  return problems;
}

/** Identical edits from several findings (DD003 and DD010 share one) are applied once. */
export function dedupeEdits(edits: readonly TextEdit[]): TextEdit[] {
  const seen = new Map<string, TextEdit>();
  for (const e of edits) seen.set(JSON.stringify([e.range, e.newText, e.cellIndex ?? null]), e);
  return [...seen.values()];
}

export interface FixAllResult {
  text: string;
  /** Rounds that changed the text. */
  rounds: number;
  remaining: Finding[];
}

/** What `--fix` / fix-all does: apply every preferred fix, re-analyse, until nothing changes. */
export function fixAll(source: string, analyze: (text: string) => Finding[], maxRounds = 4): FixAllResult {
  let text = source;
  for (let round = 0; round < maxRounds; round++) {
    const findings = analyze(text);
    const edits = dedupeEdits(findings.flatMap((f) => f.fixes.filter((x) => x.preferred).flatMap((x) => x.edits)));
    const next = edits.length ? applyTextEdits(text, edits) : text;
    if (next === text) return { text, rounds: round, remaining: findings };
    text = next;
  }
  return { text, rounds: maxRounds, remaining: analyze(text) };
}

/** The source text a finding's range covers. */
export function findingText(source: string, f: Finding): string {
  const starts = lineStarts(source);
  return source.slice(offsetAt(starts, source, f.range.start), offsetAt(starts, source, f.range.end));
}

/** Per-code counts, to check that a fix introduced no new finding. */
export function countByCode(findings: readonly Finding[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const f of findings) counts.set(f.code, (counts.get(f.code) ?? 0) + 1);
  return counts;
}
