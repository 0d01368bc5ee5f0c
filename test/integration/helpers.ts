// Shared steps of the integration suite: fresh copies of fixtures, polling for diagnostics
// (the language server answers asynchronously, after a debounce), code actions, and
// assertions that say what was there when they fail.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { ExpectedFinding, ExpectedLocation, lineIndex } from './fixtureFindings';

export const EXTENSION_ID = 'device-doctor.device-doctor';
export const DIAGNOSTIC_SOURCE = 'Device Doctor';
/** Generous: the first wait also covers starting the language server and loading the parser. */
const FIRST_WAIT_MS = 30_000;
/** Later waits need only the debounce and an analysis of a small file. */
const LATER_WAIT_MS = 10_000;
let firstWait = true;

/** 30s for the run's first wait (the server is starting), 10s for every later one. */
function defaultTimeout(): number {
  const timeout = firstWait ? FIRST_WAIT_MS : LATER_WAIT_MS;
  firstWait = false;
  return timeout;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function workspaceRoot(): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) throw new Error('the integration suite needs the fixture workspace open');
  return folder.uri.fsPath;
}

let copyCount = 0;

/** A fresh copy of a fixture, so a test that edits its file cannot disturb another test. */
export function copyFixture(name: string): vscode.Uri {
  const root = workspaceRoot();
  const scratch = path.join(root, 'scratch');
  fs.mkdirSync(scratch, { recursive: true });
  const ext = path.extname(name);
  copyCount += 1;
  const target = path.join(scratch, `${path.basename(name, ext)}_${copyCount}${ext}`);
  fs.copyFileSync(path.join(root, name), target);
  return vscode.Uri.file(target);
}

export async function openCopy(name: string): Promise<vscode.TextEditor> {
  const document = await vscode.workspace.openTextDocument(copyFixture(name));
  return vscode.window.showTextDocument(document);
}

/** Only our diagnostics: other extensions may lint Python too. */
export function ourDiagnostics(uri: vscode.Uri): vscode.Diagnostic[] {
  return vscode.languages.getDiagnostics(uri).filter((d) => d.source === DIAGNOSTIC_SOURCE);
}

export function codeOf(diagnostic: vscode.Diagnostic): string {
  const code = diagnostic.code;
  return typeof code === 'object' && code !== null ? String(code.value) : String(code);
}

function describe(diagnostics: readonly vscode.Diagnostic[]): string {
  if (diagnostics.length === 0) return '(none)';
  return diagnostics
    .map((d) => `${codeOf(d)} ${d.range.start.line + 1}:${d.range.start.character + 1}-${d.range.end.line + 1}:${d.range.end.character + 1} ${d.message}`)
    .join('\n  ');
}

/** Polls until `accept` holds for our diagnostics on `uri`; the timeout names what was there. */
export async function waitForDiagnostics(
  uri: vscode.Uri,
  what: string,
  accept: (diagnostics: vscode.Diagnostic[]) => boolean,
  timeoutMs = defaultTimeout(),
): Promise<vscode.Diagnostic[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const diagnostics = ourDiagnostics(uri);
    if (accept(diagnostics)) return diagnostics;
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what} in ${path.basename(uri.fsPath)}; diagnostics now:\n  ${describe(diagnostics)}`);
    }
    await sleep(100);
  }
}

export function waitForCodes(uri: vscode.Uri, codes: readonly string[]): Promise<vscode.Diagnostic[]> {
  return waitForDiagnostics(uri, `diagnostics ${codes.join(', ')}`, (ds) => codes.every((c) => ds.some((d) => codeOf(d) === c)));
}

export function waitForCodeGone(uri: vscode.Uri, code: string): Promise<vscode.Diagnostic[]> {
  return waitForDiagnostics(uri, `${code} to disappear`, (ds) => !ds.some((d) => codeOf(d) === code));
}

function overlaps(range: vscode.Range, line: number, start: number, end: number): boolean {
  if (range.start.line > line || range.end.line < line) return false;
  const from = range.start.line === line ? range.start.character : 0;
  const to = range.end.line === line ? range.end.character : Number.MAX_SAFE_INTEGER;
  return from < end && to > start;
}

/** True when the diagnostic starts on the expected line and its range overlaps `covers`. */
export function isAt(document: vscode.TextDocument, diagnostic: vscode.Diagnostic, at: ExpectedLocation): boolean {
  const line = lineIndex(document.getText(), at.line);
  const text = document.lineAt(line).text;
  const start = text.indexOf(at.covers);
  if (start < 0) throw new Error(`fixture problem: "${at.covers}" is not in "${at.line}"`);
  return diagnostic.range.start.line === line && overlaps(diagnostic.range, line, start, start + at.covers.length);
}

const SEVERITY: Record<ExpectedFinding['severity'], vscode.DiagnosticSeverity> = {
  error: vscode.DiagnosticSeverity.Error,
  warning: vscode.DiagnosticSeverity.Warning,
};

/** The diagnostic for `expected`, asserting place, severity and the rule's docs link. */
export function findExpected(
  document: vscode.TextDocument,
  diagnostics: readonly vscode.Diagnostic[],
  expected: Pick<ExpectedFinding, 'code' | 'severity' | 'at'>,
): vscode.Diagnostic {
  const candidates = diagnostics.filter((d) => codeOf(d) === expected.code);
  const found = candidates.find((d) => expected.at.some((at) => isAt(document, d, at)));
  assert.ok(found, `${expected.code} should be at ${expected.at.map((a) => `"${a.covers}" in "${a.line}"`).join(' or ')}; got:\n  ${describe(diagnostics)}`);
  assert.strictEqual(found.severity, SEVERITY[expected.severity], `${expected.code} severity`);
  const code = found.code;
  assert.ok(typeof code === 'object' && code !== null && code.target.toString().includes(expected.code),
    `${expected.code} should link to its documentation, got ${JSON.stringify(code)}`);
  assert.ok(found.message.trim().length > 10, `${expected.code} needs a message that explains, got "${found.message}"`);
  return found;
}

export async function codeActionsAt(uri: vscode.Uri, range: vscode.Range, kind?: string): Promise<vscode.CodeAction[]> {
  const result = await vscode.commands.executeCommand<Array<vscode.CodeAction | vscode.Command>>(
    'vscode.executeCodeActionProvider', uri, range, kind,
  );
  return (result ?? []).filter((a): a is vscode.CodeAction => 'title' in a && !('command' in a && typeof a.command === 'string'));
}

function describeActions(actions: readonly vscode.CodeAction[]): string {
  if (actions.length === 0) return '(none)';
  return actions.map((a) => `"${a.title}" kind=${a.kind?.value} preferred=${a.isPreferred} diagnostics=[${(a.diagnostics ?? []).map(codeOf).join(',')}]`).join('; ');
}

/** Quick fixes offered at our `diagnostic`'s range. The API command does not return each
 * action's `diagnostics`, so where it omits them every quick fix at the range counts (the
 * fixtures have one diagnostic per line). Throws, listing what was offered, when none. */
export async function actionsFor(uri: vscode.Uri, diagnostic: vscode.Diagnostic): Promise<vscode.CodeAction[]> {
  const actions = await codeActionsAt(uri, diagnostic.range);
  const isOurs = (a: vscode.CodeAction) => a.diagnostics === undefined || a.diagnostics.length === 0
    || a.diagnostics.some((d) => codeOf(d) === codeOf(diagnostic) && d.range.isEqual(diagnostic.range));
  const matching = actions.filter((a) => a.kind !== undefined && vscode.CodeActionKind.QuickFix.contains(a.kind) && isOurs(a));
  if (matching.length === 0) {
    throw new Error(`no quick fix for ${codeOf(diagnostic)} at ${diagnostic.range.start.line + 1}:${diagnostic.range.start.character + 1}; offered: ${describeActions(actions)}`);
  }
  return matching;
}

export async function applyAction(action: vscode.CodeAction): Promise<void> {
  assert.ok(action.edit, `code action "${action.title}" carries no edit`);
  const applied = await vscode.workspace.applyEdit(action.edit);
  assert.ok(applied, `workspace.applyEdit refused "${action.title}"`);
}

export function trimmedLines(document: vscode.TextDocument): string[] {
  return document.getText().split(/\r?\n/).map((l) => l.trim());
}

/** Closes editors between tests so each starts from the same workbench. Saves first:
 * closing a dirty editor would open a modal "Save changes?" dialog and hang the suite. */
export async function closeAllEditors(): Promise<void> {
  await vscode.workspace.saveAll(false);
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
}
