// Missing PyTorch as a person sees it: deviceDoctor.pythonPath names a Python without torch
// (Debian's, started with -S so its site-packages and torch are out of reach), the status bar
// says so in the warning colour, its click opens Choose Interpreter, which lists
// /usr/bin/python3 with its real torch; choosing it (workspace scope) says what was written
// where, and the status bar turns healthy.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Session, startSession } from './session';
import { RESULTS_DIR } from './workbench';

const REAL_PYTHON = '/usr/bin/python3';
const STATUS_ITEM = 'deviceDoctor.status';
const SCREENSHOTS = ['10-no-pytorch-status-bar', '11-choose-interpreter', '12-interpreter-chosen'];
/** Each probe imports torch (seconds on 2 cores); discovery probes every interpreter found. */
const PROBE_TIMEOUT_MS = 120_000;

describe('Choose Interpreter when the configured Python has no PyTorch (trusted folder)', function () {
  this.timeout(360_000);
  let session: Session;
  let folder: string;

  before(async () => {
    for (const name of SCREENSHOTS) fs.rmSync(path.join(RESULTS_DIR, `${name}.png`), { force: true });
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'dd-e2e-notorch-'));
    const noTorch = path.join(folder, 'python3');
    fs.writeFileSync(noTorch, `#!/bin/sh\nexec ${REAL_PYTHON} -S "$@"\n`, { mode: 0o755 });
    session = await startSession({ label: 'interpreter', trusted: true, pythonPath: noTorch });
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await session?.saveArtifacts(`e2e-interpreter-${this.currentTest.title.replace(/\W+/g, '-')}`);
  });
  after(async () => {
    await session?.stop();
    fs.rmSync(folder, { recursive: true, force: true });
  });

  it('shows "No PyTorch in python3" in the warning colour', async () => {
    const item = session.workbench.statusBarItem(STATUS_ITEM);
    await item.filter({ hasText: /No PyTorch in python3/ }).waitFor({ timeout: PROBE_TIMEOUT_MS });
    assert.match(await item.getAttribute('class') ?? '', /warning-kind/, 'the warning background');
    assert.match(await item.getAttribute('aria-label') ?? '', /No PyTorch in python3; click to choose an interpreter/);
    await session.workbench.screenshot('10-no-pytorch-status-bar');
  });

  it('its click opens Choose Interpreter, listing /usr/bin/python3 with its torch', async () => {
    const wb = session.workbench;
    await wb.statusBarItem(STATUS_ITEM).click();
    const row = wb.quickPickRow(REAL_PYTHON);
    await row.waitFor({ timeout: PROBE_TIMEOUT_MS });
    const text = await row.innerText();
    assert.match(text, /torch 1\.\d+\.\d+\S* · CPU-only · no GPU here/, `the row: ${text}`);
    assert.match(text, /system interpreter/);
    assert.match(await wb.page.locator('.quick-input-widget').innerText(), /no PyTorch/, 'the configured one is listed as having none');
    await wb.screenshot('11-choose-interpreter');
  });

  it('choosing it writes the workspace setting, says so, and the status bar turns healthy', async () => {
    const wb = session.workbench;
    await wb.chooseQuickPick(REAL_PYTHON);
    await wb.chooseQuickPick('Workspace');
    await wb.notification(/set "deviceDoctor\.pythonPath" to \/usr\/bin\/python3 in the workspace settings/).waitFor({ timeout: 30_000 });
    const item = wb.statusBarItem(STATUS_ITEM);
    await item.filter({ hasText: /CPU · / }).waitFor({ timeout: PROBE_TIMEOUT_MS });
    assert.doesNotMatch(await item.getAttribute('class') ?? '', /warning-kind/);
    const settings = JSON.parse(fs.readFileSync(path.join(session.workspace, '.vscode', 'settings.json'), 'utf8')) as Record<string, unknown>;
    assert.strictEqual(settings['deviceDoctor.pythonPath'], REAL_PYTHON);
    await wb.screenshot('12-interpreter-chosen');
  });
});
