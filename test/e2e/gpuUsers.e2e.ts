// Devices as a GPU user sees them, with a fake H200 (test/fixtures/bin/nvidia-h200-busy: memory
// and utilization that move every interval, and processes holding it, one of them the worker
// this window started): the device report's process table and sparklines, the report back after
// a window reload, and a rule's page opened from the extension itself (no network here).
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { Session, startSession } from './session';
import { RESULTS_DIR } from './workbench';

const FAKE_GPU_BIN = path.resolve(__dirname, '..', 'fixtures', 'bin', 'nvidia-h200-busy');
const SCREENSHOTS = ['13-gpu-processes-report', '14-report-after-reload', '15-rule-doc-offline'];
const DETECT_TIMEOUT_MS = 90_000;

describe('who uses the GPU, its history, and nothing lost on reload (fake H200)', function () {
  this.timeout(300_000);
  let session: Session;

  before(async () => {
    for (const name of SCREENSHOTS) fs.rmSync(path.join(RESULTS_DIR, `${name}.png`), { force: true });
    session = await startSession({
      label: 'gpu-users',
      trusted: true,
      pythonPath: '/usr/bin/python3',
      // VSCODE_CLI=1: the server then keeps this environment instead of reading a login shell's,
      // whose PATH would lose the fake nvidia-smi.
      env: { PATH: `${FAKE_GPU_BIN}${path.delimiter}${process.env.PATH ?? ''}`, VSCODE_CLI: '1' },
    });
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await session?.saveArtifacts(`e2e-gpu-users-${this.currentTest.title.replace(/\W+/g, '-')}`);
  });
  after(async () => {
    await session?.stop();
  });

  it('shows the processes holding the GPU, the window\'s own marked, and sparklines of the last minutes', async () => {
    const wb = session.workbench;
    await wb.statusBarItem('deviceDoctor.status').filter({ hasText: /GPU present|cuda:0/ }).waitFor({ timeout: DETECT_TIMEOUT_MS });
    await wb.runCommand('Device Doctor: Show Device Report');
    const report = await wb.webview('Device Report');
    const rows = report.locator('table.processes tbody tr');
    await rows.first().waitFor({ timeout: 60_000 });
    const texts = await rows.allInnerTexts();
    assert.strictEqual(texts.length, 3, texts.join('\n'));
    // A CPU-only PyTorch sees no CUDA device, so the GPU keeps its tool id, nvidia:0.
    assert.match(texts[0], /4194301\s+nvidia:0\s+88\.0 GiB\s+another container/);
    const mine = report.locator('table.processes tr.mine');
    assert.strictEqual(await mine.count(), 1);
    assert.match(await mine.innerText(), /nvidia:0\s+20\.0 GiB\s+\S+\s+.*dist\/worker\.js.*this window/s);
    // Several samples drawn: a line, not a dot, with the legend's latest values.
    // 'attached': a flat line (a steady 100 % CPU) has no height, which Playwright calls hidden.
    await report.locator('[data-history-id="nvidia:0"] polyline.spark-memory').waitFor({ state: 'attached', timeout: 30_000 });
    await report.locator('[data-history-id="cpu"] polyline.spark-utilization').waitFor({ state: 'attached', timeout: 30_000 });
    assert.match(await report.locator('[data-history-id="nvidia:0"] .spark-legend').innerText(), /memory \d+% utilization \d+%/);
    assert.match(await report.locator('main').innerText(), /\d+% utilization/, 'host CPU utilization is shown');
    await wb.screenshot('13-gpu-processes-report');
  });

  it('brings the device report and the benchmark results back after a window reload', async () => {
    const wb = session.workbench;
    // Show Benchmark Results opens the panel on the history; nothing runs.
    await wb.runCommand('Device Doctor: Show Benchmark Results');
    const bench = await wb.webview('Matmul Benchmark');
    assert.match(await bench.locator('main').innerText(), /No benchmark yet/);
    assert.strictEqual(await wb.notification(/Matmul benchmark/i).count(), 0, 'no benchmark was started');
    await wb.runCommand('Developer: Reload Window');
    await wb.page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    // Both tabs are back; only the active one's page is loaded, so each is shown in turn.
    const benchTab = wb.page.locator('.tab', { hasText: 'Matmul Benchmark' });
    const reportTab = wb.page.locator('.tab', { hasText: 'Device Report' });
    await benchTab.waitFor({ timeout: 60_000 });
    await reportTab.waitFor({ timeout: 60_000 });
    await benchTab.click();
    const restoredBench = await wb.webview('Matmul Benchmark', 60_000);
    await restoredBench.locator('main', { hasText: 'No benchmark yet' }).waitFor({ timeout: 30_000 });
    await reportTab.click();
    const report = await wb.webview('Device Report', 60_000);
    await report.locator('section h2', { hasText: 'Processes using the GPU' }).waitFor({ timeout: DETECT_TIMEOUT_MS });
    await report.locator('table.processes tbody tr').first().waitFor({ timeout: 60_000 });
    await wb.screenshot('14-report-after-reload');
  });

  it('opens a rule\'s bundled page in the Markdown preview from the diagnostic\'s code link', async () => {
    const wb = session.workbench;
    await wb.runCommand('View: Close All Editors');
    await wb.openFile('eval_numpy.py');
    const hover = await wb.hover(await wb.waitForSquiggle('error'));
    await hover.locator('a', { hasText: 'DD003' }).first().click();
    const preview = await wb.webview('DD003 numpy-on-accelerator', 30_000);
    assert.match(await preview.locator('body').innerText(), /What it finds/);
    await wb.page.locator('.tab.active', { hasText: 'Preview DD003.md' }).waitFor({ timeout: 10_000 });
    await wb.screenshot('15-rule-doc-offline');
  });

  it('opens any rule\'s page from Show Rule Documentation', async () => {
    const wb = session.workbench;
    // Nothing left loading behind the pick (the last test's preview) to take the focus from it.
    await wb.runCommand('View: Close All Editors');
    // Typed: the list shows only the first rules without scrolling.
    await wb.pickFromCommand('Device Doctor: Show Rule Documentation', 'Show Rule Documentation', 'DD010', 'DD010');
    const preview = await wb.webview('DD010 numpy-requires-grad', 30_000);
    assert.match(await preview.locator('body').innerText(), /requires grad|requires_grad/);
  });
});
