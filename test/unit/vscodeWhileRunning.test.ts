// Code actions asked while the language client stops (a window reload) are answered empty
// instead of failing into the extension host's log (issue 28 item 12).
import * as assert from 'assert';
import { whileRunning } from '../../src/vscode/analysis/whileRunning';

describe('language client: requests while it stops are answered, not failed', () => {
  it('a stopped client answers empty without sending the request', async () => {
    let sent = false;
    const answer = await whileRunning(() => false, () => false, () => { sent = true; return ['action']; }, []);
    assert.deepStrictEqual([answer, sent], [[], false]);
  });

  it('a request the closing connection rejects (the client stopped meanwhile) is answered empty', async () => {
    let running = true;
    const answer = await whileRunning(() => running, () => false, async () => {
      running = false;
      throw new Error('Pending response rejected since connection got disposed');
    }, []);
    assert.deepStrictEqual(answer, []);
  });

  it('a cancelled request that fails is answered empty; a failure of a running client still surfaces', async () => {
    assert.deepStrictEqual(await whileRunning(() => true, () => true, () => ['never asked'], []), []);
    await assert.rejects(whileRunning(() => true, () => false, async () => { throw new Error('server bug'); }, []), /server bug/);
    assert.deepStrictEqual(await whileRunning(() => true, () => false, async () => ['fix'], []), ['fix']);
  });
});
