import * as assert from 'assert';
import { CodeActionKind } from 'vscode-languageserver';
import type { CodeAction, CodeActionContext, Diagnostic, TextEdit, WorkspaceEdit } from 'vscode-languageserver';
import { applyTextEdits } from '../../src/core/python/edits';
import { buildCodeActions, CodeActionInput, FIX_ALL_KIND, isKindRequested, PROVIDED_CODE_ACTION_KINDS } from '../../src/server/codeActions';
import { LocatedFinding, locateCellFindings, locateFileFindings } from '../../src/server/locatedFinding';
import { discardedTo, mismatchAcrossCells, numpyOnGpu, predNumpyPair } from './serverFindings';

const FILE = 'file:///work/train.py';
const SOURCE = [
  't_gpu = torch.tensor([1.0, 2.0]).to("cuda")',
  't_gpu.numpy()',
  'model = Net().to(device)',
  'x.to(device)',
  'X = torch.randn(8, 10)',
  'pred.numpy()',
].join('\n') + '\n';

function input(findings: LocatedFinding[], context: CodeActionContext, text = SOURCE, uri = FILE): CodeActionInput {
  const lines = text.split('\n');
  return { uri, findings, context, lineText: (line) => lines[line] };
}

/** A copy, as the client sends diagnostics back (not the objects the server made). */
function fromClient(findings: LocatedFinding[]): Diagnostic[] {
  return findings.map((f) => JSON.parse(JSON.stringify(f.diagnostic)) as Diagnostic);
}

function editsFor(edit: WorkspaceEdit | undefined, uri: string): TextEdit[] {
  if (edit?.changes) return edit.changes[uri] ?? [];
  const documentEdit = edit?.documentChanges?.find((c) => 'textDocument' in c && c.textDocument.uri === uri);
  return documentEdit && 'edits' in documentEdit ? (documentEdit.edits as TextEdit[]) : [];
}

function applyAction(action: CodeAction, text = SOURCE, uri = FILE): string {
  return applyTextEdits(text, editsFor(action.edit, uri));
}

describe('code actions: quick fixes', () => {
  const located = locateFileFindings(FILE, [numpyOnGpu(), discardedTo(), ...predNumpyPair()], { severity: {} });

  it('offers each diagnostic\'s fix with exactly one preferred, linked to its diagnostic', () => {
    const [dd003] = fromClient(located);
    const actions = buildCodeActions(input(located, { diagnostics: [dd003] }));
    const quickFixes = actions.filter((a) => a.kind === CodeActionKind.QuickFix && !a.title.startsWith('Ignore'));
    assert.deepStrictEqual(quickFixes.map((a) => a.title), ['Insert .cpu() before .numpy()']);
    assert.strictEqual(quickFixes[0].isPreferred, true);
    assert.deepStrictEqual(quickFixes[0].diagnostics, [dd003]);
    assert.strictEqual(applyAction(quickFixes[0]).split('\n')[1], 't_gpu.cpu().numpy()');
  });

  it('marks only one fix preferred even when the analyzer marked several or none', () => {
    const finding = mismatchAcrossCells();
    finding.fixes.forEach((fix) => (fix.preferred = true));
    // A text both fixes apply to: a fix that would leave a syntax error is never offered.
    const text = 'x = torch.randn(4, 10)\nmodel(x)\n';
    const many = locateFileFindings(FILE, [finding], { severity: {} });
    const preferredOfMany = buildCodeActions(input(many, { diagnostics: fromClient(many) }, text)).filter((a) => a.isPreferred);
    assert.strictEqual(preferredOfMany.length, 1);
    finding.fixes.forEach((fix) => (fix.preferred = false));
    const none = locateFileFindings(FILE, [finding], { severity: {} });
    const actions = buildCodeActions(input(none, { diagnostics: fromClient(none) }, text));
    assert.strictEqual(actions.filter((a) => a.isPreferred).length, 1);
    assert.strictEqual(actions[0].isPreferred, true, 'the preferred fix comes first');
  });

  it('ignores diagnostics of other linters and stale ranges', () => {
    const [dd003] = fromClient(located);
    const ruff: Diagnostic = { ...dd003, source: 'Ruff', code: 'DD003' };
    const moved: Diagnostic = { ...dd003, range: { start: { line: 9, character: 0 }, end: { line: 9, character: 3 } } };
    assert.deepStrictEqual(buildCodeActions(input(located, { diagnostics: [ruff, moved], only: [CodeActionKind.QuickFix] })), []);
  });

  it('offers "Ignore DDxxx on this line" that adds a noqa comment', () => {
    const [, dd004] = fromClient(located);
    const actions = buildCodeActions(input(located, { diagnostics: [dd004] }));
    const ignore = actions.find((a) => a.title === 'Ignore DD004 on this line');
    assert.ok(ignore);
    assert.strictEqual(ignore.isPreferred, undefined);
    assert.deepStrictEqual(ignore.diagnostics, [dd004]);
    assert.strictEqual(applyAction(ignore).split('\n')[3], 'x.to(device)  # noqa: DD004');
    assert.strictEqual(actions[actions.length - 2], ignore, 'ignore actions follow the fixes; fix-all comes last');
  });

  it('offers one ignore action per code and line, and none once the line already says noqa', () => {
    const [, , dd010, dd003] = fromClient(located);
    const actions = buildCodeActions(input(located, { diagnostics: [dd010, dd003], only: [CodeActionKind.QuickFix] }));
    assert.deepStrictEqual(actions.filter((a) => a.title.startsWith('Ignore')).map((a) => a.title), ['Ignore DD010 on this line', 'Ignore DD003 on this line']);
    const suppressed = SOURCE.replace('pred.numpy()', 'pred.numpy()  # noqa: DD010');
    const again = buildCodeActions(input(located, { diagnostics: [dd010], only: [CodeActionKind.QuickFix] }, suppressed));
    assert.deepStrictEqual(again.map((a) => a.title), ['Insert .detach().cpu() before .numpy()']);
  });

  it('returns only what the client asked for', () => {
    const diagnostics = fromClient(located);
    const onlyFixAll = buildCodeActions(input(located, { diagnostics, only: [FIX_ALL_KIND] }));
    assert.deepStrictEqual(onlyFixAll.map((a) => a.kind), [FIX_ALL_KIND]);
    const onlyRefactor = buildCodeActions(input(located, { diagnostics, only: [CodeActionKind.Refactor] }));
    assert.deepStrictEqual(onlyRefactor, []);
  });
});

describe('code actions: source.fixAll.deviceDoctor', () => {
  it('declares its kinds', () => {
    assert.deepStrictEqual(PROVIDED_CODE_ACTION_KINDS, ['quickfix', 'source.fixAll.deviceDoctor']);
    assert.ok(isKindRequested(FIX_ALL_KIND, ['source']));
    assert.ok(isKindRequested(FIX_ALL_KIND, ['source.fixAll']));
    assert.ok(isKindRequested(FIX_ALL_KIND, undefined));
    assert.ok(!isKindRequested(FIX_ALL_KIND, ['source.fixAll.eslint']));
    assert.ok(!isKindRequested(FIX_ALL_KIND, ['source.fix']));
  });

  it('applies every preferred fix at once on save, without diagnostics in the context', () => {
    const located = locateFileFindings(FILE, [numpyOnGpu(), discardedTo(), ...predNumpyPair()], { severity: {} });
    const actions = buildCodeActions(input(located, { diagnostics: [], only: [CodeActionKind.SourceFixAll] }));
    assert.strictEqual(actions.length, 1);
    assert.strictEqual(actions[0].kind, 'source.fixAll.deviceDoctor');
    const fixed = applyAction(actions[0]).split('\n');
    assert.strictEqual(fixed[1], 't_gpu.cpu().numpy()');
    assert.strictEqual(fixed[3], 'x = x.to(device)');
    assert.strictEqual(fixed[5], 'pred.detach().cpu().numpy()', 'DD003 and DD010 share one fix, applied once');
  });

  it('is offered only when something can be fixed', () => {
    assert.deepStrictEqual(buildCodeActions(input([], { diagnostics: [], only: [CodeActionKind.Source] })), []);
  });

  it('names document versions when the client supports versioned edits', () => {
    const located = locateFileFindings(FILE, [numpyOnGpu()], { severity: {} });
    const versioned = buildCodeActions({ ...input(located, { diagnostics: [], only: [FIX_ALL_KIND] }), versionOf: () => 7 });
    assert.deepStrictEqual(versioned[0].edit?.documentChanges?.[0], {
      textDocument: { uri: FILE, version: 7 },
      edits: [{ range: numpyOnGpu().fixes[0].edits[0].range, newText: '.cpu()' }],
    });
  });
});

describe('code actions: notebooks', () => {
  const cells = ['vscode-notebook-cell:/w/nb.ipynb#a', 'vscode-notebook-cell:/w/nb.ipynb#b'];
  const cellText = ['x = torch.randn(4, 10)\n', 'model = Net().to(device)\nmodel(x)\n'];
  const located = locateCellFindings(cells, [{ cellIndex: 1, finding: mismatchAcrossCells() }], { severity: {} });

  it('targets the cell the fix edits, which may be another cell', () => {
    const actions = buildCodeActions(input(located, { diagnostics: fromClient(located) }, cellText[1], cells[1]));
    const preferred = actions.find((a) => a.isPreferred);
    assert.ok(preferred);
    assert.deepStrictEqual(Object.keys(preferred.edit?.changes ?? {}), [cells[0]]);
    assert.strictEqual(applyAction(preferred, cellText[0], cells[0]), 'x = torch.randn(4, 10, device=device)\n');
    const alternative = actions.find((a) => a.title === 'Move x: x.to(device)');
    assert.strictEqual(alternative && applyAction(alternative, cellText[1], cells[1]), 'model = Net().to(device)\nmodel(x.to(device))\n');
  });

  it('puts the ignore comment in the diagnostic\'s own cell', () => {
    const actions = buildCodeActions(input(located, { diagnostics: fromClient(located) }, cellText[1], cells[1]));
    const ignore = actions.find((a) => a.title === 'Ignore DD001 on this line');
    assert.ok(ignore);
    assert.strictEqual(applyAction(ignore, cellText[1], cells[1]), 'model = Net().to(device)\nmodel(x)  # noqa: DD001\n');
  });
});
