// Findings tied to the documents they live in: every edit and related location gets a
// URI, so that notebook fixes land in the right cell. Stored per document for code actions.
import type { Diagnostic, Range } from 'vscode-languageserver';
import { withCellWording, type CellFinding, type Finding, type Fix } from '../core/analysis';
import type { ServerSettings } from './settings';
import { toLspDiagnostic, UriLocator } from './toLspDiagnostic';

export interface LocatedEdit {
  uri: string;
  range: Range;
  newText: string;
}

export interface LocatedFix {
  title: string;
  preferred: boolean;
  edits: LocatedEdit[];
}

export interface LocatedFinding {
  /** The document (file or notebook cell) the diagnostic is shown in. */
  uri: string;
  finding: Finding;
  diagnostic: Diagnostic;
  fixes: LocatedFix[];
}

/** A fix with an edit in an unknown cell is dropped whole: half a fix is worse than none. */
function locateFix(fix: Fix, locate: UriLocator): LocatedFix | undefined {
  const edits: LocatedEdit[] = [];
  for (const edit of fix.edits) {
    const uri = locate(edit.cellIndex);
    if (uri === undefined) return undefined;
    edits.push({ uri, range: edit.range, newText: edit.newText });
  }
  return edits.length > 0 ? { title: fix.title, preferred: fix.preferred, edits } : undefined;
}

function locateFinding(
  finding: Finding,
  uri: string,
  settings: Pick<ServerSettings, 'severity'>,
  locate: UriLocator,
): LocatedFinding | undefined {
  const diagnostic = toLspDiagnostic(finding, settings, locate);
  if (!diagnostic) return undefined;
  const fixes = finding.fixes
    .map((fix) => locateFix(fix, locate))
    .filter((fix): fix is LocatedFix => fix !== undefined);
  return { uri, finding, diagnostic, fixes };
}

/** Findings of a plain file: everything is in that one document. */
export function locateFileFindings(
  uri: string,
  findings: readonly Finding[],
  settings: Pick<ServerSettings, 'severity'>,
): LocatedFinding[] {
  const locate: UriLocator = () => uri;
  return findings
    .map((finding) => locateFinding(finding, uri, settings, locate))
    .filter((f): f is LocatedFinding => f !== undefined);
}

/** `cellUris[i]` is the URI of the i-th cell passed to analyzeNotebook. */
export function locateCellFindings(
  cellUris: readonly string[],
  cellFindings: readonly CellFinding[],
  settings: Pick<ServerSettings, 'severity'>,
  /** Each code cell's position in the notebook (1-based), to say "cell 17, line 13" for places in other cells. */
  cellNumbers?: readonly number[],
): LocatedFinding[] {
  const result: LocatedFinding[] = [];
  for (const found of cellFindings) {
    const ownUri = cellUris[found.cellIndex];
    if (ownUri === undefined) continue;
    const locate: UriLocator = (index) => (index === undefined ? ownUri : cellUris[index]);
    const finding = cellNumbers ? withCellWording(found, cellNumbers) : found.finding;
    const located = locateFinding(finding, ownUri, settings, locate);
    if (located) result.push(located);
  }
  return result;
}

/** Groups findings by the document they are shown in, keeping every given URI (even empty). */
export function groupByUri(uris: readonly string[], findings: readonly LocatedFinding[]): Map<string, LocatedFinding[]> {
  const groups = new Map<string, LocatedFinding[]>(uris.map((uri) => [uri, []]));
  for (const finding of findings) groups.get(finding.uri)?.push(finding);
  return groups;
}
