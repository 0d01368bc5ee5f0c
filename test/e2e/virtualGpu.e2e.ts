// Dry-Run on a Virtual GPU, as a person sees it: in a trusted folder the run's mistake appears
// in the Problems panel at the user's line (where the CPU tensor comes from), labelled as found
// by running, with the failing use and the runtime stack under it; in Restricted Mode the command is not offered at all (it runs the code).
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { Session, startSession } from './session';

const MODEL = `import torch.nn as nn


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)
`;

const TRAIN = `import torch
from dry_run_model import Head


def main():
    model = Head().to("cuda" if torch.cuda.is_available() else "cpu")
    batch = torch.randn(3, 4)
    return model(batch)


if __name__ == "__main__":
    main()
`;

const TITLE = 'Device Doctor: Dry-Run on a Virtual GPU';

describe('Dry-Run on a Virtual GPU (trusted folder, Debian PyTorch)', function () {
  this.timeout(240_000);
  let session: Session;

  before(async () => {
    session = await startSession({ label: 'virtual-gpu', trusted: true, pythonPath: '/usr/bin/python3' });
    fs.writeFileSync(path.join(session.workspace, 'dry_run_model.py'), MODEL);
    fs.writeFileSync(path.join(session.workspace, 'dry_run_train.py'), TRAIN);
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await session?.saveArtifacts('e2e-virtual-gpu');
  });
  after(async () => {
    await session?.stop();
  });

  it('shows the mistake at the line its CPU tensor comes from, labelled as found by running, with the failing use and its stack', async () => {
    const wb = session.workbench;
    await wb.openFile('dry_run_train.py');
    await wb.runCommand(TITLE);
    const rows = await wb.problems(/found by running on a virtual GPU/);
    const mistake = rows.find((r) => /found by running/.test(r));
    assert.ok(mistake, `Problems rows: ${rows.join(' | ')}`);
    assert.match(mistake, /Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!/);
    assert.match(mistake, /DD001/);
    assert.match(mistake, /the cpu tensor comes from this line/);
    assert.match(mistake, /\[Ln 7, Col 5\]/, 'at batch = torch.randn(3, 4) in dry_run_train.py');
    assert.ok(rows.some((r) => /it meets cuda:0 here, in forward/.test(r)), `where a GPU fails, under it: ${rows.join(' | ')}`);
    assert.ok(rows.some((r) => /called from main/.test(r)), `the stack under it: ${rows.join(' | ')}`);
    assert.ok(rows.some((r) => /called from <module>/.test(r)), `the stack under it: ${rows.join(' | ')}`);
    await wb.screenshot('23-virtual-gpu-run');
  });
});

describe('Dry-Run on a Virtual GPU in Restricted Mode', function () {
  this.timeout(180_000);
  let session: Session;

  before(async () => {
    session = await startSession({ label: 'virtual-gpu-restricted', trusted: false });
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await session?.saveArtifacts('e2e-virtual-gpu-restricted');
  });
  after(async () => {
    await session?.stop();
  });

  it('is absent from the Command Palette, where the other Device Doctor commands are offered', async () => {
    const wb = session.workbench;
    await wb.page.locator('.statusbar-item', { hasText: 'Restricted Mode' }).first().waitFor({ timeout: 30_000 });
    // The palette lists what is registered when it opens: wait for the extension to be running.
    await wb.statusBarItem('deviceDoctor.status').filter({ hasText: /CPU · / }).waitFor({ timeout: 60_000 });
    await wb.openFile('clean_train.py');
    await wb.page.keyboard.press('F1');
    const input = wb.page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible' });
    // Every Device Doctor command the palette offers here, and ours is not among them.
    await input.fill('>Device Doctor:');
    const rows = wb.page.locator('.quick-input-widget .quick-input-list .monaco-list-row');
    await rows.filter({ hasText: /Device Doctor: Detect Accelerators/ }).first().waitFor();
    const offered = (await rows.allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
    assert.ok(offered.length > 1, `palette rows: ${offered.join(' | ')}`);
    assert.ok(!offered.some((t) => /Dry-Run/.test(t)), `palette rows: ${offered.join(' | ')}`);
    await wb.screenshot('24-virtual-gpu-restricted');
    await wb.pressEscape();
    assert.ok(!session.fakePythonRan(), 'nothing was run');
  });
});
