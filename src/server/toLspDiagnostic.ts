// The one place where analyzer findings become LSP diagnostics.
import { pathToFileURL } from 'url';
import { DiagnosticSeverity, DiagnosticTag } from 'vscode-languageserver';
import type { Diagnostic, DiagnosticRelatedInformation } from 'vscode-languageserver';
import { ruleDocsUrl } from '../core/analysis';
import type { Finding, RelatedLocation, Severity } from '../core/analysis';
import type { ServerSettings } from './settings';

export const DIAGNOSTIC_SOURCE = 'Device Doctor';

const LSP_SEVERITY: Record<Severity, DiagnosticSeverity> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  information: DiagnosticSeverity.Information,
  hint: DiagnosticSeverity.Hint,
};

const LSP_TAG = {
  unnecessary: DiagnosticTag.Unnecessary,
  deprecated: DiagnosticTag.Deprecated,
} as const;

/** Maps a notebook cell index (undefined: the finding's own document) to a URI. */
export type UriLocator = (cellIndex: number | undefined) => string | undefined;

/** The finding's severity after the user's override; undefined when the rule is turned off. */
export function effectiveSeverity(finding: Finding, settings: Pick<ServerSettings, 'severity'>): Severity | undefined {
  const override = settings.severity[finding.code];
  if (override === 'off') return undefined;
  return override ?? finding.severity;
}

function toRelatedInformation(related: readonly RelatedLocation[], locate: UriLocator): DiagnosticRelatedInformation[] {
  const result: DiagnosticRelatedInformation[] = [];
  for (const item of related) {
    const uri = item.path !== undefined ? pathToFileURL(item.path).href : locate(item.cellIndex);
    if (uri === undefined) continue;
    result.push({ location: { uri, range: item.range }, message: item.message });
  }
  return result;
}

/** Returns undefined when the user turned the rule off. */
export function toLspDiagnostic(
  finding: Finding,
  settings: Pick<ServerSettings, 'severity'>,
  locate: UriLocator,
): Diagnostic | undefined {
  const severity = effectiveSeverity(finding, settings);
  if (severity === undefined) return undefined;
  const diagnostic: Diagnostic = {
    range: finding.range,
    severity: LSP_SEVERITY[severity],
    code: finding.code,
    codeDescription: { href: ruleDocsUrl(finding.code) },
    source: DIAGNOSTIC_SOURCE,
    message: finding.message,
  };
  const related = toRelatedInformation(finding.related, locate);
  if (related.length > 0) diagnostic.relatedInformation = related;
  const tags = (finding.tags ?? []).map((tag) => LSP_TAG[tag]).filter((tag) => tag !== undefined);
  if (tags.length > 0) diagnostic.tags = tags;
  return diagnostic;
}
