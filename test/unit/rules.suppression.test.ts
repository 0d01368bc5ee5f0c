// `# noqa` comments and rule selection, as analyzeSource/analyzeNotebook apply them
// (flake8/Ruff conventions: the comment sits on the line where the finding starts).
import { strict as assert } from 'assert';
import { analyzeNotebook, analyzeSource, initPythonParser } from '../../src/core/analysis';
import type { AnalyzeOptions } from '../../src/core/analysis';

const BASE = `import torch
import torch.nn as nn
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(3, 2).to(device)
out = model(torch.randn(1, 3, device=device))
x = torch.ones(2)
x.to(device)
`;

/** BASE plus a last line: out.numpy() gives DD003 and DD010 on that line. */
function withLastLine(suffix: string): string {
  return `${BASE}print(out.numpy())${suffix}\n`;
}

function codes(source: string, options?: AnalyzeOptions): string[] {
  return analyzeSource(source, options).map((f) => `${f.code}@${f.range.start.line}`).sort();
}

const ALL = ['DD003@7', 'DD004@6', 'DD010@7'];

describe('suppression and selection', () => {
  before(async () => {
    await initPythonParser();
  });

  it('reports every core finding without comments or options', () => {
    assert.deepEqual(codes(withLastLine('')), ALL);
  });

  it('# noqa: CODE silences that code on its line only', () => {
    assert.deepEqual(codes(withLastLine('  # noqa: DD003')), ['DD004@6', 'DD010@7']);
    assert.deepEqual(codes(withLastLine('  # noqa:DD010')), ['DD003@7', 'DD004@6']);
  });

  it('# noqa: A, B silences both; a bare # noqa silences every rule on the line', () => {
    assert.deepEqual(codes(withLastLine('  # noqa: DD003, DD010')), ['DD004@6']);
    assert.deepEqual(codes(withLastLine('  # noqa')), ['DD004@6']);
  });

  it('# noqa for another code silences nothing, and noqa: false reports everything', () => {
    assert.deepEqual(codes(withLastLine('  # noqa: DD001')), ALL);
    assert.deepEqual(codes(withLastLine('  # noqa'), { noqa: false }), ALL);
  });

  it('an # expect: comment is not a noqa', () => {
    assert.deepEqual(codes(withLastLine('  # expect: DD003')), ALL);
  });

  it('select and ignore take codes and prefixes', () => {
    const source = withLastLine('');
    assert.deepEqual(codes(source, { select: ['DD003'] }), ['DD003@7']);
    assert.deepEqual(codes(source, { select: ['DD00'] }), ['DD003@7', 'DD004@6']);
    assert.deepEqual(codes(source, { ignore: ['DD01'] }), ['DD003@7', 'DD004@6']);
    assert.deepEqual(codes(source, { select: ['DD'], ignore: ['DD004'] }), ['DD003@7', 'DD010@7']);
  });

  it('noqa works per cell line in notebooks', () => {
    const cells = [`${BASE}print(x)\n`, 'print(out.numpy())  # noqa: DD003\n'];
    const found = analyzeNotebook(cells).map((c) => `${c.cellIndex}:${c.finding.code}@${c.finding.range.start.line}`).sort();
    assert.deepEqual(found, ['0:DD004@6', '1:DD010@0']);
  });
});
