// The planned diagnostics of a virtual-GPU run as editor diagnostics, on the file or, in a
// notebook, on the code cell's own document.
import * as vscode from 'vscode';
import type { Severity } from '../../core/analysis/types';
import { ruleDocsUrl } from '../../core/analysis/catalog';
import { RUN_SOURCE, type PlannedDiagnostic, type PlannedLocation } from '../../core/virtualRun/diagnostics';

const SEVERITIES: Record<Severity, vscode.DiagnosticSeverity> = {
  error: vscode.DiagnosticSeverity.Error,
  warning: vscode.DiagnosticSeverity.Warning,
  information: vscode.DiagnosticSeverity.Information,
  hint: vscode.DiagnosticSeverity.Hint,
};

/** The document a location is in: the file, or the notebook cell's document when the notebook is open. */
function uriOf(location: PlannedLocation): vscode.Uri {
  const file = vscode.Uri.file(location.file);
  if (location.cell === undefined) return file;
  const notebook = vscode.workspace.notebookDocuments.find((n) => n.uri.fsPath === file.fsPath);
  const cell = notebook?.getCells().filter((c) => c.kind === vscode.NotebookCellKind.Code)[location.cell];
  return cell?.document.uri ?? file;
}

/** The line from its first non-blank character, when the document is open; else the whole line. */
function rangeOf(uri: vscode.Uri, line: number): vscode.Range {
  const document = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  if (!document || line >= document.lineCount) return new vscode.Range(line, 0, line, Number.MAX_SAFE_INTEGER);
  const text = document.lineAt(line);
  return new vscode.Range(line, text.firstNonWhitespaceCharacterIndex, line, text.range.end.character);
}

/** The diagnostics by document, ready for a DiagnosticCollection. */
export function toDiagnostics(planned: readonly PlannedDiagnostic[]): Map<string, { uri: vscode.Uri; diagnostics: vscode.Diagnostic[] }> {
  const byUri = new Map<string, { uri: vscode.Uri; diagnostics: vscode.Diagnostic[] }>();
  for (const plan of planned) {
    const uri = uriOf(plan);
    const diagnostic = new vscode.Diagnostic(rangeOf(uri, plan.line), plan.message, SEVERITIES[plan.severity]);
    diagnostic.source = RUN_SOURCE;
    diagnostic.code = { value: plan.code, target: vscode.Uri.parse(ruleDocsUrl(plan.code)) };
    diagnostic.relatedInformation = plan.related.map((r) => {
      const relatedUri = uriOf(r);
      return new vscode.DiagnosticRelatedInformation(new vscode.Location(relatedUri, rangeOf(relatedUri, r.line)), r.message);
    });
    const key = uri.toString();
    const entry = byUri.get(key) ?? { uri, diagnostics: [] };
    entry.diagnostics.push(diagnostic);
    byUri.set(key, entry);
  }
  return byUri;
}
