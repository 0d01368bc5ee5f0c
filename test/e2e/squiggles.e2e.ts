// A person's view of the core feature: a device mistake is underlined, counted in the
// Problems panel, explained on hover with a link to its rule, and fixed from Ctrl+.
import * as assert from 'assert';
import { CREATED_IN_FORWARD, DISCARDED_TO, MISMATCH, NUMPY_ON_ACCELERATOR } from '../integration/fixtureFindings';
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

  it('underlines DD015 on an LSTM\'s h0 made in forward (one squiggle: c0 is zeros_like(h0)), and its quick fix creates it on the input\'s device', async () => {
    const wb = session.workbench;
    await wb.pressEscape();
    await wb.openFile(CREATED_IN_FORWARD.file);
    const squiggle = await wb.waitForSquiggle('warning');
    const hover = await wb.hover(squiggle);
    const text = await hover.innerText();
    assert.match(text, /h0/, `the hover names h0:\n${text}`);
    assert.strictEqual(await hover.locator('a', { hasText: 'DD015' }).count(), 1, `the hover links DD015; hover text:\n${text}`);
    await wb.screenshot('16-dd015-hover');
    // One mistake, one finding: c0 = zeros_like(h0) is not reported again as a DD001 of its own.
    const rows = await wb.problems('DD015');
    assert.ok(!rows.some((r) => /c0\W+is on the CPU/.test(r)), `Problems rows: ${rows.join(' | ')}`);
    // As for DD004: the lightbulb is opened with the hover still up (closing it redraws the
    // overlays, and the squiggle can be briefly off screen).
    await squiggle.waitFor({ state: 'visible', timeout: 30_000 });
    const entries = await wb.quickFix(squiggle);
    assert.ok(entries.some((e) => /device=tokens\.device/.test(e)), `quick-fix menu: ${entries.join(' | ')}`);
    await wb.chooseQuickFix(/device=tokens\.device/);
    await wb.waitForText(CREATED_IN_FORWARD.findings[0].fixedLine);
    await wb.waitForNoSquiggle('warning');
    await wb.waitForNoProblem('DD015');
    await wb.screenshot('17-dd015-fixed');
  });
});
