// An untrusted folder opens in Restricted Mode: analysis still works (it runs no code), and
// nothing the workspace's settings name is ever executed.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { execFileSync } from 'child_process';
import { FAKE_PYTHON, NUMPY_ON_ACCELERATOR } from '../integration/fixtureFindings';
import { Session, startSession } from './session';

/** Proves the fake interpreter leaves its marker when run, so "no marker" means "never run". */
function assertFakePythonLeavesMarker(workspace: string): void {
  const marker = path.join(workspace, FAKE_PYTHON.marker);
  try {
    execFileSync(path.join(workspace, FAKE_PYTHON.script), ['--version'], { stdio: 'ignore' });
  } catch {
    // it exits 1 on purpose, like a broken interpreter
  }
  assert.ok(fs.existsSync(marker), 'fixture problem: tools/fake-python did not write its marker');
  fs.rmSync(marker);
}

describe('Restricted Mode (untrusted folder)', function () {
  this.timeout(180_000);
  let session: Session;

  before(async () => {
    session = await startSession({ label: 'restricted', trusted: false });
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await session?.saveArtifacts('e2e-restricted');
  });
  after(async () => {
    await session?.stop();
  });

  it('shows diagnostics and never runs the interpreter a workspace setting names', async () => {
    assertFakePythonLeavesMarker(session.workspace);
    const wb = session.workbench;
    await wb.page.locator('.statusbar-item', { hasText: 'Restricted Mode' }).first().waitFor({ timeout: 30_000 });
    await wb.openFile(NUMPY_ON_ACCELERATOR.file);
    await wb.waitForSquiggle('error');
    const rows = await wb.problems('DD003');
    assert.ok(rows.some((r) => r.includes('DD003')), `Problems rows: ${rows.join(' | ')}`);
    // Give anything that would start a process time to do it before looking.
    await wb.page.waitForTimeout(3000);
    await wb.screenshot('04-restricted-mode');
    assert.ok(!session.fakePythonRan(), `${FAKE_PYTHON.script} (deviceDoctor.pythonPath) was executed in Restricted Mode`);
  });
});
