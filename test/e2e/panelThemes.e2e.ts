// The three panels in the light and the dark theme (issue 28 item 10), for real: Debian's
// PyTorch on this CPU-only machine. Each panel is screenshotted in both themes, and what the
// issue found is checked on the page: no band under the title (the empty notice takes no
// height), the collective panel's Run and Export buttons, one primary button in the report.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { Session, startSession } from './session';
import { RESULTS_DIR } from './workbench';
import type { Frame } from 'playwright-core';

const DETECT_TIMEOUT_MS = 90_000;
const RUN_TIMEOUT_MS = 240_000;
const SCREENSHOTS = ['26-device-report', '27-benchmark-panel', '28-collective-panel'].flatMap((n) => [`${n}-light`, `${n}-dark`]);

/** The gap between the title's header and the first thing below it, in CSS pixels. */
async function bandUnderTitle(panel: Frame): Promise<number> {
  // A string, evaluated in the page: this file is compiled without the DOM's types.
  return panel.evaluate<number>('document.getElementById("notice")?.getBoundingClientRect().height ?? -1');
}

describe('the panels in light and dark themes (issue 28 item 10)', function () {
  this.timeout(900_000);
  let session: Session;

  before(async () => {
    // A screenshot left from an earlier run must not pass for one of this run.
    for (const name of SCREENSHOTS) fs.rmSync(path.join(RESULTS_DIR, `${name}.png`), { force: true });
    session = await startSession({ label: 'themes', trusted: true, pythonPath: '/usr/bin/python3' });
    await session.workbench.statusBarItem('deviceDoctor.status').filter({ hasText: /CPU · / }).waitFor({ timeout: DETECT_TIMEOUT_MS });
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await session?.saveArtifacts(`e2e-themes-${this.currentTest.title.replace(/\W+/g, '-')}`);
  });
  after(async () => {
    await session?.stop();
  });

  /**
   * Screenshots the panel in the session's light theme, then in the dark one (the webview's body
   * says which theme its colours are from: VS Code sets vscode-light / vscode-dark on it), and
   * switches back.
   */
  async function bothThemes(name: string, panel: Frame): Promise<void> {
    const wb = session.workbench;
    await panel.locator('body.vscode-light').waitFor({ timeout: 30_000 });
    await wb.screenshot(`${name}-light`);
    await wb.runCommand('Preferences: Toggle between Light/Dark Themes');
    await panel.locator('body.vscode-dark').waitFor({ timeout: 30_000 });
    // The palette fades out: not in the picture.
    await wb.page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 30_000 });
    await wb.screenshot(`${name}-dark`);
    await wb.runCommand('Preferences: Toggle between Light/Dark Themes');
    await panel.locator('body.vscode-light').waitFor({ timeout: 30_000 });
  }

  it('the device report: no band under the title, Detect Again the one primary button', async () => {
    const wb = session.workbench;
    await wb.runCommand('Device Doctor: Show Device Report');
    const report = await wb.webview('Device Report');
    await report.locator('section h2').first().waitFor({ timeout: 30_000 });
    assert.strictEqual(await bandUnderTitle(report), 0);
    await bothThemes('26-device-report', report);
  });

  it('the matmul benchmark panel after the default comparison', async () => {
    const wb = session.workbench;
    await wb.runCommand('View: Close All Editors');
    await wb.runCommand('Device Doctor: Run Matmul Benchmark');
    await wb.chooseQuickPick('Selected device vs CPU');
    await wb.chooseQuickPick('256');
    await wb.chooseQuickPick('float32');
    const panel = await wb.webview('Matmul Benchmark', RUN_TIMEOUT_MS);
    await panel.locator('table.runs tbody tr').nth(1).waitFor({ timeout: RUN_TIMEOUT_MS });
    assert.strictEqual(await bandUnderTitle(panel), 0);
    await bothThemes('27-benchmark-panel', panel);
  });

  it('the collective bandwidth panel with its Run and Export buttons', async () => {
    const wb = session.workbench;
    await wb.runCommand('View: Close All Editors');
    await wb.runCommand('Device Doctor: Run Matmul Benchmark');
    await wb.chooseQuickPick('Collective bandwidth');
    await wb.chooseQuickPick('All four');
    await wb.chooseQuickPick('1 MiB … 4 MiB');
    const panel = await wb.webview('Collective Bandwidth', 60_000);
    await panel.locator('svg.busbw-chart').waitFor({ timeout: RUN_TIMEOUT_MS });
    assert.deepStrictEqual(await panel.locator('#actions button').allInnerTexts(), ['Run Benchmark…', 'Export JSON…']);
    assert.strictEqual(await panel.locator('#actions button[disabled]').count(), 0, 'Export is enabled once a report is shown');
    await bothThemes('28-collective-panel', panel);
  });
});
