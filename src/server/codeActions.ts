// Code actions for one document: each diagnostic's fixes (exactly one preferred),
// "Ignore DDxxx on this line", and source.fixAll.deviceDoctor. A fix that would add a
// syntax error to a document it edits is not offered (core/python/fixCheck.ts).
import { CodeActionKind } from 'vscode-languageserver';
import type { CodeAction, CodeActionContext, Diagnostic, Range } from 'vscode-languageserver';
import { applyTextEdits } from '../core/python/edits';
import { canCheckSyntax, SyntaxCheck } from '../core/python/fixCheck';
import { fixAllEdits } from './fixAll';
import type { LocatedEdit, LocatedFinding, LocatedFix } from './locatedFinding';
import { noqaEdit } from './noqaEdit';
import { DIAGNOSTIC_SOURCE } from './toLspDiagnostic';
import { toWorkspaceEdit, VersionLookup } from './workspaceEdit';

export const FIX_ALL_KIND = `${CodeActionKind.SourceFixAll}.deviceDoctor`;
export const PROVIDED_CODE_ACTION_KINDS = [CodeActionKind.QuickFix, FIX_ALL_KIND];

export interface CodeActionInput {
  /** The document the request is for (a file, or one notebook cell). */
  uri: string;
  /** Findings shown in that document. */
  findings: readonly LocatedFinding[];
  context: CodeActionContext;
  /** A line of that document without its line break; undefined past the end. */
  lineText: (line: number) => string | undefined;
  /**
   * The text of a document a fix edits (another notebook cell, say), to check that the fix
   * parses. Without it only the requested document is checked, its text read through lineText.
   */
  textOf?: (uri: string) => string | undefined;
  versionOf?: VersionLookup;
}

/** True when the client asked for `kind` (LSP kinds are hierarchical: "source" covers "source.fixAll.x"). */
export function isKindRequested(kind: string, only: readonly string[] | undefined): boolean {
  return only === undefined || only.some((k) => kind === k || kind.startsWith(`${k}.`));
}

function sameRange(a: Range, b: Range): boolean {
  return a.start.line === b.start.line && a.start.character === b.start.character
    && a.end.line === b.end.line && a.end.character === b.end.character;
}

/** Diagnostics come back from the client as copies: match them by source, code and range. */
export function findingFor(diagnostic: Diagnostic, findings: readonly LocatedFinding[]): LocatedFinding | undefined {
  if (diagnostic.source !== undefined && diagnostic.source !== DIAGNOSTIC_SOURCE) return undefined;
  return findings.find((f) => f.finding.code === diagnostic.code && sameRange(f.diagnostic.range, diagnostic.range));
}

function quickFixes(diagnostic: Diagnostic, fixes: readonly LocatedFix[], versionOf?: VersionLookup): CodeAction[] {
  // Exactly one preferred, even if the analyzer marked none or several.
  const preferred = fixes.find((fix) => fix.preferred) ?? fixes[0];
  const ordered = preferred ? [preferred, ...fixes.filter((fix) => fix !== preferred)] : [];
  return ordered.map((fix) => ({
    title: fix.title,
    kind: CodeActionKind.QuickFix,
    diagnostics: [diagnostic],
    isPreferred: fix === preferred,
    edit: toWorkspaceEdit(fix.edits, versionOf),
  }));
}

function ignoreActions(matched: ReadonlyArray<[Diagnostic, LocatedFinding]>, input: CodeActionInput): CodeAction[] {
  const byLine = new Map<string, Diagnostic[]>();
  for (const [diagnostic, located] of matched) {
    const key = `${located.finding.code}@${diagnostic.range.start.line}`;
    byLine.set(key, [...(byLine.get(key) ?? []), diagnostic]);
  }
  const actions: CodeAction[] = [];
  for (const diagnostics of byLine.values()) {
    const code = String(diagnostics[0].code);
    const line = diagnostics[0].range.start.line;
    const text = input.lineText(line);
    const edit = text === undefined ? undefined : noqaEdit(text, line, code);
    if (!edit) continue;
    actions.push({
      title: `Ignore ${code} on this line`,
      kind: CodeActionKind.QuickFix,
      diagnostics,
      edit: toWorkspaceEdit([{ uri: input.uri, ...edit }], input.versionOf),
    });
  }
  return actions;
}

type SafeEdits = (edits: readonly LocatedEdit[]) => boolean;

/** The requested document's text, its lines joined by `\n` (a line break never changes how Python parses). */
function documentText(lineText: CodeActionInput['lineText']): string {
  const lines: string[] = [];
  for (let line = 0, text = lineText(0); text !== undefined; text = lineText(++line)) lines.push(text);
  return lines.join('\n');
}

/** True for edits that add no syntax error to any document they touch whose text is known. */
function syntaxGuard(input: CodeActionInput): SafeEdits {
  if (!canCheckSyntax()) return () => true;
  const check = new SyntaxCheck();
  const texts = new Map<string, string | undefined>();
  const textOf = (uri: string): string | undefined => {
    if (!texts.has(uri)) texts.set(uri, input.textOf?.(uri) ?? (uri === input.uri ? documentText(input.lineText) : undefined));
    return texts.get(uri);
  };
  return (edits) => {
    for (const uri of new Set(edits.map((edit) => edit.uri))) {
      const before = textOf(uri);
      if (before === undefined) continue;
      const after = applyTextEdits(before, edits.filter((edit) => edit.uri === uri));
      if (check.addsSyntaxError(before, after)) return false;
    }
    return true;
  };
}

function fixAllAction(input: CodeActionInput, isSafe: SafeEdits): CodeAction | undefined {
  const edits = fixAllEdits(input.findings, isSafe);
  if (edits.length === 0) return undefined;
  return {
    title: 'Fix all auto-fixable Device Doctor problems',
    kind: FIX_ALL_KIND,
    edit: toWorkspaceEdit(edits, input.versionOf),
  };
}

export function buildCodeActions(input: CodeActionInput): CodeAction[] {
  const actions: CodeAction[] = [];
  const only = input.context.only;
  const isSafe = syntaxGuard(input);
  if (isKindRequested(CodeActionKind.QuickFix, only)) {
    const matched: Array<[Diagnostic, LocatedFinding]> = [];
    for (const diagnostic of input.context.diagnostics) {
      const located = findingFor(diagnostic, input.findings);
      if (!located) continue;
      matched.push([diagnostic, located]);
      actions.push(...quickFixes(diagnostic, located.fixes.filter((fix) => isSafe(fix.edits)), input.versionOf));
    }
    actions.push(...ignoreActions(matched, input));
  }
  if (isKindRequested(FIX_ALL_KIND, only)) {
    const fixAll = fixAllAction(input, isSafe);
    if (fixAll) actions.push(fixAll);
  }
  return actions;
}
