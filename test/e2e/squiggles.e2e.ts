// A person's view of the core feature: a device mistake is underlined, counted in the
// Problems panel, explained on hover with a link to its rule, and fixed from Ctrl+.
import * as assert from 'assert';
import { DISCARDED_TO, MISMATCH, NUMPY_ON_ACCELERATOR } from '../integration/fixtureFindings';
import { Session, startSession } from './session';

describe('squiggles and quick fixes (trusted folder)', function () {
  this.timeout(180_000);
  let session: Session;

  before(async () => {
    session = await startSession({ label: 'trusted', trusted: true });
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await session?.saveArtifacts(`e2e-trusted-${this.currentTest.title.replace(/\W+/g, '-')}`);
  });
  after(async () => {
    await session?.stop();
  });

  it('underlines a DD001 mistake, counts it in Problems and explains it on hover', async () => {
    const wb = session.workbench;
    await wb.openFile(MISMATCH.file);
    const squiggle = await wb.waitForSquiggle('warning');
    const rows = await wb.problems('DD001');
    assert.ok(rows.some((r) => r.includes('DD001') && r.includes('inputs')), `Problems rows: ${rows.join(' | ')}`);
    assert.strictEqual(await wb.problemsBadge(), 1, 'the Problems tab counts the one finding');
    const hover = await wb.hover(squiggle);
    const text = await hover.innerText();
    assert.match(text, /inputs/, 'the hover message names the variable');
    const ruleLink = hover.locator('a', { hasText: 'DD001' });
    assert.strictEqual(await ruleLink.count(), 1, `the hover links the rule code; hover text:\n${text}`);
    await wb.screenshot('01-squiggle-hover');
  });

  it('offers "Insert .cpu()" on a DD003 squiggle; choosing it fixes the line', async () => {
    const wb = session.workbench;
    await wb.pressEscape();
    await wb.openFile(NUMPY_ON_ACCELERATOR.file);
    const squiggle = await wb.waitForSquiggle('error');
    const entries = await wb.quickFix(squiggle);
    assert.ok(entries.some((e) => /\.cpu\(\)/.test(e)), `quick-fix menu: ${entries.join(' | ')}`);
    assert.ok(entries.some((e) => e.includes('Ignore DD003 on this line')), `quick-fix menu: ${entries.join(' | ')}`);
    await wb.screenshot('02-quickfix-menu');
    await wb.chooseQuickFix(/\.cpu\(\)/);
    await wb.waitForText(NUMPY_ON_ACCELERATOR.findings[0].fixedLine);
    await wb.waitForNoSquiggle('error');
    await wb.waitForNoProblem('DD003');
    await wb.screenshot('03-fixed-file');
  });

  it('assigns a discarded .to() result from the DD004 quick fix', async () => {
    const wb = session.workbench;
    await wb.pressEscape();
    await wb.openFile(DISCARDED_TO.file);
    const squiggle = await wb.waitForSquiggle('warning');
    assert.match(await (await wb.hover(squiggle)).innerText(), /batch/);
    await wb.quickFix(squiggle);
    await wb.chooseQuickFix(/batch = batch/);
    await wb.waitForText(DISCARDED_TO.findings[0].fixedLine);
    await wb.waitForNoSquiggle('warning');
    await wb.screenshot('05-discarded-to-fixed');
  });
});
