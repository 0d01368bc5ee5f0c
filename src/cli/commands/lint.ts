// `device-doctor lint`: exit 0 when clean, 1 when findings remain (or a file could
// not be checked, or --fix could not write a fix), 2 on usage errors, including a pyproject.toml that does not parse.
import type { LintOptions } from '../args';
import type { SelectionLayer } from '../../core/config';
import { formatJson } from '../formats/json';
import { cellNumber, Locator, type LintedFile, type LintReport } from '../formats/report';
import { formatSarif } from '../formats/sarif';
import { formatText } from '../formats/text';
import type { CliIo } from '../io';
import { terminalText } from '../formats/terminalText';
import { configurationErrors, displayPath, lintFiles, type Analyzer } from '../lint/lintFiles';
import { DEVICE_DOCTOR_VERSION } from '../version';
import { collectFiles } from '../lint/walk';
import { AnalysisCache, DEFAULT_CACHE_FOLDER, toolIdentity } from '../lint/analysisCache';
import * as path from 'path';

export const EXIT_CLEAN = 0;
export const EXIT_FINDINGS = 1;
export const EXIT_USAGE = 2;

function commandLineLayer(options: LintOptions): SelectionLayer | undefined {
  const { select, extendSelect, ignore, torchVersion } = options;
  if (!select && !extendSelect && !ignore && !torchVersion) return undefined;
  return { select, extendSelect, ignore, torchVersion };
}

function render(report: LintReport, options: LintOptions, io: CliIo): string {
  switch (options.format) {
    case 'json':
      return formatJson(report);
    case 'sarif':
      return formatSarif(report, { cwd: io.cwd, version: DEVICE_DOCTOR_VERSION });
    default:
      return formatText(report, { color: io.color, quiet: options.quiet });
  }
}

/** `path:row:col: syntax error; ...` for each statement the analysis skipped (1-based, the statement's start). */
function syntaxErrorLines(file: LintedFile): string[] {
  const locator = new Locator(file.sources);
  return (file.syntaxErrors ?? []).map((skipped) => {
    const { row, column } = locator.locate(skipped.range.start, skipped.cellIndex);
    const cell = cellNumber(file, skipped.cellIndex);
    return `${terminalText(file.displayPath)}${cell === undefined ? '' : `:cell ${cell}`}:${row}:${column}: syntax error; analysis of this statement skipped\n`;
  });
}

/**
 * The cache of analyses (analysisCache.ts): on unless --no-cache, never while --fix
 * rewrites files, and for a test's own analyzer only when the test names a folder.
 */
function analysisCache(options: LintOptions, cwd: string, analyzer: Analyzer | undefined): AnalysisCache | undefined {
  if (options.cache === false || options.fix) return undefined;
  if (options.cache === undefined && analyzer) return undefined;
  const folder = path.resolve(cwd, options.cache ?? DEFAULT_CACHE_FOLDER);
  return new AnalysisCache(folder, toolIdentity(DEVICE_DOCTOR_VERSION, require.main?.filename));
}

/** `analyzer` is for tests; the CLI runs the device analyzer. */
export async function runLintCommand(options: LintOptions, io: CliIo, analyzer?: Analyzer): Promise<number> {
  const collected = collectFiles(options.paths, io.cwd);
  if (collected.missing.length > 0) {
    for (const missing of collected.missing) io.stderr(`error: path not found: ${terminalText(missing)}\n`);
    return EXIT_USAGE;
  }
  const configErrors = configurationErrors(collected.files);
  if (configErrors.length > 0) {
    for (const error of configErrors) io.stderr(`error: ${terminalText(error)}\n`);
    return EXIT_USAGE;
  }
  if (collected.files.length === 0 && collected.notRegular.length === 0 && options.format === 'text' && !options.quiet) {
    io.stderr('warning: no Python files or notebooks found under the given paths\n');
  }
  const report = await lintFiles(collected.files, {
    cwd: io.cwd,
    overrides: commandLineLayer(options),
    noqa: options.noqa,
    fix: options.fix,
    maxBytes: options.maxBytes,
    analyzer,
    paths: options.paths,
    cache: analysisCache(options, io.cwd, analyzer),
    jobs: options.jobs,
  });
  for (const folder of collected.unreadable) {
    report.problems.push({ path: folder.path, displayPath: displayPath(folder.path, io.cwd), reason: `cannot list this folder (${folder.reason})` });
  }
  for (const skipped of collected.notRegular) {
    report.problems.push({ path: skipped.path, displayPath: displayPath(skipped.path, io.cwd), reason: skipped.reason });
  }
  // Paths and reasons are made safe for the terminal, as in every format (terminalText.ts).
  for (const problem of report.problems) io.stderr(`error: ${terminalText(`${problem.displayPath}: ${problem.reason}`)}\n`);
  for (const file of report.files) {
    for (const line of syntaxErrorLines(file)) io.stderr(line);
    for (const note of file.notes ?? []) io.stderr(`warning: ${terminalText(`${file.displayPath}: ${note}`)}\n`);
    for (const error of file.fixErrors ?? []) io.stderr(`error: ${terminalText(`${file.displayPath}: ${error}`)}\n`);
  }
  io.stdout(render(report, options, io));
  const remaining = report.files.reduce((n, f) => n + f.findings.length, 0);
  const notWritten = report.files.some((f) => (f.fixErrors ?? []).length > 0);
  if (options.exitZero) return EXIT_CLEAN;
  return remaining > 0 || notWritten || report.problems.length > 0 ? EXIT_FINDINGS : EXIT_CLEAN;
}
