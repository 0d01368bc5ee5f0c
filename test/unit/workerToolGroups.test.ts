// What the extension takes from the worker as a tool's process group, to kill should the
// worker die: only a real group id, since process.kill(-0) is our own group and -1 is every
// process the user owns.
import * as assert from 'assert';
import { toolGroupOf } from '../../src/vscode/worker/workerProcess';

const METHOD = 'deviceDoctor/toolGroup';

describe('worker tool groups: what the extension would kill', () => {
  it('takes a started or ended group with a real id', () => {
    assert.deepStrictEqual(toolGroupOf({ jsonrpc: '2.0', method: METHOD, params: { pgid: 4242, running: true } }), { pgid: 4242, running: true });
    assert.deepStrictEqual(toolGroupOf({ jsonrpc: '2.0', method: METHOD, params: { pgid: 4242, running: false } }), { pgid: 4242, running: false });
  });

  it('never takes 0, 1, a negative or fractional id, or its own pid, which would kill far more than a tool', () => {
    for (const pgid of [0, 1, -1, -4242, 2.5, Number.NaN, process.pid]) {
      assert.strictEqual(toolGroupOf({ jsonrpc: '2.0', method: METHOD, params: { pgid, running: true } }), undefined, String(pgid));
    }
  });

  it('ignores other messages and malformed params', () => {
    for (const message of [
      null,
      'text',
      { jsonrpc: '2.0', method: 'deviceDoctor/log', params: { pgid: 4242, running: true } },
      { jsonrpc: '2.0', method: METHOD },
      { jsonrpc: '2.0', method: METHOD, params: null },
      { jsonrpc: '2.0', method: METHOD, params: { pgid: '4242', running: true } },
      { jsonrpc: '2.0', method: METHOD, params: { pgid: 4242 } },
    ]) {
      assert.strictEqual(toolGroupOf(message), undefined, JSON.stringify(message));
    }
  });
});
