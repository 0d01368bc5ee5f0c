// Cross-file analysis at repository scale (issue 24): an imported module is parsed once per
// run however many files import it, a package's __init__.py costs only the submodules the
// importer takes names from, and a round interprets only the imported functions the
// analysed code can reach by name.
import { strict as assert } from 'assert';
import * as path from 'path';
import { createModuleResolver, initPythonParser, ModuleTrees } from '../../src/core/analysis';
import type { ProjectContext } from '../../src/core/analysis';
import { parsePython } from '../../src/core/python/parser';
import { NodeRegistry } from '../../src/core/python/pyNode';
import { Program } from '../../src/core/analysis/program';
import { coreFindings, formatFindings } from './helpers/analysis';

const ROOT = path.resolve('/repo');

function reader(files: Record<string, string>, reads: string[]): (p: string) => string | undefined {
  const byPath = new Map(Object.entries(files).map(([rel, text]) => [path.join(ROOT, rel), text]));
  return (p) => {
    const text = byPath.get(p);
    if (text !== undefined) reads.push(path.relative(ROOT, p));
    return text;
  };
}

const LAYER = (name: string) => [
  'import torch.nn as nn',
  `class ${name}(nn.Module):`,
  '    def __init__(self):',
  '        super().__init__()',
  '        self.fc = nn.Linear(10, 10)',
  '    def forward(self, x):',
  '        return self.fc(x)',
  '',
].join('\n');

const PACKAGE = {
  'layers/__init__.py': 'from .dense import Dense\nfrom .conv import Conv\nfrom .attention import Attention\n',
  'layers/dense.py': LAYER('Dense'),
  'layers/conv.py': LAYER('Conv'),
  'layers/attention.py': LAYER('Attention'),
};

const TRAIN = [
  'import torch',
  'from layers import Dense',
  '',
  'device = torch.device("cuda" if torch.cuda.is_available() else "cpu")',
  'net = Dense().to(device)',
  'x = torch.randn(4, 10)',
  'print(net(x))',
  '',
].join('\n');

function context(files: Record<string, string>, analysed: string, reads: string[], trees?: ModuleTrees): ProjectContext {
  return { path: path.join(ROOT, analysed), modules: createModuleResolver([ROOT], reader(files, reads)), trees };
}

describe('analysis across files at repository scale', () => {
  before(async () => {
    await initPythonParser();
  });

  it('reads only the submodule a package re-exports the imported name from', () => {
    const reads: string[] = [];
    const findings = coreFindings(TRAIN, { project: context({ ...PACKAGE, 'train.py': TRAIN }, 'train.py', reads) });
    assert.deepEqual(findings.map((f) => [f.code, f.range.start.line + 1]), [['DD001', 7]], formatFindings(findings));
    assert.ok(reads.includes('layers/dense.py'), reads.join(', '));
    assert.ok(!reads.includes('layers/conv.py') && !reads.includes('layers/attention.py'), `read more than needed: ${reads.join(', ')}`);
  });

  it('still follows every import of a module the importer takes whole', () => {
    const reads: string[] = [];
    const train = TRAIN.replace('from layers import Dense', 'import layers').replace('Dense()', 'layers.Dense()');
    const findings = coreFindings(train, { project: context({ ...PACKAGE, 'train.py': train }, 'train.py', reads) });
    assert.deepEqual(findings.map((f) => f.code), ['DD001'], formatFindings(findings));
    for (const m of ['layers/dense.py', 'layers/conv.py', 'layers/attention.py']) assert.ok(reads.includes(m), `${m} not read: ${reads.join(', ')}`);
  });

  it('with a shared ModuleTrees, parses an imported module once for two importers and finds the same, and keeps each linted file\'s tree', () => {
    const files = { ...PACKAGE, 'train.py': TRAIN, 'eval.py': TRAIN };
    const trees = new ModuleTrees();
    const alone = coreFindings(TRAIN, { project: context(files, 'eval.py', []) });
    const first = coreFindings(TRAIN, { project: context(files, 'train.py', [], trees) });
    const kept = trees.size;
    const second = coreFindings(TRAIN, { project: context(files, 'eval.py', [], trees) });
    assert.ok(kept >= 3, `kept ${kept} modules`);
    // The second analysis keeps its own file's tree too, for files that import it.
    assert.equal(trees.size, kept + 1, 'the second importer parsed modules again');
    assert.deepEqual(second, first);
    assert.deepEqual(second, alone);
  });

  it('a linted file whose tree an importer parsed first is not parsed again, and still reports its syntax errors', () => {
    const model = ['import torch.nn as nn', 'class Net(nn.Module):', '    def __init__(self):', '        super().__init__()', 'def broken(:', '    pass', ''].join('\n');
    const train = 'import torch\nfrom model import Net\nnet = Net().cuda()\nnet(torch.zeros(2, 2))\n';
    const files = { 'model.py': model, 'train.py': train };
    const trees = new ModuleTrees();
    coreFindings(train, { project: context(files, 'train.py', [], trees) });
    const parsedAsImport = trees.get(path.join(ROOT, 'model.py'), model);
    assert.ok(parsedAsImport, 'model.py was not kept as an import');
    const skipped: number[] = [];
    coreFindings(model, { project: context(files, 'model.py', [], trees), onSyntaxError: (e) => skipped.push(e.range.start.line) });
    assert.deepEqual(skipped, [4]);
    assert.equal(trees.get(path.join(ROOT, 'model.py'), model), parsedAsImport, 'model.py was parsed again');
  });

  it('parses a module again once its text changes, and evicts past its byte budget', () => {
    // Room for one layer file: __init__.py and dense.py together do not fit.
    const trees = new ModuleTrees(LAYER('Dense').length + 50);
    const files = { ...PACKAGE, 'train.py': TRAIN };
    coreFindings(TRAIN, { project: context(files, 'train.py', [], trees) });
    assert.equal(trees.size, 1);
    const changed = { ...files, 'layers/dense.py': LAYER('Dense').replace('nn.Linear(10, 10)', 'nn.Linear(10, 10).cuda()') };
    const findings = coreFindings(TRAIN, { project: context(changed, 'train.py', [], trees) });
    assert.deepEqual(findings.map((f) => f.code), ['DD001'], formatFindings(findings));
    const dense = path.join(ROOT, 'layers/dense.py');
    assert.equal(trees.get(dense, files['layers/dense.py']), undefined, 'kept the old text');
    assert.ok(trees.get(dense, changed['layers/dense.py']));
  });

  it('a round interprets the imported functions the analysed code reaches by name, and no others', () => {
    const helpers = [
      'import torch',
      'def used(x):',
      '    return inner(x)',
      'def inner(x):',
      '    return x.cuda()',
      'def unused(x):',
      '    return x.cpu()',
      'class Unused:',
      '    def method(self):',
      '        return 1',
      '',
    ].join('\n');
    const main = 'import torch\nfrom helpers import used\nprint(used(torch.ones(2)))\n';
    const files = { 'helpers.py': helpers, 'main.py': main };
    const registry = new NodeRegistry();
    const tree = parsePython(main);
    try {
      const root = registry.root(tree, main);
      const unit = { index: 0, module: 0, root, source: main, lines: main.split('\n'), eol: '\n' };
      const ctx = context(files, 'main.py', []);
      const loader = {
        load: (_from: unknown, name: string, unitIndex: number, moduleIndex: number) => {
          const file = ctx.modules.resolve(ctx.path, name, 0);
          if (!file) return undefined;
          const t = parsePython(file.source);
          try {
            return { path: file.path, unit: { index: unitIndex, module: moduleIndex, root: registry.root(t, file.source), source: file.source, lines: file.source.split('\n'), eol: '\n' } };
          } finally {
            t.delete();
          }
        },
      };
      const program = new Program([unit], false, loader, ctx.path);
      assert.deepEqual(program.functions.map((f) => f.name).sort(), ['inner', 'method', 'unused', 'used']);
      assert.deepEqual(program.functionsRun.map((f) => f.name).sort(), ['inner', 'used']);
    } finally {
      tree.delete();
    }
  });
});
