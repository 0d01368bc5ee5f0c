// The one formatter of benchmark numbers: significant figures, never exponents.
import * as assert from 'assert';
import { percentText, significant } from '../../src/core/bench/numberText';

describe('benchmark numbers as text', () => {
  it('keeps three significant figures by default and drops trailing zeros', () => {
    assert.strictEqual(significant(6.3849), '6.38');
    assert.strictEqual(significant(1234.5), '1230');
    assert.strictEqual(significant(0.5), '0.5');
    assert.strictEqual(significant(0), '0');
  });

  it('writes values below 1e-6 in plain decimals with the same figures', () => {
    assert.strictEqual(significant(7.5e-7, 2), '0.00000075');
    assert.strictEqual(significant(1.23456e-9), '0.00000000123');
    assert.strictEqual(significant(-5e-7, 1), '-0.0000005');
  });

  it('rounds percentages to whole numbers from 10 % and to two figures below', () => {
    assert.strictEqual(percentText(49.4), '49 %');
    assert.strictEqual(percentText(0.5234), '0.52 %');
    assert.strictEqual(percentText(3e-7), '0.0000003 %');
  });
});
