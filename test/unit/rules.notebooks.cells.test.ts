// How findings and their fixes are placed across notebook cells.
import { strict as assert } from 'assert';
import { initPythonParser } from '../../src/core/analysis';
import { coreCellFindings, lineOf } from './helpers/analysis';
import { applyCellFix, loadNotebook } from './helpers/notebooks';

const DEVICE_CELL = 'import torch\nimport torch.nn as nn\ndevice = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n';
const MODEL_CELL = 'model = nn.Linear(4, 2)\n';
const MOVE_CELL = 'model.to(device)\n';
const USE_CELL = 'x = torch.randn(3, 4)\ny = model(x)\n';

describe('notebooks: cells as one program', () => {
  before(async () => {
    await initPythonParser();
  });

  it('reads cells in order: a use before the cell that moves the model is fine, after it is not', () => {
    assert.deepEqual(coreCellFindings([DEVICE_CELL, MODEL_CELL, USE_CELL, MOVE_CELL]), []);
    const findings = coreCellFindings([DEVICE_CELL, MODEL_CELL, MOVE_CELL, USE_CELL]);
    assert.deepEqual(findings.map((c) => [c.cellIndex, c.finding.code, c.finding.range.start.line]), [[3, 'DD001', 1]]);
  });

  it('puts a fix that edits the factory in an earlier cell into that cell, and related locations into theirs', () => {
    const nb = loadNotebook('device_across_cells.ipynb');
    const finding = coreCellFindings(nb.codeCells).find((c) => c.cellIndex === 4 && c.finding.code === 'DD001');
    assert.ok(finding, 'DD001 in code cell 4 (model(sample)) expected');
    const preferred = finding.finding.fixes.find((f) => f.preferred)!;
    assert.ok(preferred.edits.every((e) => e.cellIndex === 3), `edits: ${JSON.stringify(preferred.edits)}`);
    assert.equal(preferred.edits[0].range.start.line, 0);
    const fixed = applyCellFix(nb.codeCells, 4, preferred);
    assert.equal(fixed[3], 'sample = torch.randn(1, 20, device=device)');
    assert.equal(fixed[4], nb.codeCells[4]);
    const moved = finding.finding.related.find((r) => r.cellIndex === 1);
    assert.ok(moved, `a related location in cell 1, where the model is moved: ${JSON.stringify(finding.finding.related)}`);
    assert.equal(moved.range.start.line, lineOf(nb.codeCells[1], 'model = MLP().to(device)'));
  });

  it('keeps a same-cell fix in the finding cell (no cellIndex, or its own)', () => {
    const nb = loadNotebook('device_across_cells.ipynb');
    const finding = coreCellFindings(nb.codeCells).find((c) => c.cellIndex === 2 && c.finding.code === 'DD001');
    assert.ok(finding, 'DD001 in code cell 2 expected');
    for (const fix of finding.finding.fixes) for (const e of fix.edits) assert.ok(e.cellIndex === undefined || e.cellIndex === 2);
    const fixed = applyCellFix(nb.codeCells, 2, finding.finding.fixes.find((f) => f.preferred)!);
    assert.ok(fixed[2].startsWith('x = torch.randn(8, 20, device=device)\n'), fixed[2]);
  });

  it('continues each cell from the state the previous cell left, also after a top-level if/for/try', () => {
    const choose = 'if torch.cuda.is_available():\n    device = torch.device("cuda")\nelse:\n    device = torch.device("cpu")\nmodel.to(device)\n';
    const use = 'x = torch.randn(2, 4).to(device)\ny = model(x)\n';
    assert.deepEqual(coreCellFindings([DEVICE_CELL, MODEL_CELL, choose, use]), []);
    const tried = 'try:\n    import apex\nexcept ImportError:\n    apex = None\nmodel = model.to("cuda")\n';
    assert.deepEqual(coreCellFindings([DEVICE_CELL, MODEL_CELL, tried, 'y = model(torch.ones(1, 4).cuda())\n']), []);
    // The state that carries over is real: moving back to the CPU after the block is seen.
    const back = 'for _ in range(2):\n    pass\nmodel.cpu()\n';
    const findings = coreCellFindings([DEVICE_CELL, MODEL_CELL, choose, back, use]);
    assert.deepEqual(findings.map((c) => [c.cellIndex, c.finding.code, c.finding.range.start.line]), [[4, 'DD001', 1]]);
  });

  it('runs the definition in effect at each call: a function redefined in a later cell does not change an earlier call', () => {
    const first = 'def evaluate(m, xs):\n    return m(xs)\n';
    const second = 'def evaluate(m, xs):\n    return m(xs.to(device))\n';
    const cpuModel = 'plain = nn.Linear(4, 2)\n';
    assert.deepEqual(coreCellFindings([DEVICE_CELL, cpuModel, first, 'evaluate(plain, torch.randn(3, 4))\n', second]), []);
    const findings = coreCellFindings([DEVICE_CELL, cpuModel, first, second, 'evaluate(plain, torch.randn(3, 4))\n']);
    assert.deepEqual(findings.map((c) => [c.cellIndex, c.finding.code, c.finding.range.start.line]), [[4, 'DD001', 0]]);
    assert.match(findings[0].finding.message, /`plain` is on the CPU, but `evaluate\(\)` calls it with GPU inputs; .* `evaluate\(\)` calls it with `xs\.to\(device\)` \(line 2\)/);
  });

  it('treats the last expression of a cell as displayed, not discarded (no DD004 there)', () => {
    const move = 'import torch\nx = torch.ones(2)\nx.to("cuda")\n';
    const discarded = (cells: string[]) => coreCellFindings(cells).filter((c) => c.finding.code === 'DD004');
    assert.deepEqual(discarded([move]), []);
    const findings = discarded([`${move}print(x)\n`]);
    assert.deepEqual(findings.map((c) => [c.cellIndex, c.finding.code, c.finding.range.start.line]), [[0, 'DD004', 2]]);
  });

  it('parses IPython assignments, continued shell lines and help as IPython does, keeping the analysis and lines of the Python around them', () => {
    const cells = [
      `${DEVICE_CELL}t = torch.ones(2, device=device)\n`,
      // The shell command runs on through its backslash continuations (clovaai demo.ipynb).
      'output = !CUDA_VISIBLE_DEVICES=0 python3 demo.py \\\n--Transformation TPS \\\n--saved_model x.pth\nprint(output[0])\na = t.numpy()\n',
      'timing = %timeit -o t.sum()\nfor i in range(2):\n    !echo {i}\nt?\nb = t.numpy()\n',
      '%%time\nc = t.numpy()\n',
    ];
    const lint = (cs: string[]) => {
      const skipped: number[][] = [];
      const found = coreCellFindings(cs, { onSyntaxError: (s) => skipped.push([s.cellIndex ?? -1, s.range.start.line]) });
      return { skipped, found: found.map((c) => [c.cellIndex, c.finding.code, c.finding.range.start.line]) };
    };
    assert.deepEqual(lint(cells), { skipped: [], found: [[1, 'DD003', 4], [2, 'DD003', 4], [3, 'DD003', 1]] });
    // A `%` or `!` that continues Python, or sits in a string, is Python's, not IPython's.
    const python = 'x = (10\n     % 3)\ns = """\n!not a command\n"""\nd = t.numpy()\n';
    assert.deepEqual(lint([cells[0], python]), { skipped: [], found: [[1, 'DD003', 5]] });
  });

  it('never throws on empty notebooks, empty cells, magic-only cells and garbage between good cells', () => {
    assert.deepEqual(coreCellFindings([]), []);
    assert.deepEqual(coreCellFindings(['', '\n', '%matplotlib inline\n!ls\n']), []);
    const findings = coreCellFindings([DEVICE_CELL, 'def broken(:\n  )(\n', 't = torch.ones(2).cuda()\n', '%%%\n!!\n', 't.numpy()\n']);
    assert.deepEqual(findings.map((c) => [c.cellIndex, c.finding.code]), [[4, 'DD003']]);
  });
});
