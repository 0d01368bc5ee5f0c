import * as assert from 'assert';
import { initPythonParser } from '../../src/core/analysis';
import { addsSyntaxError, SyntaxCheck, syntaxErrorCount } from '../../src/core/python/fixCheck';

describe('core: a fix must not add a syntax error', () => {
  before(() => initPythonParser());

  it('counts no error in clean source, whatever its line breaks (a lone \\r ends a line)', () => {
    assert.strictEqual(syntaxErrorCount('x = f(a)\nif x:\n    y = 1\n'), 0);
    assert.strictEqual(syntaxErrorCount('x = f(a)\r\nif x:\r\n    y = 1\r\n'), 0);
    assert.strictEqual(syntaxErrorCount('x = f(a)\rif x:\r    y = 1\r'), 0);
    assert.ok(syntaxErrorCount('x = f(a\n') > 0);
  });

  it('refuses a fix that breaks clean source, and accepts one that keeps it clean', () => {
    assert.strictEqual(addsSyntaxError('t.numpy()\n', 't.cpu(.numpy()\n'), true);
    assert.strictEqual(addsSyntaxError('t.numpy()\n', 't.cpu().numpy()\n'), false);
    assert.strictEqual(addsSyntaxError('t.numpy()\r', 't.cpu().numpy()\r'), false);
  });

  it('judges source that already has an error by its count of errors', () => {
    const broken = 'def f(:\n    pass\nt.numpy()\n';
    assert.strictEqual(addsSyntaxError(broken, broken.replace('t.numpy()', 't.cpu().numpy()')), false);
    assert.strictEqual(addsSyntaxError(broken, broken.replace('t.numpy()', 't.numpy(')), true);
  });

  it('parses each text once however many candidates it is checked against', () => {
    const check = new SyntaxCheck();
    const before = 'a.numpy()\n';
    for (const after of ['a.cpu().numpy()\n', 'a.cpu(.numpy()\n', 'a.cpu().numpy()\n']) check.addsSyntaxError(before, after);
    assert.strictEqual((check as unknown as { counts: Map<string, number> }).counts.size, 3);
  });

  it('counts errors deep in nested code without recursing', () => {
    const deep = `${'('.repeat(3000)}x${')'.repeat(3000)}\n`;
    assert.strictEqual(syntaxErrorCount(deep), 0);
    assert.strictEqual(addsSyntaxError(deep, deep.slice(0, -2) + '\n'), true);
  });
});
