// SARIF 2.1.0, the format code-scanning services (GitHub, Azure DevOps, IDE viewers)
// read. Paths are relative to the working folder (uriBaseId %SRCROOT%); columns are
// code points, stated by columnKind so no reader has to guess.
import * as path from 'path';
import { pathToFileURL } from 'url';
import { DOCS_BASE_URL, RULES, ruleDocsUrl, ruleInfo } from '../../core/analysis/catalog';
import type { Finding, Range, RuleCode, Severity } from '../../core/analysis/types';
import { relativeInside } from '../../core/paths/containment';
import type { LocatedFinding } from '../lint/fixes';
import { cellNumber, Locator, sortedFindings, type LintReport, type LintedFile } from './report';
import { terminalJson } from './terminalText';

export const SARIF_SCHEMA = 'https://json.schemastore.org/sarif-2.1.0.json';
export const SRCROOT = '%SRCROOT%';

type SarifLevel = 'error' | 'warning' | 'note';
type Json = Record<string, unknown>;

export interface SarifOptions {
  cwd: string;
  version: string;
}

export function sarifLevel(severity: Severity): SarifLevel {
  return severity === 'error' ? 'error' : severity === 'warning' ? 'warning' : 'note';
}

/** Relative to `cwd` under %SRCROOT% when inside it; an absolute file URI otherwise. */
export function artifactLocation(file: string, cwd: string): Json {
  const relative = relativeInside(cwd, file);
  if (!relative) {
    return { uri: pathToFileURL(file).href };
  }
  return { uri: relative.split(path.sep).map(encodeURIComponent).join('/'), uriBaseId: SRCROOT };
}

function sarifRule(code: RuleCode): Json {
  const info = ruleInfo(code);
  return {
    id: code,
    name: info.name,
    shortDescription: { text: info.summary },
    helpUri: ruleDocsUrl(code),
    defaultConfiguration: { level: sarifLevel(info.severity) },
  };
}

function region(locator: Locator, range: Range, cellIndex: number | undefined): Json {
  const start = locator.locate(range.start, cellIndex);
  const end = locator.locate(range.end, cellIndex);
  return { startLine: start.row, startColumn: start.column, endLine: end.row, endColumn: end.column };
}

function otherFileRegion(range: Range): Json {
  return { startLine: range.start.line + 1, startColumn: range.start.character + 1, endLine: range.end.line + 1, endColumn: range.end.character + 1 };
}

/** Fixes only for .py files: a notebook's cell-local lines are not lines of the .ipynb file. */
function sarifFixes(file: LintedFile, finding: Finding, locator: Locator, artifact: Json): Json[] | undefined {
  const fix = finding.fixes.find((f) => f.preferred);
  if (!fix || fix.edits.length === 0 || file.cellNumbers) return undefined;
  const replacements = fix.edits.map((edit) => ({
    deletedRegion: region(locator, edit.range, undefined),
    insertedContent: { text: edit.newText },
  }));
  return [{ description: { text: fix.title }, artifactChanges: [{ artifactLocation: artifact, replacements }] }];
}

function sarifResult(file: LintedFile, found: LocatedFinding, locator: Locator, ruleIndex: number, cwd: string): Json {
  const { finding, cellIndex } = found;
  const artifact = artifactLocation(file.path, cwd);
  const physical = (range: Range, cell: number | undefined): Json => ({ artifactLocation: artifact, region: region(locator, range, cell) });
  const result: Json = {
    ruleId: finding.code,
    ruleIndex,
    level: sarifLevel(finding.severity),
    message: { text: finding.message },
    locations: [{ physicalLocation: physical(finding.range, cellIndex) }],
  };
  if (finding.related.length > 0) {
    result.relatedLocations = finding.related.map((rel, id) => ({
      id,
      message: { text: rel.message },
      physicalLocation: rel.path !== undefined
        // Another file of the project: its lines and columns as the analysis counted them (1-based).
        ? { artifactLocation: artifactLocation(rel.path, cwd), region: otherFileRegion(rel.range) }
        : physical(rel.range, rel.cellIndex ?? cellIndex),
      // In a notebook of the project that imports this file: lines counted in that code cell.
      ...(rel.path !== undefined && rel.cellIndex !== undefined ? { properties: { cell: rel.cellIndex + 1 } } : {}),
    }));
  }
  const fixes = sarifFixes(file, finding, locator, artifact);
  if (fixes) result.fixes = fixes;
  const cell = cellNumber(file, cellIndex);
  if (cell !== undefined) result.properties = { cell };
  return result;
}

/** The implemented rules, plus any other rule that produced a result. */
function reportedRules(report: LintReport): RuleCode[] {
  const used = new Set(report.files.flatMap((f) => f.findings.map((x) => x.finding.code)));
  return RULES.filter((r) => r.implemented || used.has(r.code)).map((r) => r.code);
}

export function toSarif(report: LintReport, options: SarifOptions): Json {
  const rules = reportedRules(report);
  const results = report.files.flatMap((file) => {
    const locator = new Locator(file.sources);
    return sortedFindings(file).map((found) => sarifResult(file, found, locator, rules.indexOf(found.finding.code), options.cwd));
  });
  const notifications = report.problems.map((problem) => ({
    level: 'error',
    message: { text: `${problem.displayPath}: ${problem.reason}` },
    locations: [{ physicalLocation: { artifactLocation: artifactLocation(problem.path, options.cwd) } }],
  }));
  return {
    $schema: SARIF_SCHEMA,
    version: '2.1.0',
    runs: [{
      tool: {
        driver: {
          name: 'device-doctor',
          informationUri: DOCS_BASE_URL.replace(/\/blob\/.*$/, ''),
          version: options.version,
          rules: rules.map(sarifRule),
        },
      },
      originalUriBaseIds: { [SRCROOT]: { uri: pathToFileURL(options.cwd + path.sep).href } },
      columnKind: 'unicodeCodePoints',
      invocations: [{ executionSuccessful: true, toolExecutionNotifications: notifications }],
      results,
    }],
  };
}

export function formatSarif(report: LintReport, options: SarifOptions): string {
  return `${terminalJson(JSON.stringify(toSarif(report, options), null, 2))}\n`;
}
