// The lint pipeline shared by `lint` and `doctor`: for each file, find its pyproject
// configuration, read it, analyse it (fixing it first with --fix) and collect the results.
// --fix writes a file only when its fixes add no syntax error, never through a symbolic
// link, and atomically (fileAccess.ts); a notebook gets only its changed cells rewritten.
import * as fs from 'fs';
import * as path from 'path';
import { analyzeNotebook, analyzeSource, initPythonParser } from '../../core/analysis';
import { ParserCrashedError } from '../../core/python/parser';
import type { AnalyzeOptions, CellFinding, Finding, SkippedStatement } from '../../core/analysis/types';
import { findProjectConfig, selectionForFile, type SelectionLayer } from '../../core/config';
import { SyntaxCheck } from '../../core/python/fixCheck';
import { sizeLimitProblem } from '../../core/python/limits';
import { relativeInside } from '../../core/paths/containment';
import { readForFix, SYMBOLIC_LINK, writeFileAtomic } from './fileAccess';
import { fixUntilStable, type AnalyzeSources, type FixOptions, type FixResult, type LocatedFinding } from './fixes';
import type { LintedFile, LintReport } from '../formats/report';
import { isPythonNotebook, NotebookWriteError, parseNotebook, serializeNotebook } from './notebookFile';
import { decodePythonSource, encodePythonSource, UnreadableFileError } from './pythonFile';
import { ProjectModules, projectRoots } from './projectModules';

export interface LintSettings {
  cwd: string;
  /** The command line's --select/--ignore, layered over each file's pyproject selection. */
  overrides?: SelectionLayer;
  /** Honour `# noqa` comments. */
  noqa: boolean;
  /** Apply preferred fixes and write changed files. */
  fix: boolean;
  /** Files (a notebook's code cells) of more UTF-8 bytes are skipped before parsing; 0 or absent: no limit. */
  maxBytes?: number;
  /** The analyzer to run; tests pass a fake one to exercise --fix and output without it. */
  analyzer?: Analyzer;
  /** The paths named on the command line: imports are searched under them (and `cwd`); absent: `cwd` only. */
  paths?: readonly string[];
}

export interface Analyzer {
  analyzeSource(source: string, options: AnalyzeOptions): Finding[];
  analyzeNotebook(cells: readonly string[], options: AnalyzeOptions): CellFinding[];
}

const deviceAnalyzer: Analyzer = { analyzeSource, analyzeNotebook };

export function displayPath(file: string, cwd: string): string {
  return relativeInside(cwd, file) || file;
}

/** Problems in the pyproject files that configure `files`, each reported once. */
export function configurationErrors(files: readonly string[]): string[] {
  const errors = new Set<string>();
  for (const file of files) for (const error of findProjectConfig(file)?.errors ?? []) errors.add(error);
  return [...errors];
}

function analyzeOptions(file: string, settings: LintSettings, modules: ProjectModules): AnalyzeOptions {
  const found = findProjectConfig(file);
  const selection = selectionForFile(found?.config ?? {}, found?.root ?? settings.cwd, file, settings.overrides);
  return { ...selection, noqa: settings.noqa, project: modules.contextFor(file) };
}

function run(sources: string[], analyze: AnalyzeSources, fix: boolean, options: FixOptions): FixResult {
  return fix ? fixUntilStable(sources, analyze, options) : { sources, fixed: 0, remaining: analyze(sources), refused: [] };
}

/** "DD003 at line 4: Insert .cpu() before .numpy()", one per refused fix. */
function describeRefused(refused: readonly LocatedFinding[], cellNumbers?: readonly number[]): string {
  return refused
    .map(({ finding, cellIndex }) => {
      const cell = cellNumbers ? `cell ${cellNumbers[cellIndex ?? 0] ?? (cellIndex ?? 0) + 1}, ` : '';
      const title = finding.fixes.find((f) => f.preferred)?.title;
      return `${finding.code} at ${cell}line ${finding.range.start.line + 1}${title ? `: ${title}` : ''}`;
    })
    .join('; ');
}

/** The file's bytes, and how --fix may write it back (undefined: it may not, and `notes` says why). */
function readFile(file: string, fix: boolean, notes: string[]): { bytes: Buffer; mode?: number } {
  if (!fix) return { bytes: fs.readFileSync(file) };
  const read = readForFix(file);
  if ('bytes' in read) return read;
  if (read.notFixed !== SYMBOLIC_LINK) throw new UnreadableFileError(read.notFixed);
  notes.push(`not fixed: ${read.notFixed}`);
  // Linting reads through a link as it always has; only writing through one is refused.
  return { bytes: fs.readFileSync(file) };
}

/**
 * Refuses a text over --max-bytes before anything parses it: tree-sitter's wasm aborts on
 * about 20 MB of dense input. The file is then reported as not checked, like an unreadable one.
 */
function checkSize(text: string | readonly string[], settings: LintSettings, what: string): void {
  const problem = sizeLimitProblem(text, { maxBytes: settings.maxBytes });
  if (problem) throw new UnreadableFileError(`skipped: ${problem.actual} bytes${what}, over the limit of ${problem.max}; --max-bytes to raise it`);
}

/**
 * The statements skipped for syntax errors, remembered per analysed text: --fix analyses
 * several texts, and the file reports those of the text it ends with.
 */
class SkippedBySources {
  private readonly found = new Map<string, SkippedStatement[]>();

  /** `options` that record what the analysis of `sources` skipped. */
  recording(options: AnalyzeOptions, sources: readonly string[]): AnalyzeOptions {
    const skipped: SkippedStatement[] = [];
    this.found.set(sources.join('\u0000'), skipped);
    return { ...options, onSyntaxError: (s) => skipped.push(s) };
  }

  /** For `linted`: its syntax errors, when its final sources had any. */
  attach<T extends LintedFile>(linted: T): T {
    const skipped = this.found.get(linted.sources.join('\u0000')) ?? [];
    return skipped.length > 0 ? { ...linted, syntaxErrors: skipped } : linted;
  }
}

/** Checks one file; undefined for a notebook in another language, which is not ours to check. */
function lintOneFile(file: string, settings: LintSettings, modules: ProjectModules): LintedFile | undefined {
  const options = analyzeOptions(file, settings, modules);
  const skipped = new SkippedBySources();
  const analyzer = settings.analyzer ?? deviceAnalyzer;
  const notes: string[] = [];
  const { bytes, mode } = readFile(file, settings.fix, notes);
  const fix = mode !== undefined;
  const decoded = decodePythonSource(bytes);
  const syntax = new SyntaxCheck();
  const fixOptions: FixOptions = { addsSyntaxError: (before, after) => syntax.addsSyntaxError(before, after) };
  const write = (text: string) => {
    writeFileAtomic(file, encodePythonSource({ ...decoded, text }), mode ?? 0o644);
    modules.changed(file);
  };
  const base = { path: file, displayPath: displayPath(file, settings.cwd) };
  const withNotes = (linted: LintedFile): LintedFile => skipped.attach(notes.length > 0 ? { ...linted, notes } : linted);
  if (path.extname(file).toLowerCase() !== '.ipynb') {
    checkSize(decoded.text, settings, '');
    const analyze: AnalyzeSources = (sources) => analyzer.analyzeSource(sources[0], skipped.recording(options, sources)).map((finding) => ({ finding }));
    const result = run([decoded.text], analyze, fix, fixOptions);
    if (result.refused.length > 0) notes.push(`fix not applied: it would leave a syntax error (${describeRefused(result.refused)})`);
    if (result.sources[0] !== decoded.text) write(result.sources[0]);
    return withNotes({ ...base, sources: result.sources, findings: result.remaining, fixed: result.fixed });
  }
  const notebook = parseNotebook(decoded.text);
  if (!isPythonNotebook(notebook)) return undefined;
  checkSize(notebook.sources, settings, ' of code cells');
  const cellNumbers = notebook.codeCellPositions.map((position) => position + 1);
  const analyze: AnalyzeSources = (sources) =>
    analyzer.analyzeNotebook(sources, skipped.recording(options, sources)).map(({ finding, cellIndex }) => ({ finding, cellIndex }));
  let result = run(notebook.sources, analyze, fix, fixOptions);
  if (result.refused.length > 0) notes.push(`fix not applied: it would leave a syntax error (${describeRefused(result.refused, cellNumbers)})`);
  if (result.sources.some((source, i) => source !== notebook.sources[i])) {
    let text: string | undefined;
    try {
      text = serializeNotebook(notebook, result.sources);
    } catch (err) {
      if (!(err instanceof NotebookWriteError)) throw err;
      notes.push(`fix not applied: ${err.message}`);
      result = run(notebook.sources, analyze, false, fixOptions);
    }
    if (text !== undefined) write(text);
  }
  return withNotes({ ...base, sources: result.sources, cellNumbers, findings: result.remaining, fixed: result.fixed });
}

function describeFailure(err: unknown): string {
  if (err instanceof UnreadableFileError) return err.message;
  if (err instanceof ParserCrashedError) return `the Python parser ran out of memory on this file and was reloaded; the file was skipped (${err.textLength.toLocaleString('en-US')} characters)`;
  const code = (err as NodeJS.ErrnoException).code;
  if (typeof code === 'string') return `cannot read or write the file (${code})`;
  // The analyzer promises never to throw; if it does, one file fails, not the run.
  return `internal error while checking this file: ${err instanceof Error ? err.message : String(err)}`;
}

export async function lintFiles(files: readonly string[], settings: LintSettings): Promise<LintReport> {
  await initPythonParser();
  const report: LintReport = { files: [], problems: [], fixMode: settings.fix };
  const modules = new ProjectModules(projectRoots(settings.paths ?? [], settings.cwd), settings.maxBytes);
  for (const file of files) {
    try {
      // After a parser crash on an earlier file the parser reloads; this waits for it (and
      // returns at once when it is ready), so one bad file never costs the rest of the run.
      await initPythonParser();
      const linted = lintOneFile(file, settings, modules);
      if (linted) report.files.push(linted);
    } catch (err) {
      report.problems.push({ path: file, displayPath: displayPath(file, settings.cwd), reason: describeFailure(err) });
    }
  }
  return report;
}
