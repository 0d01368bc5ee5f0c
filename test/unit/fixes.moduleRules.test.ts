// The text the DD015–DD017 quick fixes write, on their fixtures: the generic checks in
// fixes.test.ts prove each fix parses, removes its finding and adds none; these say it is
// the fix the rule promises (device=x.device, register_buffer, weight=w.to(device)).
import { strict as assert } from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { initPythonParser } from '../../src/core/analysis';
import type { RuleCode } from '../../src/core/analysis';
import { coreFindings } from './helpers/analysis';
import { applyFix } from './helpers/fixes';
import { RULE_FIXTURES_DIR } from './helpers/fixtures';

function fixture(name: string): string {
  return fs.readFileSync(path.join(RULE_FIXTURES_DIR, name), 'utf8');
}

/** Each fix of `code`'s findings in `source`, applied alone: the resulting texts. */
function fixedTexts(source: string, code: RuleCode, preferredOnly = true): string[] {
  const findings = coreFindings(source).filter((f) => f.code === code);
  assert.ok(findings.length > 0, `no ${code} finding`);
  return findings.flatMap((f) => f.fixes.filter((x) => x.preferred || !preferredOnly).map((x) => applyFix(source, x)));
}

describe('fixes of DD015–DD017 write what their rules promise', () => {
  before(async () => {
    await initPythonParser();
  });

  it('DD015 on an LSTM h0 adds device=x.device (x: forward\'s first tensor input)', () => {
    const [h0] = fixedTexts(fixture('DD015/fire/lstm_h0_in_forward.py'), 'DD015');
    assert.ok(h0.includes('h0 = torch.zeros(self.num_layers, x.size(0), self.hidden_dim, device=x.device)  # expect: DD015(h0)\n'), h0);
  });

  it('DD015 offers randn_like(mu) second when the shape is exactly the input\'s', () => {
    const texts = fixedTexts(fixture('DD015/fire/vae_reparameterize_noise.py'), 'DD015', false);
    assert.ok(texts.some((t) => t.includes('eps = torch.randn(mu.shape, device=mu.device)')), texts.join('\n---\n'));
    assert.ok(texts.some((t) => t.includes('eps = torch.randn_like(mu)')), texts.join('\n---\n'));
  });

  it('DD015 in a helper without tensor inputs uses the device of the module\'s parameters; in Lightning self.device', () => {
    const [helper] = fixedTexts(fixture('DD015/fire/init_hidden_helper.py'), 'DD015');
    assert.ok(helper.includes('torch.zeros(self.layers, batch_size, self.hidden, device=next(self.parameters()).device)'), helper);
    const [step] = fixedTexts(fixture('DD015/fire/lightning_mask_in_training_step.py'), 'DD015');
    assert.ok(step.includes('mask = torch.ones(logits.shape[0], 5, device=self.device)'), step);
  });

  it('DD016 registers the attribute as a buffer, persistent=False only for cache-like names', () => {
    const [pe] = fixedTexts(fixture('DD016/fire/sinusoidal_positional_encoding.py'), 'DD016');
    assert.ok(pe.includes('        self.register_buffer("pe", pe.unsqueeze(0))  # expect: DD016(self.pe)\n'), pe);
    const [mask] = fixedTexts(fixture('DD016/fire/causal_mask_attribute.py'), 'DD016');
    assert.ok(mask.includes('self.register_buffer("mask", torch.tril(torch.ones(block_size, block_size)).view(1, block_size, block_size), persistent=False)'), mask);
  });

  it('DD016 gives no fix where register_buffer would raise (before super().__init__())', () => {
    const source = [
      'import torch', 'import torch.nn as nn', '', '', 'class Shift(nn.Module):', '    def __init__(self):',
      '        self.offset = torch.ones(4)', '        super().__init__()', '        self.fc = nn.Linear(4, 4)', '',
      '    def forward(self, x):', '        return self.fc(x) + self.offset', '', '', 'm = Shift().cuda()', 'print(m(torch.randn(2, 4).cuda()))', '',
    ].join('\n');
    const findings = coreFindings(source).filter((f) => f.code === 'DD016');
    assert.deepEqual(findings.map((f) => [f.code, f.range.start.line + 1, f.fixes.length]), [['DD016', 7, 0]]);
  });

  it('DD017 moves named weights with .to(device) and creates inline ones on the device', () => {
    const [named] = fixedTexts(fixture('DD017/fire/weighted_criterion_built_on_cpu.py'), 'DD017');
    assert.ok(named.includes('criterion = nn.CrossEntropyLoss(weight=class_weights.to(device))'), named);
    const [inline] = fixedTexts(fixture('DD017/fire/bce_pos_weight_inline.py'), 'DD017');
    assert.ok(inline.includes('nn.BCEWithLogitsLoss(pos_weight=torch.tensor([4.0], device=device))'), inline);
    const [functional] = fixedTexts(fixture('DD017/fire/functional_weight_in_loop.py'), 'DD017');
    assert.ok(functional.includes('w = torch.tensor([0.5, 1.0, 2.0, 4.0], device=device)'), functional);
  });

  it('DD001 no longer reports what DD015–DD017 report (one finding per mistake)', () => {
    for (const name of ['DD015/fire/tagger_lstm_state_tuple.py', 'DD016/fire/sinusoidal_positional_encoding.py', 'DD017/fire/weighted_criterion_built_on_cpu.py']) {
      assert.deepEqual(coreFindings(fixture(name)).filter((f) => f.code === 'DD001'), [], name);
    }
  });
});
