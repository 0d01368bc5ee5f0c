// The lint pipeline shared by `lint` and `doctor`: for each file, find its pyproject
// configuration, read it, analyse it (fixing it first with --fix) and collect the results.
// --fix writes a file only when its fixes add no syntax error, never through a symbolic
// link, and atomically, and only if nobody saved it meanwhile (replaceFile.ts); a notebook
// gets only its changed cells rewritten. A fix that cannot be written still leaves the
// file checked: its findings are reported as the file stands, with the reason.
import * as fs from 'fs';
import * as path from 'path';
import { analyzeNotebook, analyzeSource, initPythonParser, withCellWording } from '../../core/analysis';
import type { AnalysisCache, Analyzer } from './analysisCache';
import { discardParserAfter, isParserReady, ParserCrashedError, parserReloads } from '../../core/python/parser';
import type { AnalyzeOptions, SkippedStatement } from '../../core/analysis/types';
import { findProjectConfig, selectionForFile, type SelectionLayer } from '../../core/config';
import { SyntaxCheck } from '../../core/python/fixCheck';
import { sizeLimitProblem } from '../../core/python/limits';
import { relativeInside } from '../../core/paths/containment';
import { NotRegularFileError, openForFix, readRegularFile, type OpenedForFix } from './fileAccess';
import { FixNotWrittenError, replaceFile, type ReplaceHooks } from './replaceFile';
import { fixUntilStable, type AnalyzeSources, type FixOptions, type FixResult, type LocatedFinding } from './fixes';
import type { LintedFile, LintReport } from '../formats/report';
import { isPythonNotebook, NotebookWriteError, parseNotebook, serializeNotebook, type NotebookFile } from './notebookFile';
import { decodePythonSource, encodePythonSource, UnreadableFileError, type PythonText } from './pythonFile';
import { ProjectModules, projectRoots } from './projectModules';
import { resultsFromThreads, type LintOutcome } from './lintThreads';

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
  /** Tests: a save at the moments --fix is most likely to miss one. */
  replaceHooks?: ReplaceHooks;
  /** Findings of unchanged files and imports, kept from earlier runs (analysisCache.ts). */
  cache?: AnalysisCache;
  /** Files checked at once, each in a thread of its own (--jobs); absent: one fewer than the cores, at most 8 (lintThreads.ts). */
  jobs?: number;
}

export type { Analyzer };

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

/** The file's bytes, and the open file --fix may write back (absent: it may not, and `notes` says why). */
function readFile(file: string, fix: boolean, notes: string[]): { bytes: Buffer; target?: OpenedForFix } {
  if (!fix) return { bytes: readRegularFile(file) };
  const opened = openForFix(file);
  if ('fd' in opened) return { bytes: opened.bytes, target: opened };
  notes.push(`not fixed: ${opened.notFixed}`);
  // Linting reads through a link as it always has; only writing through one is refused.
  return { bytes: readRegularFile(file) };
}

/** Why the fixed text was not written: a refusal's own words, or the file system's error code. */
function writeFailure(err: unknown): FixNotWrittenError {
  if (err instanceof FixNotWrittenError) return err;
  const code = (err as NodeJS.ErrnoException).code;
  if (typeof code !== 'string') throw err;
  return new FixNotWrittenError(`fix not written: the file could not be written (${code}); it is as it was, and the findings are those in it`);
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
  const notes: string[] = [];
  const { bytes, target } = readFile(file, settings.fix, notes);
  try {
    return checkFile(new FileCheck(file, settings, modules, target, notes), bytes);
  } finally {
    if (target) fs.closeSync(target.fd);
  }
}

/** One file being checked: its options, what it says on stderr, and how its fixed text is written. */
class FileCheck {
  readonly options: AnalyzeOptions;
  readonly skipped = new SkippedBySources();
  readonly analyzer: Analyzer;
  readonly fixErrors: string[] = [];
  readonly fixOptions: FixOptions;

  constructor(
    readonly file: string,
    readonly settings: LintSettings,
    private readonly modules: ProjectModules,
    private readonly target: OpenedForFix | undefined,
    readonly notes: string[],
  ) {
    this.options = analyzeOptions(file, settings, modules);
    const analyzer = settings.analyzer ?? deviceAnalyzer;
    this.analyzer = settings.cache ? settings.cache.wrap(analyzer) : analyzer;
    const syntax = new SyntaxCheck();
    // A parser that died during this file can judge nothing: then no fix is written unchecked.
    this.fixOptions = { addsSyntaxError: (before, after) => before !== after && (!isParserReady() || syntax.addsSyntaxError(before, after)) };
  }

  get fix(): boolean {
    return this.target !== undefined;
  }

  run(sources: string[], analyze: AnalyzeSources, fix = this.fix): FixResult {
    return run(sources, analyze, fix, this.fixOptions);
  }

  /** Writes the fixed text; false when it could not be (the reason is in fixErrors or notes). */
  write(bytes: Buffer): boolean {
    if (!this.target) return false;
    try {
      replaceFile(this.target, bytes, this.settings.replaceHooks);
    } catch (err) {
      const failure = writeFailure(err);
      (failure.severity === 'warning' ? this.notes : this.fixErrors).push(failure.message);
      return false;
    }
    this.modules.changed(this.file);
    return true;
  }

  finish(linted: LintedFile): LintedFile {
    const withNotes = this.notes.length > 0 ? { ...linted, notes: this.notes } : linted;
    return this.skipped.attach(this.fixErrors.length > 0 ? { ...withNotes, fixErrors: this.fixErrors } : withNotes);
  }
}

function checkFile(check: FileCheck, bytes: Buffer): LintedFile | undefined {
  const decoded = decodePythonSource(bytes);
  const { file, settings, options, skipped, analyzer, notes } = check;
  const base = { path: file, displayPath: displayPath(file, settings.cwd) };
  if (path.extname(file).toLowerCase() !== '.ipynb') {
    checkSize(decoded.text, settings, '');
    const analyze: AnalyzeSources = (sources) => analyzer.analyzeSource(sources[0], skipped.recording(options, sources)).map((finding) => ({ finding }));
    let result = check.run([decoded.text], analyze);
    if (result.refused.length > 0) notes.push(`fix not applied: it would leave a syntax error (${describeRefused(result.refused)})`);
    if (result.sources[0] !== decoded.text && !check.write(encodePythonSource({ ...decoded, text: result.sources[0] }))) {
      result = check.run([decoded.text], analyze, false);
    }
    return check.finish({ ...base, sources: result.sources, findings: result.remaining, fixed: result.fixed });
  }
  const notebook = parseNotebook(decoded.text);
  if (!isPythonNotebook(notebook)) return undefined;
  checkSize(notebook.sources, settings, ' of code cells');
  const cellNumbers = notebook.codeCellPositions.map((position) => position + 1);
  const analyze: AnalyzeSources = (sources) =>
    analyzer.analyzeNotebook(sources, skipped.recording(options, sources)).map((found) => ({ finding: withCellWording(found, cellNumbers), cellIndex: found.cellIndex }));
  let result = check.run(notebook.sources, analyze);
  if (result.refused.length > 0) notes.push(`fix not applied: it would leave a syntax error (${describeRefused(result.refused, cellNumbers)})`);
  if (result.sources.some((source, i) => source !== notebook.sources[i]) && !writeNotebook(check, notebook, result.sources, decoded)) {
    result = check.run(notebook.sources, analyze, false);
  }
  return check.finish({ ...base, sources: result.sources, cellNumbers, findings: result.remaining, fixed: result.fixed });
}

/** Writes the notebook with its fixed cells; false when it was not written (the reason is noted). */
function writeNotebook(check: FileCheck, notebook: NotebookFile, sources: readonly string[], decoded: PythonText): boolean {
  let text: string;
  try {
    text = serializeNotebook(notebook, sources);
  } catch (err) {
    if (!(err instanceof NotebookWriteError)) throw err;
    check.notes.push(`fix not applied: ${err.message}`);
    return false;
  }
  return check.write(encodePythonSource({ ...decoded, text }));
}

/** What to say about a file the parser failed on; undefined for any other failure. */
function parserFailure(err: unknown, reloadsBefore: number): string | undefined {
  const size = err instanceof ParserCrashedError ? ` of ${err.textLength.toLocaleString('en-US')} characters` : '';
  // An abort while the analysis read the tree surfaces as tree-sitter's own "Aborted(). Build with -sASSERTIONS...".
  if (!(err instanceof ParserCrashedError) && !discardParserAfter(err) && parserReloads() === reloadsBefore) return undefined;
  return `the Python parser failed on this file${size} (tree-sitter stopped, most often for lack of memory on very large or dense code); the file was skipped, and the parser reloaded for the other files`;
}

function describeFailure(err: unknown): string {
  if (err instanceof UnreadableFileError || err instanceof NotRegularFileError) return err.message;
  if (err instanceof RangeError && /call stack/i.test(err.message)) return 'too deeply nested to check (the analysis ran out of stack); the file was skipped';
  const code = (err as NodeJS.ErrnoException).code;
  if (typeof code === 'string') return `cannot read the file (${code})`;
  // The analyzer promises never to throw; if it does, one file fails, not the run.
  return `internal error while checking this file: ${err instanceof Error ? err.message : String(err)}`;
}

/** Lints files one at a time, in this thread; `files` are all the run lints (who imports whom). */
export class FileLinter {
  private readonly modules: ProjectModules;
  private reloadsBefore = parserReloads();

  constructor(files: readonly string[], private readonly settings: LintSettings) {
    this.modules = new ProjectModules(projectRoots(settings.paths ?? [], settings.cwd), settings.maxBytes, files);
  }

  /** The file checked, nothing (a notebook that is not ours), or why it could not be. */
  async lint(file: string): Promise<LintOutcome> {
    try {
      // After a parser crash on an earlier file the parser reloads; this waits for it (and
      // returns at once when it is ready), so one bad file never costs the rest of the run.
      await initPythonParser();
      this.reloadsBefore = parserReloads();
      return { linted: lintOneFile(file, this.settings, this.modules) };
    } catch (err) {
      const reason = parserFailure(err, this.reloadsBefore) ?? describeFailure(err);
      return { problem: { path: file, displayPath: displayPath(file, this.settings.cwd), reason } };
    }
  }
}

/** Adds one file's outcome to `report`, in the order files were given. */
function addOutcome(report: LintReport, outcome: LintOutcome): void {
  if (outcome.linted) report.files.push(outcome.linted);
  if (outcome.problem) report.problems.push(outcome.problem);
}

/** The outcomes of `files` checked in threads (lintThreads.ts); undefined where this run checks them here. */
async function outcomesFromThreads(files: readonly string[], settings: LintSettings): Promise<LintOutcome[] | undefined> {
  if (settings.fix || settings.analyzer || settings.replaceHooks) return undefined;
  const { cwd, overrides, noqa, maxBytes, paths, cache } = settings;
  const results = await resultsFromThreads({ files, settings: { cwd, overrides, noqa, maxBytes, paths }, cache: cache && { folder: cache.folder, tool: cache.tool } }, settings.jobs);
  if (!results) return undefined;
  let here: FileLinter | undefined;
  const outcomes: LintOutcome[] = [];
  for (const [i, file] of files.entries()) {
    const result = results[i];
    if (result && 'outcome' in result) outcomes.push(result.outcome);
    else if (result) outcomes.push({ problem: { path: file, displayPath: displayPath(file, cwd), reason: `internal error while checking this file: its thread stopped (${result.stopped}); the other files were checked` } });
    // Every thread stopped before this file was handed out: it is checked here.
    else outcomes.push(await (here ??= new FileLinter(files, settings)).lint(file));
  }
  return outcomes;
}

export async function lintFiles(files: readonly string[], settings: LintSettings): Promise<LintReport> {
  const report: LintReport = { files: [], problems: [], fixMode: settings.fix };
  const fromThreads = await outcomesFromThreads(files, settings);
  if (fromThreads) {
    for (const outcome of fromThreads) addOutcome(report, outcome);
    return report;
  }
  // The threads load their own parser; only a run checked here needs this thread's.
  await initPythonParser();
  const linter = new FileLinter(files, settings);
  for (const file of files) addOutcome(report, await linter.lint(file));
  return report;
}
