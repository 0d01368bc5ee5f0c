// The planned diagnostics of a virtual-GPU run as editor diagnostics, on the file or, in a
// notebook, on the code cell's own document.
import * as fs from 'fs';
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

/** A line's text: from the open document, else from the file on disk (read once per run). */
function lineText(uri: vscode.Uri, line: number, files: Map<string, string[] | undefined>): string | undefined {
  const document = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  if (document) return line < document.lineCount ? document.lineAt(line).text : undefined;
  if (uri.scheme !== 'file') return undefined;
  if (!files.has(uri.fsPath)) {
    try {
      files.set(uri.fsPath, fs.readFileSync(uri.fsPath, 'utf8').split(/\r?\n/));
    } catch {
      files.set(uri.fsPath, undefined);
    }
  }
  return files.get(uri.fsPath)?.[line];
}

/** The line from its first non-blank character to its end; the whole line when its text is unknown. */
function rangeOf(uri: vscode.Uri, line: number, files: Map<string, string[] | undefined>): vscode.Range {
  const text = lineText(uri, line, files);
  if (text === undefined) return new vscode.Range(line, 0, line, Number.MAX_SAFE_INTEGER);
  return new vscode.Range(line, text.length - text.trimStart().length, line, text.trimEnd().length);
}

/** The diagnostics by document, ready for a DiagnosticCollection. */
export function toDiagnostics(planned: readonly PlannedDiagnostic[]): Map<string, { uri: vscode.Uri; diagnostics: vscode.Diagnostic[] }> {
  const byUri = new Map<string, { uri: vscode.Uri; diagnostics: vscode.Diagnostic[] }>();
  const files = new Map<string, string[] | undefined>();
  for (const plan of planned) {
    const uri = uriOf(plan);
    const diagnostic = new vscode.Diagnostic(rangeOf(uri, plan.line, files), plan.message, SEVERITIES[plan.severity]);
    diagnostic.source = RUN_SOURCE;
    diagnostic.code = { value: plan.code, target: vscode.Uri.parse(ruleDocsUrl(plan.code)) };
    diagnostic.relatedInformation = plan.related.map((r) => {
      const relatedUri = uriOf(r);
      return new vscode.DiagnosticRelatedInformation(new vscode.Location(relatedUri, rangeOf(relatedUri, r.line, files)), r.message);
    });
    const key = uri.toString();
    const entry = byUri.get(key) ?? { uri, diagnostics: [] };
    entry.diagnostics.push(diagnostic);
    byUri.set(key, entry);
  }
  return byUri;
}
