// Notebooks: code cells are analysed in order as one program; findings, related locations
// and fix edits land in the right cell with cell-local ranges; IPython lines do not hide code.
import { strict as assert } from 'assert';
import { initPythonParser } from '../../src/core/analysis';
import type { CellFinding } from '../../src/core/analysis';
import { coreCellFindings, formatFinding } from './helpers/analysis';
import { countByCode, firstSyntaxError, mapLine } from './helpers/fixes';
import { compareWithMarkers } from './helpers/markers';
import { applyCellFix, fixAllCells, listNotebooks, loadNotebook } from './helpers/notebooks';

function describeCells(findings: readonly CellFinding[]): string {
  return findings.map((c) => `    cell ${c.cellIndex}: ${formatFinding(c.finding)}`).join('\n') || '    (none)';
}

function markerProblems(cells: readonly string[], markers: ReturnType<typeof loadNotebook>['markers'], findings: readonly CellFinding[]): string[] {
  const problems = findings.filter((c) => c.cellIndex < 0 || c.cellIndex >= cells.length).map((c) => `finding in cell ${c.cellIndex}, which does not exist`);
  cells.forEach((cell, cellIndex) => {
    const inCell = findings.filter((c) => c.cellIndex === cellIndex).map((c) => c.finding);
    const expected = markers.filter((m) => m.cellIndex === cellIndex).map((m) => m.marker);
    problems.push(...compareWithMarkers(inCell, expected, cell.split(/\r\n|\r|\n/)).map((p) => `cell ${cellIndex}, ${p}`));
  });
  return problems;
}

function countAt(findings: readonly CellFinding[], cell: number, code: string, line: number): number {
  return findings.filter((c) => c.cellIndex === cell && c.finding.code === code && c.finding.range.start.line === line).length;
}

describe('notebooks (test/fixtures/notebooks)', () => {
  before(async () => {
    await initPythonParser();
  });

  for (const name of listNotebooks()) {
    describe(name, () => {
      const nb = loadNotebook(name);

      it('is a real nbformat 4 notebook with code and markdown cells', () => {
        assert.equal(nb.json.nbformat, 4);
        assert.ok(nb.codeCells.length >= 3, 'at least three code cells');
        for (const cell of nb.json.cells) {
          assert.ok(['code', 'markdown'].includes(cell.cell_type));
          if (cell.cell_type === 'code') assert.ok('outputs' in cell && 'execution_count' in cell);
        }
      });

      it('reports exactly the marked findings, in the marked cells and cell-local lines', () => {
        const findings = coreCellFindings(nb.codeCells);
        const problems = markerProblems(nb.codeCells, nb.markers, findings);
        assert.deepEqual(problems, [], `analyzer reported:\n${describeCells(findings)}`);
      });

      it('each fix, applied in its cells, removes its finding, adds none and leaves parseable cells', () => {
        const findings = coreCellFindings(nb.codeCells);
        const problems: string[] = [];
        for (const { cellIndex, finding } of findings) {
          for (const fix of finding.fixes) {
            const where = `cell ${cellIndex} ${finding.code} line ${finding.range.start.line + 1}, fix "${fix.title}"`;
            const fixed = applyCellFix(nb.codeCells, cellIndex, fix);
            fixed.forEach((text, i) => {
              if (text !== nb.codeCells[i] && !firstSyntaxError(nb.codeCells[i]) && firstSyntaxError(text)) problems.push(`${where}: cell ${i} no longer parses`);
            });
            const after = coreCellFindings(fixed);
            const sameCellEdits = fix.edits.filter((e) => (e.cellIndex ?? cellIndex) === cellIndex);
            const line = mapLine(nb.codeCells[cellIndex], sameCellEdits, finding.range.start.line);
            if (countAt(after, cellIndex, finding.code, line) >= countAt(findings, cellIndex, finding.code, finding.range.start.line)) {
              problems.push(`${where}: still reported`);
            }
            const before = countByCode(findings.map((c) => c.finding));
            for (const [code, n] of countByCode(after.map((c) => c.finding))) if (n > (before.get(code) ?? 0)) problems.push(`${where}: introduces ${code}`);
          }
        }
        assert.ok(findings.length > 0 || nb.markers.length === 0);
        assert.deepEqual(problems, []);
      });

      it('notebook fix-all leaves no finding, and a second run changes nothing', () => {
        const first = fixAllCells(nb.codeCells, (cells) => coreCellFindings(cells));
        assert.deepEqual(first.remaining.map((c) => `cell ${c.cellIndex}: ${formatFinding(c.finding)}`), []);
        const second = fixAllCells(first.cells, (cells) => coreCellFindings(cells));
        assert.equal(second.rounds, 0);
      });
    });
  }
  it('DD024 points at the MPS choice in the cell that makes it, not in the cell of the finding', () => {
    const cells = [
      'import torch\nmps_device = torch.device("mps" if torch.backends.mps.is_available() else "cpu")',
      'x = torch.ones(2, device=mps_device)',
      'device = torch.device("cuda" if torch.cuda.is_available() else "cpu")\nprint(torch.zeros(2, device=device))',
    ];
    const [f] = coreCellFindings(cells).filter((c) => c.finding.code === 'DD024');
    assert.ok(f, describeCells(coreCellFindings(cells)));
    assert.equal(f.cellIndex, 2);
    assert.deepEqual(f.finding.related.map((r) => [r.cellIndex, r.range.start.line]), [[0, 1]]);
  });
});
