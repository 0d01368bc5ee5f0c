// DD013's fix text: map_location names the scope's device variable where one holds a
// device, otherwise the CPU; the fixed call loads without the finding.
import { strict as assert } from 'assert';
import { initPythonParser } from '../../src/core/analysis';
import { coreFindings } from './helpers/analysis';
import { applyFix } from './helpers/fixes';

function fixedText(source: string): string {
  const finding = coreFindings(source).find((f) => f.code === 'DD013');
  assert.ok(finding, 'DD013 expected');
  return applyFix(source, finding.fixes.find((f) => f.preferred)!);
}

describe('DD013 fix text', () => {
  before(async () => {
    await initPythonParser();
  });

  it('writes the module\'s device variable', () => {
    const fixed = fixedText('import torch\ndevice = torch.device("cuda" if torch.cuda.is_available() else "cpu")\nstate = torch.load("a.pt")\n');
    assert.ok(fixed.includes('torch.load("a.pt", map_location=device)'), fixed);
  });

  it('writes self.device inside a method that set it', () => {
    const source = [
      'import torch', '', '', 'class Runner:', '    def __init__(self, path):',
      '        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")',
      '        self.state = torch.load(path)', '',
    ].join('\n');
    assert.ok(fixedText(source).includes('torch.load(path, map_location=self.device)'), fixedText(source));
  });

  it('falls back to "cpu" when no device variable exists at the call', () => {
    const fixed = fixedText('import torch\nuse_cuda = torch.cuda.is_available()\nstate = torch.load("a.pt", weights_only=True)\n');
    assert.ok(fixed.includes('torch.load("a.pt", weights_only=True, map_location="cpu")'), fixed);
    assert.deepEqual(coreFindings(fixed).filter((f) => f.code === 'DD013'), []);
  });

  it('writes a global device only where the function can read it: not one the main block binds after calling it', () => {
    const late = [
      'import torch', '', 'def build(path):', '    return torch.load(path)', '',
      'if __name__ == "__main__":', '    weights = build("w.pt")',
      '    dev = torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")', '',
    ].join('\n');
    // `dev` does not exist yet when build() runs: map_location=dev would raise NameError.
    assert.ok(fixedText(late).includes('torch.load(path, map_location="cpu")'), fixedText(late));
    const early = [
      'import torch', '', 'dev = torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")', '',
      'def build(path):', '    return torch.load(path)', '', 'weights = build("w.pt")', '',
    ].join('\n');
    assert.ok(fixedText(early).includes('torch.load(path, map_location=dev)'), fixedText(early));
  });
});
