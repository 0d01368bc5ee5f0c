// The log after a window reload closed it: writes are dropped instead of throwing
// "Channel has been closed" into the extension host's log.
import * as assert from 'assert';
import { closedSafe } from '../../src/vscode/shared/closedSafeLog';

class FakeChannel {
  lines: string[] = [];
  private disposed = false;
  readonly name = 'Device Doctor';
  info(message: string): void {
    if (this.disposed) throw new Error('Channel has been closed');
    this.lines.push(`info ${message}`);
  }
  error(message: string): void {
    if (this.disposed) throw new Error('Channel has been closed');
    this.lines.push(`error ${message}`);
  }
  dispose(): void {
    this.disposed = true;
  }
}

describe('vscode: the log channel once closed', () => {
  it('writes through while open, and drops writes after dispose instead of throwing', () => {
    const channel = new FakeChannel();
    const log = closedSafe(channel);
    log.info('Device Doctor worker started (pid 42).');
    assert.strictEqual(log.name, 'Device Doctor');
    log.dispose();
    assert.doesNotThrow(() => log.info('Device Doctor worker stopped (exit code 0).'));
    assert.doesNotThrow(() => log.error('late'));
    assert.deepStrictEqual(channel.lines, ['info Device Doctor worker started (pid 42).']);
  });

  it('still lets a write fail while the channel is open', () => {
    const log = closedSafe({ info: () => { throw new Error('disk full'); }, dispose: () => undefined });
    assert.throws(() => log.info(), /disk full/);
  });
});
