// What the fuzzer found in the analyzer (npm run fuzz), each pinned by a small case in
// our own words: analysis time exponential in loop nesting, fixes that broke valid Python,
// and fixes that fix-all applied again and again.
import * as assert from 'assert';
import { analyzeNotebook, analyzeSource, initPythonParser, type Finding } from '../../src/core/analysis';
import { applyTextEdits } from '../../src/core/python/edits';
import { firstSyntaxError } from './helpers/fixes';

const preferred = (f: Finding) => f.fixes.find((x) => x.preferred);

/** Applies the preferred fixes until none is left (at most `passes` times); returns the text and the passes used. */
function fixAll(source: string, passes = 5): { text: string; passes: number } {
  let text = source;
  for (let pass = 0; pass < passes; pass++) {
    const edits = analyzeSource(text).flatMap((f) => preferred(f)?.edits ?? []);
    if (edits.length === 0) return { text, passes: pass };
    text = applyTextEdits(text, edits);
  }
  return { text, passes };
}

describe('fuzzer findings, fixed', () => {
  before(() => initPythonParser());

  it('analyses 40 nested loops in well under a second (the gathering pass no longer doubles per level)', () => {
    const depth = 40;
    const source = 'import torch\n' + Array.from({ length: depth }, (_, i) => `${' '.repeat(i)}while a:\n`).join('')
      + `${' '.repeat(depth)}x = torch.zeros(3)\n${' '.repeat(depth)}x.cuda()\n`;
    const started = Date.now();
    const findings = analyzeSource(source);
    // Not a timing test of speed: 2^40 passes would never end; anything that returns is the fix.
    assert.ok(Date.now() - started < 10_000);
    assert.deepStrictEqual(findings.map((f) => f.code).sort(), ['DD004', 'DD005'], 'the innermost discarded move is still found');
  });

  it('analyses a 10,000-deep attribute chain (20 KB) and keeps the file\'s other findings', () => {
    // dottedKey and ImportTable.qualify recursed once per attribute and overflowed the stack.
    const source = `import torch\nx = a${'.b'.repeat(10_000)}\ny = torch.zeros(2).cuda()\ny.numpy()\n`;
    assert.deepStrictEqual(analyzeSource(source).map((f) => [f.code, f.range.start.line]), [['DD005', 2], ['DD003', 3]]);
  });

  it('reports discarded moves inside a tuple statement without a fix that would break or change the code', () => {
    for (const statement of ['x.cuda(), y.cuda()', 'print(x), x.cuda()', 'x.cuda(),', 'y, x.cuda()']) {
      const source = `import torch\nx = torch.zeros(2)\ny = torch.zeros(2)\n${statement}\n`;
      const findings = analyzeSource(source).filter((f) => f.code === 'DD004');
      assert.ok(findings.length > 0, `${statement}: no DD004`);
      assert.ok(findings.every((f) => f.fixes.length === 0), `${statement}: offers ${findings.flatMap((f) => f.fixes.map((x) => x.title)).join(', ')}`);
    }
    const whole = analyzeSource('import torch\nx = torch.zeros(2)\nx.cuda()\n');
    assert.strictEqual(applyTextEdits('import torch\nx = torch.zeros(2)\nx.cuda()\n', preferred(whole[0])!.edits), 'import torch\nx = torch.zeros(2)\nx = x.cuda()\n');
  });

  it('offers no fix inside a statement that does not parse, so fix-all cannot grow `x = x = x.cuda()`', () => {
    const source = 'import torch\nfor labels in loader:u),labels.cuda()\n';
    const findings = analyzeSource(source);
    assert.ok(findings.every((f) => f.fixes.length === 0), JSON.stringify(findings.map((f) => f.fixes)));
    assert.strictEqual(fixAll(source).passes, 0);
  });

  it('offers no fix in statements that error recovery split out of one line', () => {
    const source = 'import torch\nx = torch.zeros(2).cuda()y = x.numpy()\n';
    const findings = analyzeSource(source);
    assert.ok(findings.some((f) => f.code === 'DD003'), `the .numpy() on a CUDA tensor is still reported: ${JSON.stringify(findings.map((f) => f.code))}`);
    assert.ok(findings.every((f) => f.fixes.length === 0), JSON.stringify(findings.map((f) => f.fixes)));
  });

  it('does not write a device name that was rebound to the CPU since the model moved; fix-all settles at once', () => {
    const source = [
      'import torch',
      'device = torch.device("cuda")',
      'model = torch.nn.Linear(10, 2).to(device)',
      'device = torch.device("cpu")',
      'x = torch.randn(4, 10)',
      'model(x)',
      '',
    ].join('\n');
    const [finding] = analyzeSource(source).filter((f) => f.code !== 'DD005'); // "cuda" hard-coded on line 2
    assert.strictEqual(finding.code, 'DD001');
    assert.ok(finding.fixes.every((x) => x.edits.every((e) => !/\bdevice\)?$/.test(e.newText.replace(/\.device\)?$/, '')))),
      finding.fixes.map((x) => x.edits.map((e) => e.newText).join(' ')).join(' | '));
    const { text, passes } = fixAll(source);
    assert.strictEqual(passes, 1);
    assert.strictEqual(firstSyntaxError(text), undefined);
    assert.deepStrictEqual(analyzeSource(text), []);
  });

  it('does not copy a device expression out of a move the parser could not read into another cell', () => {
    const cells = ['import torch\nmodel = torch.nn.Linear(20, 2).to(d\0ce)\n', 'x = torch.randn(8, 20)\nmodel(x)\n'];
    const fixes = analyzeNotebook(cells).flatMap((c) => c.finding.fixes.flatMap((x) => x.edits.map((e) => e.newText)));
    assert.ok(fixes.every((text) => !text.includes('\0') && !/device=d\b/.test(text)), JSON.stringify(fixes));
  });
});
