import * as assert from 'assert';
import { DiagnosticSeverity, DiagnosticTag } from 'vscode-languageserver';
import { ruleDocsUrl } from '../../src/core/analysis';
import type { CellFinding } from '../../src/core/analysis';
import { groupByUri, locateCellFindings, locateFileFindings } from '../../src/server/locatedFinding';
import { effectiveSeverity, toLspDiagnostic } from '../../src/server/toLspDiagnostic';
import { discardedTo, mismatchAcrossCells, numpyOnGpu } from './serverFindings';

const FILE = 'file:///work/train.py';
const CELLS = ['vscode-notebook-cell:/work/nb.ipynb#W0sZmlsZQ', 'vscode-notebook-cell:/work/nb.ipynb#W1sZmlsZQ'];
const noOverrides = { severity: {} };

describe('server: findings to LSP diagnostics', () => {
  it('carries code, documentation link, source, message, range and severity', () => {
    const finding = numpyOnGpu();
    const diagnostic = toLspDiagnostic(finding, noOverrides, () => FILE);
    assert.ok(diagnostic);
    assert.strictEqual(diagnostic.code, 'DD003');
    assert.deepStrictEqual(diagnostic.codeDescription, { href: ruleDocsUrl('DD003') });
    assert.strictEqual(diagnostic.source, 'Device Doctor');
    assert.strictEqual(diagnostic.message, finding.message);
    assert.deepStrictEqual(diagnostic.range, finding.range);
    assert.strictEqual(diagnostic.severity, DiagnosticSeverity.Error);
  });

  it('points relatedInformation at the same file for plain files', () => {
    const diagnostic = toLspDiagnostic(numpyOnGpu(), noOverrides, () => FILE);
    assert.deepStrictEqual(diagnostic?.relatedInformation, [
      { location: { uri: FILE, range: numpyOnGpu().related[0].range }, message: "'t_gpu' moved to \"cuda\" here" },
    ]);
  });

  it('maps each severity and lets the user override one rule', () => {
    const finding = discardedTo();
    assert.strictEqual(toLspDiagnostic(finding, noOverrides, () => FILE)?.severity, DiagnosticSeverity.Warning);
    const asHint = toLspDiagnostic(finding, { severity: { DD004: 'hint' } }, () => FILE);
    assert.strictEqual(asHint?.severity, DiagnosticSeverity.Hint);
    const asInfo = toLspDiagnostic(finding, { severity: { DD004: 'information' } }, () => FILE);
    assert.strictEqual(asInfo?.severity, DiagnosticSeverity.Information);
    const otherRule = toLspDiagnostic(finding, { severity: { DD003: 'hint' } }, () => FILE);
    assert.strictEqual(otherRule?.severity, DiagnosticSeverity.Warning);
  });

  it('drops a rule the user turned off', () => {
    assert.strictEqual(toLspDiagnostic(numpyOnGpu(), { severity: { DD003: 'off' } }, () => FILE), undefined);
    assert.strictEqual(effectiveSeverity(numpyOnGpu(), { severity: { DD003: 'off' } }), undefined);
    assert.strictEqual(effectiveSeverity(numpyOnGpu(), { severity: { DD003: 'warning' } }), 'warning');
  });

  it('turns the unnecessary tag into DiagnosticTag.Unnecessary and omits empty tags', () => {
    assert.deepStrictEqual(toLspDiagnostic(discardedTo(), noOverrides, () => FILE)?.tags, [DiagnosticTag.Unnecessary]);
    assert.strictEqual(toLspDiagnostic(numpyOnGpu(), noOverrides, () => FILE)?.tags, undefined);
    const noRelated = toLspDiagnostic(discardedTo(), noOverrides, () => FILE);
    assert.strictEqual(noRelated?.relatedInformation, undefined);
  });
});

describe('server: locating findings in files and notebook cells', () => {
  it('gives every fix edit of a file finding the file URI', () => {
    const [located] = locateFileFindings(FILE, [numpyOnGpu()], noOverrides);
    assert.strictEqual(located.uri, FILE);
    assert.deepStrictEqual(located.fixes, [
      { title: 'Insert .cpu() before .numpy()', preferred: true, edits: [{ uri: FILE, range: numpyOnGpu().fixes[0].edits[0].range, newText: '.cpu()' }] },
    ]);
  });

  it('leaves out findings of rules turned off', () => {
    const located = locateFileFindings(FILE, [numpyOnGpu(), discardedTo()], { severity: { DD003: 'off' } });
    assert.deepStrictEqual(located.map((f) => f.finding.code), ['DD004']);
  });

  it('puts a notebook finding in its cell and its cross-cell fix and related location in the other cell', () => {
    const results: CellFinding[] = [{ cellIndex: 1, finding: mismatchAcrossCells() }];
    const [located] = locateCellFindings(CELLS, results, noOverrides);
    assert.strictEqual(located.uri, CELLS[1]);
    assert.strictEqual(located.fixes[0].edits[0].uri, CELLS[0], 'device= goes into the factory call in cell 0');
    assert.strictEqual(located.fixes[1].edits[0].uri, CELLS[1], 'an edit without cellIndex stays in the finding\'s cell');
    assert.strictEqual(located.diagnostic.relatedInformation?.[0].location.uri, CELLS[1]);
  });

  it('resolves related locations that name another cell', () => {
    const finding = mismatchAcrossCells();
    finding.related[0].cellIndex = 0;
    const [located] = locateCellFindings(CELLS, [{ cellIndex: 1, finding }], noOverrides);
    assert.strictEqual(located.diagnostic.relatedInformation?.[0].location.uri, CELLS[0]);
  });

  it('drops a fix that edits a cell it does not know, keeping the diagnostic', () => {
    const finding = mismatchAcrossCells();
    finding.fixes[0].edits[0].cellIndex = 7;
    const [located] = locateCellFindings(CELLS, [{ cellIndex: 1, finding }], noOverrides);
    assert.deepStrictEqual(located.fixes.map((f) => f.title), ['Move x: x.to(device)']);
    assert.deepStrictEqual(locateCellFindings(CELLS, [{ cellIndex: 9, finding }], noOverrides), []);
  });

  it('groups by document, keeping documents without findings', () => {
    const located = locateCellFindings(CELLS, [{ cellIndex: 1, finding: mismatchAcrossCells() }], noOverrides);
    const groups = groupByUri(CELLS, located);
    assert.deepStrictEqual([...groups.keys()], CELLS);
    assert.strictEqual(groups.get(CELLS[0])?.length, 0);
    assert.strictEqual(groups.get(CELLS[1])?.length, 1);
  });
});
