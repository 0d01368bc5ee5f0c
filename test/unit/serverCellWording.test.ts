// Notebook diagnostics in the editor name the cell of a place in another cell: the DD001 in
// cell 5 said "moved to device on line 10", a line of cell 3 (issue 28 item 3).
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { analyzeNotebook, initPythonParser } from '../../src/core/analysis';
import { locateCellFindings } from '../../src/server/locatedFinding';

const NOTEBOOK = path.join(__dirname, '..', 'fixtures', 'notebooks', 'device_across_cells.ipynb');

interface Cell { cell_type: string; source: string | string[] }

describe('server: notebook diagnostics say "cell N, line M" for a place in another cell (issue 28 item 3)', () => {
  before(async () => {
    await initPythonParser();
  });

  it('the message and the related location of cell 5\'s DD001 name cell 3, where the model was moved', () => {
    const cells = (JSON.parse(fs.readFileSync(NOTEBOOK, 'utf8')).cells as Cell[]).map((c, i) => ({ ...c, number: i + 1 })).filter((c) => c.cell_type === 'code');
    const texts = cells.map((c) => (Array.isArray(c.source) ? c.source.join('') : c.source));
    const uris = cells.map((c) => `vscode-notebook-cell:/nb.ipynb#cell${c.number}`);
    const located = locateCellFindings(uris, analyzeNotebook(texts), { severity: {} }, cells.map((c) => c.number));
    const dd001 = located.find((f) => f.uri.endsWith('#cell5') && f.diagnostic.code === 'DD001');
    assert.ok(dd001, located.map((f) => `${f.uri} ${f.diagnostic.code}`).join('\n'));
    assert.match(String(dd001.diagnostic.message), /moved to device in cell 3, line 10\)/);
    const moved = dd001.diagnostic.relatedInformation!.find((r) => r.location.uri.endsWith('#cell3'));
    assert.match(moved!.message, /^cell 3, line 10: /);
  });

  it('without cell numbers (a caller that has none) the words are left as the analyzer made them', () => {
    const texts = ['import torch\ndevice = "cuda"\nmodel = torch.nn.Linear(2, 2).to(device)\n', 'x = torch.randn(1, 2)\nmodel(x)\n'];
    const [found] = locateCellFindings(['c1', 'c2'], analyzeNotebook(texts).filter((f) => f.finding.code === 'DD001'), { severity: {} });
    assert.match(String(found.diagnostic.message), /on line 3\)/);
  });
});
