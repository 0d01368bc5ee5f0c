// Missing PyTorch as a new user meets it: deviceDoctor.pythonPath is not set, and the `python3`
// first on PATH has no torch (a wrapper that starts Debian's with -S, so its site-packages and
// torch are out of reach), so the extension's own lookup finds that one. The status bar says so
// in the warning colour, its click opens Choose Interpreter, which lists /usr/bin/python3 with
// its real torch; choosing it (workspace scope) says what was written where, and the status bar
// turns healthy.
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

describe('Choose Interpreter when the python3 on PATH has no PyTorch (trusted folder, no pythonPath)', function () {
  this.timeout(360_000);
  let session: Session;
  let folder: string;
  /** The torch-less python3 first on code-server's PATH. */
  let noTorch: string;

  before(async () => {
    for (const name of SCREENSHOTS) fs.rmSync(path.join(RESULTS_DIR, `${name}.png`), { force: true });
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'dd-e2e-notorch-'));
    const bin = path.join(folder, 'bin');
    fs.mkdirSync(bin);
    noTorch = path.join(bin, 'python3');
    fs.writeFileSync(noTorch, `#!/bin/sh\nexec ${REAL_PYTHON} -S "$@"\n`, { mode: 0o755 });
    session = await startSession({
      label: 'interpreter',
      trusted: true,
      // Unset: the extension picks the interpreter itself (no Python extension here: PATH).
      pythonPath: null,
      // VSCODE_CLI=1: the server keeps this PATH instead of a login shell's.
      env: { PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`, VSCODE_CLI: '1' },
    });
    assert.deepStrictEqual(readWorkspaceSettings(session.workspace), {}, 'deviceDoctor.pythonPath starts unset');
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await session?.saveArtifacts(`e2e-interpreter-${this.currentTest.title.replace(/\W+/g, '-')}`);
  });
  after(async () => {
    await session?.stop();
    fs.rmSync(folder, { recursive: true, force: true });
  });

  it('shows "No PyTorch in python3" in the warning colour, for the python3 it found on PATH', async () => {
    const wb = session.workbench;
    const item = wb.statusBarItem(STATUS_ITEM);
    await item.filter({ hasText: /No PyTorch in python3/ }).waitFor({ timeout: PROBE_TIMEOUT_MS });
    assert.match(await item.getAttribute('class') ?? '', /warning-kind/, 'the warning background');
    assert.match(await item.getAttribute('aria-label') ?? '', /No PyTorch in python3; click to choose an interpreter/);
    // The tooltip names the interpreter in use: the PATH one, not the setting (there is none).
    const tooltip = await (await wb.hover(item)).innerText();
    assert.ok(tooltip.includes(noTorch), `the tooltip names ${noTorch}:\n${tooltip}`);
    await closeHover(session);
    await wb.screenshot('10-no-pytorch-status-bar');
  });

  it('its click opens Choose Interpreter, listing /usr/bin/python3 with its torch', async () => {
    const wb = session.workbench;
    await wb.statusBarItem(STATUS_ITEM).click();
    const row = wb.quickPickRow(REAL_PYTHON);
    await row.waitFor({ timeout: PROBE_TIMEOUT_MS });
    const text = await row.innerText();
    assert.match(text, /torch 1\.\d+\.\d+\S* · CPU-only · no GPU here/, `the row: ${text}`);
    assert.match(text, /system interpreter/);
    // The PATH one in use is listed too, as having none (by its path: its label carries a check mark).
    const inUse = wb.page.locator('.quick-input-widget .monaco-list-row', { hasText: noTorch }).first();
    await inUse.waitFor({ timeout: 10_000 });
    const inUseText = await inUse.innerText();
    assert.match(inUseText, /no PyTorch/, `the row: ${inUseText}`);
    assert.match(inUseText, /on PATH · in use now/, `the row: ${inUseText}`);
    await wb.screenshot('11-choose-interpreter');
  });

  it('choosing it writes the workspace setting, says so, and the status bar turns healthy', async () => {
    const wb = session.workbench;
    await wb.chooseQuickPick(REAL_PYTHON);
    await wb.chooseQuickPick('Workspace');
    const notice = wb.notification(/set "deviceDoctor\.pythonPath" to \/usr\/bin\/python3 in the workspace settings/);
    await notice.waitFor({ timeout: 30_000 });
    const item = wb.statusBarItem(STATUS_ITEM);
    await item.filter({ hasText: /CPU · / }).waitFor({ timeout: PROBE_TIMEOUT_MS });
    assert.doesNotMatch(await item.getAttribute('class') ?? '', /warning-kind/);
    assert.strictEqual(readWorkspaceSettings(session.workspace)['deviceDoctor.pythonPath'], REAL_PYTHON);
    // The status bar item has the focus again once the picks close, and its hover would cover the toast.
    await closeHover(session);
    assert.ok(await notice.isVisible(), 'the notification is still shown beside the healthy status bar');
    await wb.screenshot('12-interpreter-chosen');
  });
});

function readWorkspaceSettings(workspace: string): Record<string, unknown> {
  return JSON.parse(fs.readFileSync(path.join(workspace, '.vscode', 'settings.json'), 'utf8')) as Record<string, unknown>;
}

/**
 * The mouse off the status bar and the focus in the (empty) editor group, so neither keeps the
 * item's hover open over what the screenshot should show. Not Escape: that hides the toasts too.
 */
async function closeHover(session: Session): Promise<void> {
  await session.workbench.parkMouse();
  await session.workbench.page.keyboard.press('Control+1');
  await session.workbench.page.locator('.monaco-hover:not(.hidden)').filter({ hasText: /\S/ }).first().waitFor({ state: 'hidden', timeout: 10_000 });
}
