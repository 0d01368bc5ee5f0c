// After a window reload the Matmul Benchmark panel shows the run that was on screen, not an
// older one (issue 28 item 9): two runs, the second finishing while the panel is behind another
// tab, then Developer: Reload Window as soon as the second shows, and the restored panel's shown
// run is the newest. Before the fix the page had not yet saved its state for the new run, and
// the older run came back (seen here, code-server 4.139.1).
import * as assert from 'assert';
import type { Frame } from 'playwright-core';
import { Session, startSession } from './session';

const REAL_PYTHON = '/usr/bin/python3';
/** A benchmark or a detection takes what it takes on a loaded machine: the test's own timeout bounds it. */
const UNTIL_IT_ARRIVES = 0;
const NO_DEADLINE = Number.POSITIVE_INFINITY;

async function historyDates(panel: Frame): Promise<string[]> {
  return panel.locator('table.history tbody tr td:first-child').allInnerTexts();
}

/**
 * The history row marked as shown (1-based), or 0. Read from the row's aria-current, not its
 * text: a webview frame that is not laid out yet (VS Code swaps in a new frame when the html is
 * set again) gives innerText without cell separators, "n = 512shown", and a word match misses it.
 */
async function shownRow(panel: Frame): Promise<number> {
  return panel.locator('table.history tbody tr').evaluateAll((rows) => rows.findIndex((r) => r.getAttribute('aria-current') === 'true') + 1);
}

async function runWasm(wb: Session['workbench'], size: string): Promise<void> {
  await wb.runCommand('Device Doctor: Run Matmul Benchmark');
  await wb.chooseQuickPick('One engine/device…');
  await wb.chooseQuickPick('wasm cpu');
  await wb.chooseQuickPick(size);
}

describe('benchmark panel after a window reload (trusted folder)', function () {
  this.timeout(300_000);
  let session: Session;

  before(async () => {
    session = await startSession({ label: 'bench-reload', trusted: true, pythonPath: REAL_PYTHON });
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await session?.saveArtifacts(`e2e-bench-reload-${this.currentTest.title.replace(/\W+/g, '-')}`);
  });
  after(async () => {
    await session?.stop();
  });

  it('shows the newest run again, also when it finished while the panel was behind another tab', async () => {
    const wb = session.workbench;
    await wb.statusBarItem('deviceDoctor.status').filter({ hasText: /CPU · / }).waitFor({ timeout: UNTIL_IT_ARRIVES });
    await runWasm(wb, '256');
    let panel = await wb.webview('Matmul Benchmark', NO_DEADLINE);
    await panel.locator('table.history tbody tr').first().waitFor({ timeout: UNTIL_IT_ARRIVES });
    assert.match(await panel.locator('.headline-context').innerText(), /n = 256/);

    // The panel goes behind a file's tab; the next run ends there and brings it forward.
    await wb.openFile('eval_numpy.py');
    await runWasm(wb, '512');
    panel = await wb.webview('Matmul Benchmark', NO_DEADLINE);
    await panel.locator('.headline-context', { hasText: 'n = 512' }).waitFor({ timeout: UNTIL_IT_ARRIVES });
    // Reloaded at once, as a user may: nothing else gives the page time to save its state.
    await wb.runCommand('Developer: Reload Window');
    await wb.page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    const tab = wb.page.locator('.tab', { hasText: 'Matmul Benchmark' });
    await tab.waitFor({ timeout: 60_000 });
    await tab.click();
    const restored = await wb.webview('Matmul Benchmark', 60_000);
    await restored.locator('table.history tbody tr').first().waitFor({ timeout: 60_000 });
    assert.strictEqual((await historyDates(restored)).length, 2, 'both runs are in the history after the reload');
    assert.strictEqual(await shownRow(restored), 1, 'the restored panel shows the newest run, the one on screen before the reload');
    assert.match(await restored.locator('.headline-context').innerText(), /n = 512/);
  });
});
