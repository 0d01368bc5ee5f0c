// keptOnlyAsNumber: an attribute a class keeps that every read uses as a number. The reads of
// a text are indexed once for all its attributes; each attribute must get the answer a scan
// for it alone gives.
import * as assert from 'assert';
import { keptOnlyAsNumber } from '../../src/core/analysis/numberAttributes';

const trainer = [
  'class Loss(nn.Module):',
  '    def __init__(self, k, fc, margin):',
  '        self.k = k',
  '        self.fc = fc',
  '        self.margin = margin',
  '        self.unused = 3',
  '    def forward(self, x):',
  '        half = (self.k - 1) // 2',
  '        if self.margin > 0.5 and self.k == 2:',
  '            x = x * 2',
  '        return self.fc(x)[half]',
].join('\n');

describe('attributes read only as numbers (numberAttributes.ts)', () => {
  it('tells apart, in one text, attributes read as operands and attributes used as what they are', () => {
    assert.strictEqual(keptOnlyAsNumber(trainer, [trainer], 'k', false), true);
    assert.strictEqual(keptOnlyAsNumber(trainer, [trainer], 'margin', false), true);
    assert.strictEqual(keptOnlyAsNumber(trainer, [trainer], 'fc', false), false, '`self.fc(x)` calls it');
  });

  it('counts an attribute never read only when asked to (`unread`)', () => {
    assert.strictEqual(keptOnlyAsNumber(trainer, [trainer], 'unused', false), false);
    assert.strictEqual(keptOnlyAsNumber(trainer, [trainer], 'unused', true), true);
  });

  it('reads every text given: a use as itself in another cell or file decides', () => {
    const other = 'net = Loss(2, head, 0.1)\nprint(net.k.shape)\n';
    assert.strictEqual(keptOnlyAsNumber(trainer, [trainer, other], 'k', false), false);
    assert.strictEqual(keptOnlyAsNumber(trainer, [trainer, other], 'margin', false), true);
  });

  it('answers for the text as it is now after an edit (a new text is read again)', () => {
    const edited = trainer.replace('return self.fc(x)[half]', 'return self.fc(x)[half] + self.margin.sum()');
    assert.strictEqual(keptOnlyAsNumber(edited, [edited], 'margin', false), false);
    assert.strictEqual(keptOnlyAsNumber(trainer, [trainer], 'margin', false), true);
  });

  it('trusts nothing when the class reads attributes by a computed name', () => {
    const dynamic = `${trainer}\n    def get(self, name):\n        return getattr(self, name)`;
    assert.strictEqual(keptOnlyAsNumber(dynamic, [dynamic], 'k', false), false);
  });
});
