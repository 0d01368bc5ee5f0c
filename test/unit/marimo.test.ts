// marimo notebooks: a `.py` file whose cells are `@app.cell` functions is analysed as the
// script its cells make, with every position unchanged; a fix never names, in a cell, a name
// of another cell that the cell does not take as a parameter.
import { strict as assert } from 'assert';
import { initPythonParser, marimoScript } from '../../src/core/analysis';
import { FileAnalyzer } from '../../src/server/fileAnalyzer';
import { coreFindings, formatFindings } from './helpers/analysis';

const NOTEBOOK = [
  'import marimo',
  '',
  'app = marimo.App()',
  '',
  '',
  '@app.cell',
  'def _():',
  '    import torch',
  '    import torch.nn as nn',
  '    return nn, torch',
  '',
  '',
  '@app.cell(hide_code=True)',
  'def _(torch):',
  '    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")',
  '    return (device,)',
  '',
  '',
  '@app.cell',
  'def _(nn):',
  '    critic = nn.Linear(4, 1)',
  '    return (critic,)',
  '',
  '',
  '@app.cell',
  'def _(critic, device, torch):',
  '    state = torch.randn(2, 4).to(device)',
  '    value = critic(state)',
  '    return (value,)',
  '',
].join('\n');

describe('marimo notebooks', () => {
  before(async () => {
    await initPythonParser();
  });

  it('reads the cells as one script: same length and lines, each header `with 0:`, each decorator blank', () => {
    const notebook = marimoScript(NOTEBOOK)!;
    assert.ok(notebook, 'recognised as a marimo notebook');
    assert.equal(notebook.script.length, NOTEBOOK.length);
    const [before, after] = [NOTEBOOK.split('\n'), notebook.script.split('\n')];
    assert.equal(after[6]!.trimEnd(), 'with 0:');
    assert.equal(after[12]!.trim(), '');
    assert.equal(after[19]!.trimEnd(), 'with 0:');
    for (const row of [7, 14, 20, 26, 27]) assert.equal(after[row], before[row], `line ${row + 1} kept`);
    assert.deepEqual([...notebook.cellNames].sort(), ['critic', 'device', 'nn', 'torch', 'value']);
  });

  it('a model built in one cell and called in another with a GPU input: DD001 where it is built, without a fix naming `device`, which that cell does not take', () => {
    const findings = coreFindings(NOTEBOOK);
    assert.deepEqual(findings.map((f) => [f.code, f.range.start.line + 1]), [['DD001', 21]], formatFindings(findings));
    assert.deepEqual(findings[0]!.fixes, [], 'a `.to(device)` in `def _(nn):` would raise NameError');
    const taking = NOTEBOOK.replace('def _(nn):', 'def _(device, nn):');
    const fixed = coreFindings(taking);
    assert.deepEqual(fixed[0]!.fixes.map((f) => f.edits.map((e) => e.newText)), [['.to(device)']], formatFindings(fixed));
  });

  it('a cell that does not parse while it is typed leaves the other cells, and their finding, in place', () => {
    const typing = NOTEBOOK.replace('    critic = nn.Linear(4, 1)', '    critic = nn.Linear(4, 1)\n    size = (4,');
    assert.ok(marimoScript(typing), 'still a marimo notebook');
    const findings = coreFindings(typing);
    assert.deepEqual(findings.filter((f) => f.code === 'DD001').map((f) => f.range.start.line + 1), [21], formatFindings(findings));
    assert.equal(marimoScript(NOTEBOOK.replace('import marimo', 'import marimo  # typed'))?.cells.length, 4);
  });

  it('a file that only mentions marimo, or whose decorated functions are not cells, is analysed as it is', () => {
    assert.equal(marimoScript('import marimo\n\n\ndef cell():\n    return 1\n'), undefined);
    assert.equal(marimoScript('import torch\n\n\n@app.cell\ndef _():\n    return\n'), undefined);
  });

  it('in the editor: the same finding, and an edit inside a cell body still gives it at the same place', () => {
    const analyzer = new FileAnalyzer();
    const first = analyzer.analyze('file:///nb.py', NOTEBOOK, {});
    assert.deepEqual(first.filter((f) => f.code === 'DD001').map((f) => f.range.start.line + 1), [21]);
    const edited = NOTEBOOK.replace('    value = critic(state)', '    value = critic(state) * 2');
    analyzer.recordChanges('file:///nb.py', [{ range: { start: { line: 27, character: 25 }, end: { line: 27, character: 25 } }, text: ' * 2' }]);
    const second = analyzer.analyze('file:///nb.py', edited, {});
    assert.deepEqual(second.filter((f) => f.code === 'DD001').map((f) => f.range.start.line + 1), [21]);
  });
});
