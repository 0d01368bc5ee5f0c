// Collective bandwidth from the editor, for real: Debian's PyTorch on this CPU-only machine,
// so Run Matmul Benchmark offers 2 CPU ranks over gloo; all four collectives from 1 to 4 MiB
// run as torch.distributed ranks the worker starts, and the Collective Bandwidth panel shows
// the bus bandwidth against size and the checked table.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { Session, startSession } from './session';
import { RESULTS_DIR } from './workbench';

const SCREENSHOT = '19-collective-bandwidth';
const DETECT_TIMEOUT_MS = 90_000;
const RUN_TIMEOUT_MS = 150_000;

describe('collective bandwidth from Run Matmul Benchmark (gloo, 2 CPU ranks)', function () {
  this.timeout(360_000);
  let session: Session;

  before(async () => {
    fs.rmSync(path.join(RESULTS_DIR, `${SCREENSHOT}.png`), { force: true });
    session = await startSession({ label: 'collectives', trusted: true, pythonPath: '/usr/bin/python3' });
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await session?.saveArtifacts(`e2e-collectives-${this.currentTest.title.replace(/\W+/g, '-')}`);
  });
  after(async () => {
    await session?.stop();
  });

  it('runs all four collectives over gloo and charts bus bandwidth against size, every result checked', async () => {
    const wb = session.workbench;
    // The choice needs the device report's PyTorch: wait for the detection.
    await wb.statusBarItem('deviceDoctor.status').filter({ hasText: /CPU · / }).waitFor({ timeout: DETECT_TIMEOUT_MS });
    await wb.runCommand('Device Doctor: Run Matmul Benchmark');
    const offered = wb.page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Collective bandwidth' });
    await offered.waitFor({ timeout: 30_000 });
    assert.match(await offered.innerText(), /2 CPU processes over gloo/);
    await wb.chooseQuickPick('Collective bandwidth');
    await wb.chooseQuickPick('All four');
    await wb.chooseQuickPick('1 MiB … 4 MiB');
    const panel = await wb.webview('Collective Bandwidth', 60_000);
    const chart = panel.locator('svg.busbw-chart');
    await chart.waitFor({ timeout: RUN_TIMEOUT_MS });
    assert.strictEqual(await chart.locator('polyline').count(), 4, 'one line per collective');
    assert.strictEqual(await chart.locator('circle').count(), 12, 'four collectives at 1, 2 and 4 MiB');
    const rows = await panel.locator('table.collectives tr').allInnerTexts();
    assert.strictEqual(rows.length, 13, rows.join('\n'));
    for (const row of rows.slice(1)) assert.match(row, /^(all-reduce|all-gather|broadcast|send-recv)\s+[124] MiB\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+checked$/, row);
    assert.match(await panel.locator('main').innerText(), /gloo on 2 CPU processes, started by device-doctor/);
    await wb.screenshot(SCREENSHOT);
  });
});
