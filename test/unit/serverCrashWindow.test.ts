import * as assert from 'assert';
import { CRASH_WINDOW_MS, CrashWindow } from '../../src/vscode/analysis/crashWindow';

describe('server: restarting a crashed language server', () => {
  it('restarts after each of the first four crashes and gives up on the fifth within three minutes', () => {
    const window = new CrashWindow();
    const decisions = [0, 10_000, 20_000, 30_000, 40_000].map((t) => window.shouldRestart(t));
    assert.deepStrictEqual(decisions, [true, true, true, true, false]);
  });

  it('forgets crashes older than three minutes', () => {
    const window = new CrashWindow();
    for (const t of [0, 1000, 2000, 3000]) assert.ok(window.shouldRestart(t));
    assert.ok(window.shouldRestart(CRASH_WINDOW_MS + 1500), 'the crashes at 0 and 1 s are out of the window: 3 left');
    assert.ok(window.shouldRestart(CRASH_WINDOW_MS + 1600), '4 within three minutes');
    assert.ok(!window.shouldRestart(CRASH_WINDOW_MS + 1700), '5 within three minutes');
  });

  it('starts over after a manual restart', () => {
    const window = new CrashWindow();
    for (const t of [0, 1, 2, 3]) window.shouldRestart(t);
    window.reset();
    assert.ok(window.shouldRestart(4));
  });
});
