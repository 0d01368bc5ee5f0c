// The properties every input must keep, whatever it is:
//  1. analysis never throws;
//  2. every range (finding, related location, fix edit) lies inside the document, by LSP's
//     lines (`\n`, `\r\n` and a lone `\r` each end a line; a column at most the line's length);
//  3. every preferred fix, applied alone, leaves Python that the real CPython parses — judged
//     only where CPython parsed the text before the fix;
//  4. analysis finishes (a worker thread with a time limit reports a hang, see workerAnalyzer.ts);
//  5. fix-all converges: applying every preferred fix and re-analysing, after a few passes no
//     preferred fix is left (so a further pass changes nothing), and the result still parses.
// The analyzer and the Python judge are parameters, so self-checks can hand in broken ones.
import { analyzeNotebook, analyzeSource } from '../../src/core/analysis';
import type { Finding, Range, TextEdit } from '../../src/core/analysis';
import { blankIPythonSyntax } from '../../src/core/analysis/notebook';
import { applyTextEdits, lineStarts } from '../../src/core/python/edits';
import type { ParseVerdict, PythonOracle } from './cpython';
import type { FuzzInput } from './mutators';
import { AnalysisTimeout } from './workerAnalyzer';

export const FAILURE_KINDS = ['throw', 'hang', 'out-of-range', 'broken-fix', 'non-idempotent'] as const;
export type FailureKind = (typeof FAILURE_KINDS)[number];

export interface Violation {
  kind: FailureKind;
  /** Coarse and stable across inputs (no variable names), to group failures and to keep minimizing on the same one. */
  signature: string;
  detail: string;
}

type MaybePromise<T> = T | Promise<T>;

/**
 * What the fuzzer analyses with: the real analyzer in a worker with a time limit
 * (workerAnalyzer.ts), in this thread, or a deliberately broken one in self-checks.
 */
export interface Analyzer {
  source(text: string): MaybePromise<Finding[]>;
  notebook(cells: readonly string[]): MaybePromise<Array<{ cellIndex: number; finding: Finding }>>;
}

/** The analyzer in this thread: no time limit. */
export const realAnalyzer: Analyzer = {
  source: (text) => analyzeSource(text),
  notebook: (cells) => analyzeNotebook(cells),
};

/** Fix-all rounds before the analysis must offer no preferred fix any more. */
export const FIX_ALL_ROUNDS = 4;
/** Preferred fixes judged one by one per input (fix-all judges them all together anyway). */
const MAX_SINGLE_FIXES = 40;

export interface CheckStats {
  findings: number;
  preferredFixes: number;
  /** Whether CPython parsed every cell of the input (undefined: the analysis threw). */
  parsedByCPython?: boolean;
  /** Preferred fixes whose result CPython judged (the text parsed before). */
  judgedFixes: number;
  fixAllRounds: number;
  ms: number;
}

export interface CheckResult {
  violations: Violation[];
  stats: CheckStats;
}

/** A document as cells: a Python file is one cell without cell indexes. */
interface Doc {
  notebook: boolean;
  cells: string[];
}

interface Located {
  cellIndex: number;
  finding: Finding;
}

function docOf(input: FuzzInput): Doc {
  return input.kind === 'notebook' ? { notebook: true, cells: [...input.cells] } : { notebook: false, cells: [input.source] };
}

async function analyzeDoc(analyzer: Analyzer, doc: Doc): Promise<Located[]> {
  if (doc.notebook) return analyzer.notebook(doc.cells);
  const findings = await analyzer.source(doc.cells[0]);
  return Array.isArray(findings) ? findings.map((finding) => ({ cellIndex: 0, finding })) : findings;
}

/** The Python CPython should judge for a cell: a notebook's IPython syntax is blanked as the analyzer does. */
function pythonOf(doc: Doc, cell: string): string {
  return doc.notebook ? blankIPythonSyntax(cell) : cell;
}

function describeError(error: unknown): { signature: string; detail: string } {
  const e = error instanceof Error ? error : new Error(String(error));
  const frame = (e.stack ?? '').split('\n').find((l) => /src[\\/]/.test(l))?.trim().replace(/^at\s+/, '').replace(/\(.*[\\/](src[\\/][^)]*?):\d+\)$/, '($1)') ?? '';
  const message = e.message.split('\n')[0].replace(/\d+/g, 'N').replace(/'[^']*'|"[^"]*"/g, '…').slice(0, 100);
  return { signature: `${e.name}: ${message}${frame ? ` at ${frame}` : ''}`, detail: (e.stack ?? e.message).split('\n').slice(0, 8).join('\n') };
}

/** Line lengths without their breaks, by LSP's definition of lines. */
export function lineLengths(text: string): number[] {
  const starts = lineStarts(text);
  return starts.map((start, i) => {
    if (i + 1 >= starts.length) return text.length - start;
    const next = starts[i + 1];
    return next - start - (text.charCodeAt(next - 1) === 10 && text.charCodeAt(next - 2) === 13 ? 2 : 1);
  });
}

/** Why `range` is not inside `lengths`' document, or undefined when it is. */
export function rangeProblem(range: Range, lengths: readonly number[]): string | undefined {
  const { start, end } = range ?? ({} as Range);
  const ints = [start?.line, start?.character, end?.line, end?.character];
  if (!ints.every((n) => Number.isInteger(n) && n >= 0)) return `not a range of non-negative integers: ${JSON.stringify(range)}`;
  for (const [name, pos] of [['start', start], ['end', end]] as const) {
    if (pos.line >= lengths.length) return `${name} line ${pos.line} past the last line ${lengths.length - 1}`;
    if (pos.character > lengths[pos.line]) return `${name} column ${pos.character} past the end (${lengths[pos.line]}) of line ${pos.line}`;
  }
  if (start.line > end.line || (start.line === end.line && start.character > end.character)) return `start after end: ${JSON.stringify(range)}`;
  return undefined;
}

function rangeViolations(doc: Doc, located: readonly Located[]): Violation[] {
  const lengths = doc.cells.map(lineLengths);
  const out: Violation[] = [];
  const check = (what: string, code: string, range: Range, cellIndex: number | undefined, fallbackCell: number) => {
    let cell = fallbackCell;
    if (cellIndex !== undefined) {
      if (!doc.notebook && cellIndex !== 0) {
        out.push({ kind: 'out-of-range', signature: `${code} ${what}: a cell index in a Python file`, detail: `${code} ${what} has cellIndex ${cellIndex} in a Python file` });
        return;
      }
      cell = cellIndex;
    }
    if (!Number.isInteger(cell) || cell < 0 || cell >= doc.cells.length) {
      out.push({ kind: 'out-of-range', signature: `${code} ${what}: no such cell`, detail: `${code} ${what} in cell ${cell} of ${doc.cells.length}` });
      return;
    }
    const problem = rangeProblem(range, lengths[cell]);
    if (problem) {
      out.push({
        kind: 'out-of-range',
        signature: `${code} ${what}: ${problem.replace(/\d+/g, 'N').replace(/\{.*\}/, '…')}`,
        detail: `${code} ${what}${doc.notebook ? ` (cell ${cell})` : ''}: ${problem}; range ${JSON.stringify(range)}`,
      });
    }
  };
  for (const { cellIndex, finding: f } of located) {
    check('range', f.code, f.range, undefined, cellIndex);
    for (const r of f.related ?? []) check('related range', f.code, r.range, r.cellIndex, cellIndex);
    for (const fix of f.fixes ?? []) for (const e of fix.edits) check(`fix edit (${fix.title})`.replace(/\d+/g, 'N'), f.code, e.range, e.cellIndex, cellIndex);
  }
  return out;
}

/** Applies edits, each to its own cell (or the finding's). */
function applyToCells(cells: readonly string[], edits: ReadonlyArray<{ edit: TextEdit; cell: number }>): string[] {
  const byCell = new Map<number, TextEdit[]>();
  for (const { edit, cell } of edits) byCell.set(cell, [...(byCell.get(cell) ?? []), edit]);
  return cells.map((text, i) => (byCell.has(i) ? applyTextEdits(text, byCell.get(i)!) : text));
}

function preferredEdits(located: readonly Located[]): Array<{ edit: TextEdit; cell: number }> {
  return located.flatMap(({ cellIndex, finding }) =>
    (finding.fixes ?? []).filter((x) => x.preferred).flatMap((x) => x.edits.map((edit) => ({ edit, cell: edit.cellIndex ?? cellIndex }))),
  );
}

/** Parses cells with CPython, asking once per distinct text. */
class ParseCache {
  private readonly verdicts = new Map<string, Promise<ParseVerdict>>();

  constructor(private readonly oracle: PythonOracle) {}

  get(python: string): Promise<ParseVerdict> {
    let v = this.verdicts.get(python);
    if (!v) {
      v = this.oracle.parseMany([python]).then((r) => r[0]);
      this.verdicts.set(python, v);
    }
    return v;
  }
}

const short = (s: string, n = 160) => JSON.stringify(s.length > n ? s.slice(0, n) + '…' : s);

/** Checks every property on one input. */
export async function checkInput(input: FuzzInput, analyzer: Analyzer, oracle: PythonOracle): Promise<CheckResult> {
  const started = Date.now();
  const doc = docOf(input);
  const stats: CheckStats = { findings: 0, preferredFixes: 0, judgedFixes: 0, fixAllRounds: 0, ms: 0 };
  const violations: Violation[] = [];
  const done = () => ({ violations, stats: { ...stats, ms: Date.now() - started } });

  const analyze = async (d: Doc, when: string): Promise<Located[] | undefined> => {
    try {
      const located = await analyzeDoc(analyzer, d);
      if (!Array.isArray(located)) throw new Error(`the analysis returned ${typeof located}, not an array`);
      return located;
    } catch (error) {
      if (error instanceof AnalysisTimeout) {
        violations.push({ kind: 'hang', signature: 'the analysis did not finish in time', detail: `${when}: ${error.message}` });
        return undefined;
      }
      const { signature, detail } = describeError(error);
      violations.push({ kind: 'throw', signature, detail: `${when}: ${detail}` });
      return undefined;
    }
  };

  const located = await analyze(doc, 'analysing the input');
  if (!located) return done();
  stats.findings = located.length;
  violations.push(...rangeViolations(doc, located));

  const parses = new ParseCache(oracle);
  const parsedBefore = doc.cells.map((cell) => parses.get(pythonOf(doc, cell)));

  // 3. Each preferred fix alone, on the cells it edits.
  const preferred = located.flatMap((l) => (l.finding.fixes ?? []).filter((x) => x.preferred).map((fix) => ({ ...l, fix })));
  stats.preferredFixes = preferred.length;
  const judged = preferred.length > MAX_SINGLE_FIXES ? preferred.filter((_, i) => i % Math.ceil(preferred.length / MAX_SINGLE_FIXES) === 0) : preferred;
  const singleChecks = judged.map(async ({ cellIndex, finding, fix }) => {
    const after = applyToCells(doc.cells, fix.edits.map((edit) => ({ edit, cell: edit.cellIndex ?? cellIndex })));
    for (let c = 0; c < doc.cells.length; c++) {
      if (after[c] === doc.cells[c] || !(await parsedBefore[c]).ok) continue;
      const verdict = await parses.get(pythonOf(doc, after[c]));
      stats.judgedFixes++;
      if (!verdict.ok && !verdict.crashed) {
        violations.push({
          kind: 'broken-fix',
          signature: `${finding.code}: ${fix.title.replace(/`[^`]*`/g, '`…`').replace(/\d+/g, 'N')}`,
          detail: `${finding.code} at ${finding.range.start.line}:${finding.range.start.character}${doc.notebook ? ` (cell ${cellIndex})` : ''}, fix "${fix.title}" edits ${JSON.stringify(fix.edits)}; CPython: ${verdict.error}`,
        });
      }
    }
  });

  // 4. Fix-all: rounds of every preferred fix, re-analysing, until none is offered.
  let current = doc;
  let remaining = located;
  for (let round = 0; round < FIX_ALL_ROUNDS && preferredEdits(remaining).length; round++) {
    const next: Doc = { notebook: doc.notebook, cells: applyToCells(current.cells, preferredEdits(remaining)) };
    stats.fixAllRounds = round + 1;
    current = next;
    const again = await analyze(current, `re-analysing after fix-all round ${round + 1}`);
    if (!again) break;
    violations.push(...rangeViolations(current, again).map((v) => ({ ...v, detail: `after fix-all round ${round + 1}: ${v.detail}` })));
    remaining = again;
  }
  const left = preferredEdits(remaining);
  if (stats.fixAllRounds === FIX_ALL_ROUNDS && left.length) {
    const changes = applyToCells(current.cells, left).some((c, i) => c !== current.cells[i]);
    const codes = [...new Set(remaining.filter((l) => l.finding.fixes.some((x) => x.preferred)).map((l) => l.finding.code))].sort();
    violations.push({
      kind: 'non-idempotent',
      signature: `${codes.join(',')}: preferred fix still offered after ${FIX_ALL_ROUNDS} fix-all rounds${changes ? '' : ' (and applying it changes nothing)'}`,
      detail: `after ${FIX_ALL_ROUNDS} rounds still offered: ${remaining
        .filter((l) => l.finding.fixes.some((x) => x.preferred))
        .slice(0, 5)
        .map((l) => `${l.finding.code} at ${l.finding.range.start.line}:${l.finding.range.start.character} "${l.finding.fixes.find((x) => x.preferred)!.title}" ${JSON.stringify(l.finding.fixes.find((x) => x.preferred)!.edits)}`)
        .join('; ')}`,
    });
  }
  const fixAllCheck = (async () => {
    if (current === doc) return;
    for (let c = 0; c < doc.cells.length; c++) {
      if (current.cells[c] === doc.cells[c] || !(await parsedBefore[c]).ok) continue;
      const verdict = await parses.get(pythonOf(doc, current.cells[c]));
      if (!verdict.ok && !verdict.crashed) {
        violations.push({
          kind: 'broken-fix',
          signature: `fix-all (${[...new Set(located.filter((l) => l.finding.fixes.some((x) => x.preferred)).map((l) => l.finding.code))].sort().join(',')})`,
          detail: `fix-all${doc.notebook ? ` in cell ${c}` : ''} after ${stats.fixAllRounds} round(s) leaves ${short(current.cells[c], 400)}; CPython: ${verdict.error}`,
        });
      }
    }
  })();

  await Promise.all([...singleChecks, fixAllCheck]);
  stats.parsedByCPython = (await Promise.all(parsedBefore)).every((v) => v.ok);
  for (const v of violations) {
    if (v.kind === 'non-idempotent') v.signature += stats.parsedByCPython ? ', on valid Python' : ', on input CPython rejects';
  }
  return done();
}
