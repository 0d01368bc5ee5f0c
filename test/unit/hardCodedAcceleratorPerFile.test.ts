// DD005 says once per file: one finding at the first place that names CUDA, the others
// as related locations and in its message, and one preferred fix that chooses the device
// at every place, so that fix-all settles in one pass. Places the interpreter never runs
// (a class body, a parameter default, a --gpu switch on by default) count too.
import { strict as assert } from 'assert';
import * as path from 'path';
import { analyzeNotebook, createModuleResolver, initPythonParser, type ProjectContext } from '../../src/core/analysis';
import { coreFindings } from './helpers/analysis';
import { applyFix, fixAll } from './helpers/fixes';

const dd005 = (source: string) => coreFindings(source).filter((f) => f.code === 'DD005');

const SCRIPT = [
  'import torch',
  'import torch.nn as nn',
  '',
  'model = nn.Linear(10, 2).cuda()',
  'x = torch.randn(4, 10, device="cuda")',
  'y = model(x.to("cuda:0"))',
  'z = torch.zeros(2).cuda(1)',
  '',
].join('\n');

describe('DD005 once per file', () => {
  before(async () => {
    await initPythonParser();
  });

  it('reports one finding at the first place, naming how many more and where', () => {
    const findings = dd005(SCRIPT);
    assert.equal(findings.length, 1);
    const [f] = findings;
    assert.equal(f.range.start.line, 3);
    assert.match(f.message, /^`nn\.Linear\(10, 2\)\.cuda\(\)` hard-codes CUDA \(and 3 more places\); choose the device at run time\./);
    assert.match(f.message, /line 5 .*line 6 .*line 7/);
    assert.deepEqual(f.related.map((r) => r.range.start.line), [4, 5, 6]);
  });

  it('keeps a first sentence of at most 100 characters that ends in the action', () => {
    const first = dd005(SCRIPT)[0].message.split(/(?<=\.) /)[0];
    assert.ok(first.length <= 100, first);
    assert.match(first, /choose the device at run time\.$/);
  });

  it('offers the run-time choice at every place as the preferred fix, and it leaves nothing to report', () => {
    const [f] = dd005(SCRIPT);
    const preferred = f.fixes.filter((x) => x.preferred);
    assert.equal(preferred.length, 1);
    assert.equal(preferred[0].title, 'Choose the device at run time at all 4 places');
    const fixed = applyFix(SCRIPT, preferred[0]);
    assert.ok(fixed.includes('nn.Linear(10, 2).to("cuda" if torch.cuda.is_available() else "cpu")'), fixed);
    assert.ok(fixed.includes('device="cuda" if torch.cuda.is_available() else "cpu"'), fixed);
    assert.ok(fixed.includes('.to("cuda:1" if torch.cuda.is_available() else "cpu")'), fixed);
    assert.deepEqual(dd005(fixed), []);
  });

  it('keeps the fix of the first place alone and the helper at every place as further choices', () => {
    const titles = dd005(SCRIPT)[0].fixes.map((x) => x.title);
    assert.ok(titles.some((t) => /get_device\(\) helper .* at every place/.test(t)), titles.join(' | '));
    assert.ok(titles.some((t) => /\(this place only\)$/.test(t)), titles.join(' | '));
  });

  it('fix-all converges in one round', () => {
    const result = fixAll(SCRIPT, (text) => dd005(text));
    assert.deepEqual(dd005(result.text), []);
    assert.equal(result.rounds, 1);
  });

  it('leaves out a place whose line says noqa, and still reports the others', () => {
    const source = SCRIPT.replace('model = nn.Linear(10, 2).cuda()', 'model = nn.Linear(10, 2).cuda()  # noqa: DD005');
    const [f] = dd005(source);
    assert.equal(f.range.start.line, 4);
    assert.match(f.message, /and 2 more places/);
  });

  it('counts places across the cells of a notebook, the finding in the first cell', () => {
    const cells = ['import torch\nx = torch.ones(2).cuda()\n', 'y = torch.zeros(2, device="cuda")\n'];
    const found = analyzeNotebook(cells).filter((c) => c.finding.code === 'DD005');
    assert.equal(found.length, 1);
    assert.equal(found[0].cellIndex, 0);
    assert.deepEqual(found[0].finding.related.map((r) => r.cellIndex), [1]);
  });
});

describe('DD005 where the interpreter never runs', () => {
  before(async () => {
    await initPythonParser();
  });

  it('a class body: runs at import, and the message says so', () => {
    const [f] = dd005('import torch\n\n\nclass Table:\n    ones = torch.ones(3).cuda()\n');
    assert.equal(f.range.start.line, 4);
    assert.match(f.message, /hard-codes CUDA; .* in a class body, which runs when the module is imported/);
  });

  it('a device parameter defaulting to "cuda:0": the fix chooses the default at run time', () => {
    const source = 'import torch\n\n\ndef batch(n, device="cuda:0"):\n    return torch.randn(n, device=device)\n';
    const [f] = dd005(source);
    assert.match(f.message, /^The default `device="cuda:0"` hard-codes CUDA; choose the device at run time\./);
    const fixed = applyFix(source, f.fixes.find((x) => x.preferred)!);
    assert.ok(fixed.includes('device="cuda:0" if torch.cuda.is_available() else "cpu"'), fixed);
  });

  it('a device parameter without a CUDA default still lets the caller choose: silent', () => {
    assert.deepEqual(dd005('import torch\n\n\ndef batch(n, device=None):\n    return torch.randn(n).cuda()\n'), []);
  });

  it('a --gpu switch on by default: the fix defaults it to torch.cuda.is_available()', () => {
    const source = 'import argparse\nimport torch\np = argparse.ArgumentParser()\np.add_argument("--gpu", action="store_true", default=True)\n';
    const [f] = dd005(source);
    assert.match(f.message, /^`--gpu` on by default hard-codes CUDA; choose the device at run time\./);
    const fixed = applyFix(source, f.fixes.find((x) => x.preferred)!);
    assert.ok(fixed.includes('default=torch.cuda.is_available())'), fixed);
    assert.deepEqual(dd005(fixed), []);
  });

  it('a --gpu switch whose default comes from the availability check: silent', () => {
    assert.deepEqual(dd005('import argparse\nimport torch\np = argparse.ArgumentParser()\np.add_argument("--gpu", default=torch.cuda.is_available())\n'), []);
  });
});

describe('DD005 in code that cannot run without CUDA', () => {
  before(async () => {
    await initPythonParser();
  });

  for (const [what, line] of [
    ['a compiled CUDA extension', 'import nms_cuda'],
    ['numba\'s CUDA', 'from numba import cuda'],
    ['a CUDA stream', 's = torch.cuda.Stream()'],
    ['CUDA events', 'e = torch.cuda.Event(enable_timing=True)'],
  ]) {
    it(`stays silent in a file that uses ${what}`, () => {
      assert.deepEqual(dd005(`import torch\n${line}\nx = torch.ones(2).cuda()\n`), []);
    });
  }

  it('stays silent where a project helper binds the process to its GPU (dino\'s utils.init_distributed_mode)', () => {
    const root = path.resolve('/project');
    const utils = 'import torch\n\n\ndef init_distributed_mode(args):\n    torch.cuda.set_device(args.gpu)\n';
    const files = new Map([[path.join(root, 'utils.py'), utils]]);
    const project: ProjectContext = { path: path.join(root, 'eval.py'), modules: createModuleResolver([root], (p) => files.get(p)) };
    const source = 'import torch\nimport utils\nutils.init_distributed_mode(None)\nx = torch.ones(2).cuda()\n';
    assert.deepEqual(coreFindings(source, { project }).filter((f) => f.code === 'DD005'), []);
    assert.equal(dd005(source).length, 1, 'without the project, the helper is unknown and the file is reported');
  });

  it('still fires beside a helper merely named for CUDA (to_cuda is not an extension)', () => {
    assert.equal(dd005('import torch\nfrom utils import to_cuda\nx = torch.ones(2).cuda()\n').length, 1);
  });
});
