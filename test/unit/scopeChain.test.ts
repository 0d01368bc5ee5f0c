// How a nested function reads names outside its body (env.ts ScopeChain): innermost scope
// first, a dotted key where it is bound, and never past a scope that rebinds its first name.
import * as assert from 'assert';
import { Env, ScopeChain } from '../../src/core/analysis/env';
import { CPU, value } from '../../src/core/analysis/values';

describe('ScopeChain: names a nested function reads from outside', () => {
  it('reads the enclosing function before the globals, and a global the enclosing one lacks', () => {
    const enclosing = new Env();
    const globals = new Env();
    enclosing.set('model', value('module', CPU));
    globals.set('model', value('tensor', CPU));
    globals.set('device', value('device', CPU));
    const chain = new ScopeChain([enclosing, globals]);
    assert.strictEqual(chain.get('model')?.kind, 'module');
    assert.strictEqual(chain.get('device')?.kind, 'device');
    assert.strictEqual(chain.get('missing'), undefined);
  });

  it('reads `args.cuda` where an enclosing function set it on a global object, and no `net.fc` past a scope that rebinds `net`', () => {
    const enclosing = new Env();
    const globals = new Env();
    globals.set('args', value('other', CPU));
    enclosing.set('args.cuda', value('other', CPU, { truth: true }));
    enclosing.set('net', value('module', CPU));
    globals.set('net', value('module', CPU));
    globals.set('net.fc', value('module', CPU));
    const chain = new ScopeChain([enclosing, globals]);
    assert.strictEqual(chain.get('args.cuda')?.truth, true);
    assert.strictEqual(chain.get('net.fc'), undefined);
  });

  it('drops another function\'s parameter mark where asked, and cannot be bound into', () => {
    const enclosing = new Env();
    enclosing.set('model', { ...value('module', CPU), param: 'model' });
    assert.strictEqual(new ScopeChain([enclosing], false).get('model')?.param, undefined);
    assert.strictEqual(new ScopeChain([enclosing]).get('model')?.param, 'model');
    assert.throws(() => new ScopeChain([enclosing]).set(), /read-only/);
  });
});
