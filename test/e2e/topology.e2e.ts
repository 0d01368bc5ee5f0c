// The device report of a machine with four GPUs, faked by test/fixtures/bin/nvidia-four-a6000:
// four RTX A6000s whose nvidia-smi answers agree with each other (-L, --query-gpu, -q and
// `topo -m` name the same four boards), NVLink-bridged in pairs (0-1, 2-3) and the pairs behind
// PCIe switches. What a person sees: the Topology section's matrix, the NVLink cells marked, the
// NIC left out, each cell's meaning on hover.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { Session, startSession } from './session';
import { RESULTS_DIR } from './workbench';

const FAKE_GPU_BIN = path.resolve(__dirname, '..', 'fixtures', 'bin', 'nvidia-four-a6000');
const SCREENSHOT = '18-topology-report';
const DETECT_TIMEOUT_MS = 90_000;

describe('the topology of four GPUs in the device report (fake nvidia-smi)', function () {
  this.timeout(300_000);
  let session: Session;

  before(async () => {
    fs.rmSync(path.join(RESULTS_DIR, `${SCREENSHOT}.png`), { force: true });
    session = await startSession({
      label: 'topology',
      trusted: true,
      pythonPath: '/usr/bin/python3',
      // VSCODE_CLI=1: the server keeps this environment (and so the fake first on PATH).
      env: { PATH: `${FAKE_GPU_BIN}${path.delimiter}${process.env.PATH ?? ''}`, VSCODE_CLI: '1' },
    });
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await session?.saveArtifacts(`e2e-topology-${this.currentTest.title.replace(/\W+/g, '-')}`);
  });
  after(async () => {
    await session?.stop();
  });

  it('shows the GPU-by-GPU link matrix with the NVLink pairs marked and the affinity columns', async () => {
    const wb = session.workbench;
    await wb.statusBarItem('deviceDoctor.status').filter({ hasText: /GPU present|cuda:0/ }).waitFor({ timeout: DETECT_TIMEOUT_MS });
    await wb.runCommand('Device Doctor: Show Device Report');
    const report = await wb.webview('Device Report');
    const table = report.locator('table.topology');
    await table.waitFor({ timeout: DETECT_TIMEOUT_MS });
    const rows = await table.locator('tr').allInnerTexts();
    // A header and one row per GPU: the NIC in nvidia-smi's matrix is not a GPU.
    assert.strictEqual(rows.length, 5, rows.join('\n'));
    assert.match(rows[0], /GPU0\s+GPU1\s+GPU2\s+GPU3\s+CPU affinity\s+NUMA/);
    assert.match(rows[1], /GPU0\s+X\s+NV4\s+PXB\s+PXB\s+0-23\s+0/);
    assert.match(rows[3], /GPU2\s+PXB\s+PXB\s+X\s+NV4\s+0-23\s+0/);
    assert.doesNotMatch(rows.join('\n'), /NIC/);
    // The direct links, both directions of each NVLink pair, and nothing else.
    const direct = await table.locator('td.topo-direct').allInnerTexts();
    assert.deepStrictEqual(direct, ['NV4', 'NV4', 'NV4', 'NV4']);
    assert.match(await table.locator('td.topo-direct').first().getAttribute('title') ?? '', /GPU0 → GPU1: NVLink ×4/);
    const section = await report.locator('section', { has: table }).innerText();
    assert.match(section, /6 GPU pairs: 4 PCIe .*PXB.*, 2 NVLink ×4/);
    assert.match(section, /NV4: NVLink ×4/);
    // The accelerators above it are the same four boards.
    const boards = (await report.locator('main').innerText()).match(/NVIDIA RTX A6000/g) ?? [];
    assert.ok(boards.length >= 4, `the report names ${boards.length} A6000s`);
    // The four accelerator cards come first: bring the section up for the screenshot. The body
    // is swapped as samples arrive, so by the page's own scroll rather than a held element.
    await report.evaluate("document.querySelector('table.topology')?.closest('section')?.scrollIntoView({ block: 'start' })");
    await wb.page.waitForTimeout(300);
    await wb.screenshot(SCREENSHOT);
  });
});
