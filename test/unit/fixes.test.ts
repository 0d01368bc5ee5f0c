// Every fix of every firing fixture and ANALYZER.md example, applied for real: it parses,
// its finding disappears, it introduces nothing, it keeps formatting, and fix-all is idempotent.
import { strict as assert } from 'assert';
import { initPythonParser } from '../../src/core/analysis';
import { CORE_RULES, coreFindings, formatFindings, lineOf } from './helpers/analysis';
import { SPEC_EXAMPLES } from './helpers/examples';
import { everyFixProblems, fixAllProblems, FixScope } from './helpers/fixChecks';
import { applyFix } from './helpers/fixes';
import { loadRuleFixtures } from './helpers/fixtures';

interface FixCase {
  name: string;
  source: string;
  /** A fixture's cases fix the findings of the rules it speaks for; examples fix every finding. */
  scope?: FixScope;
}

const toCrlf = (text: string) => text.replace(/\r?\n/g, '\r\n');
const toTabs = (text: string) => text.replace(/^((?: {4})+)/gm, (spaces) => '\t'.repeat(spaces.length / 4));

const fireCases: FixCase[] = CORE_RULES.flatMap((rule) => loadRuleFixtures(rule, 'fire'))
  .map((fx) => {
    const rules = new Set<string>([fx.rule, ...fx.markers.map((m) => m.code)]);
    return { name: fx.relPath.replace('test/fixtures/rules/', ''), source: fx.source, scope: (code: string) => rules.has(code) };
  });

const exampleCases: FixCase[] = SPEC_EXAMPLES.filter((e) => e.expected.length > 0)
  .map((e) => ({ name: `example: ${e.title}`, source: e.source }));

/** The same files with Windows line endings and with tab indentation. */
const layoutCases: FixCase[] = [
  'DD001/fire/module_call_factory_input.py',
  'DD002/fire/basic_train_loop.py',
  'DD002/fire/trainer_class_epoch.py',
  'DD003/fire/grad_output_on_gpu.py',
  'DD004/fire/self_attr_buffer.py',
].flatMap((name) => {
  const { source, scope } = fireCases.find((c) => c.name === name)!;
  return [{ name: `${name} (CRLF)`, source: toCrlf(source), scope }, { name: `${name} (tabs)`, source: toTabs(source), scope }];
});

describe('fixes', () => {
  before(async () => {
    await initPythonParser();
  });

  for (const c of [...fireCases, ...exampleCases, ...layoutCases]) {
    describe(c.name, () => {
      it('each fix parses, removes its finding, adds none and changes only its span', () => {
        const { findings, problems } = everyFixProblems(c.source, c.scope);
        assert.ok(findings.length > 0, `nothing to fix: the analyzer reports no core finding (see rules.test.ts)`);
        assert.deepEqual(problems, [], `analyzer reported:\n${formatFindings(findings)}`);
      });

      it('fix-all converges to a clean file and a second run changes nothing', () => {
        assert.deepEqual(fixAllProblems(c.source, c.scope), []);
      });
    });
  }

  describe('the fix text itself', () => {
    it('a DD002 fix in a tab-indented loop inserts a tab-indented line', () => {
      const source = toTabs(fireCases.find((c) => c.name === 'DD002/fire/basic_train_loop.py')!.source);
      const finding = coreFindings(source).find((f) => f.code === 'DD002');
      assert.ok(finding, 'DD002 expected');
      const fixed = applyFix(source, finding.fixes.find((f) => f.preferred)!);
      const inserted = fixed.split('\n')[lineOf(source, 'for xb, yb in train_loader') + 1];
      assert.equal(inserted, '\t\txb, yb = xb.to(device), yb.to(device)');
    });

    it('a DD001 fix for a torch.from_numpy value moves it at the use instead of adding device=', () => {
      const source = fireCases.find((c) => c.name === 'DD001/fire/numpy_features_from_numpy.py')!.source;
      const finding = coreFindings(source).find((f) => f.code === 'DD001');
      assert.ok(finding, 'DD001 expected');
      const fixed = applyFix(source, finding.fixes.find((f) => f.preferred)!);
      assert.ok(fixed.includes('model(features.to(device))'), fixed);
    });

    it('a DD001 fix at the line that builds a model names no type and no name bound below it', () => {
      // The batch is cast with the legacy `Tensor` type (a CUDA type with a GPU) in a loop below
      // the model: `.to(Tensor)` raises a TypeError, `.to(noise.device)` a NameError there.
      const source = [
        'import torch', 'import torch.nn as nn', '', 'cuda = torch.cuda.is_available()', 'generator = nn.Linear(8, 8)',
        'Tensor = torch.cuda.FloatTensor if cuda else torch.FloatTensor', '', 'for step in range(3):',
        '    noise = torch.randn(4, 8).type(Tensor)', '    fake = generator(noise)', '',
      ].join('\n');
      const findings = coreFindings(source).filter((f) => f.code === 'DD001');
      assert.deepEqual(findings.map((f) => f.range.start.line + 1), [10], formatFindings(findings));
      assert.deepEqual(findings[0].fixes, []);
      // In a function, a global device (bound nowhere in it) is there: the fix stays at the construction.
      const inFunction = [
        'import torch', 'import torch.nn as nn', '', 'device = torch.device("cuda" if torch.cuda.is_available() else "cpu")', '',
        'def main(batches):', '    encoder = nn.Linear(8, 8)', '    for x in batches:', '        x = x.to(device)', '        print(encoder(x))', '',
      ].join('\n');
      const atConstruction = coreFindings(inFunction).filter((f) => f.code === 'DD001');
      assert.deepEqual(atConstruction.map((f) => [f.range.start.line + 1, f.fixes[0]?.title]), [[7, 'Move `encoder` to device where it is created']], formatFindings(atConstruction));
    });

    it('a DD004 fix on an attribute assigns the attribute back', () => {
      const source = fireCases.find((c) => c.name === 'DD004/fire/self_attr_buffer.py')!.source;
      const finding = coreFindings(source).find((f) => f.code === 'DD004');
      assert.ok(finding, 'DD004 expected');
      const fixed = applyFix(source, finding.fixes.find((f) => f.preferred)!);
      assert.ok(fixed.includes('        self.mean = self.mean.to(device)  # expect: DD004(self.mean)\n'), fixed);
    });

    it('a DD004 fix is offered only where the moved copy would not then meet what stays on the CPU or cannot be placed', () => {
      // The finding holds in each case (the move is thrown away); the fix would not be safe in all.
      const titles = (source: string) => coreFindings(source).filter((f) => f.code === 'DD004').map((f) => f.fixes.map((x) => x.title));
      const head = 'import torch\nimport torch.nn as nn\nmodel = nn.Linear(3, 1)\nx = torch.ones(5, 3)\n';
      // `model` is built on the CPU and never moved: `x = x.cuda()` would make `model(x)` raise.
      assert.deepEqual(titles(`${head}if torch.cuda.is_available():\n    x.cuda()\nprint(model(x))\n`), [[]]);
      // A test builds the model from the class it is given, so nothing places it (udacity problem_unittests.py).
      const test = 'import torch\n\ndef test_discriminator(Discriminator):\n    D = Discriminator(10)\n    x = torch.ones(50, 3)\n'
        + '    if torch.cuda.is_available():\n        x.cuda()\n    output = D(x)\n    assert output.size() == (50, 1)\n';
      assert.deepEqual(titles(test), [[]]);
      // The model moved too: the fix is what makes `model(x)` work.
      assert.deepEqual(titles(`${head}model.cuda()\nx.cuda()\nprint(model(x))\n`), [['Assign the result: x = x.cuda()']]);
      // A later `.numpy()` would raise on a copy moved to the GPU, not on one moved to the CPU.
      assert.deepEqual(titles(`${head}x.cuda()\nprint(x.numpy())\n`), [[]]);
      assert.deepEqual(titles(`${head}model.cuda()\ny = model(x.cuda())\ny.cpu()\nprint(y.numpy())\n`), [['Assign the result: y = y.cpu()']]);
    });

    it('a DD002 fix in a Trainer method moves batches with self.device', () => {
      const source = fireCases.find((c) => c.name === 'DD002/fire/trainer_class_epoch.py')!.source;
      const finding = coreFindings(source).find((f) => f.code === 'DD002');
      assert.ok(finding, 'DD002 expected');
      const fixed = applyFix(source, finding.fixes.find((f) => f.preferred)!);
      assert.ok(fixed.includes('            features, labels = features.to(self.device), labels.to(self.device)\n'), fixed);
    });
  });
});
