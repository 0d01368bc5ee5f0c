// The scenario API of the e2e suite: what a person does in the workbench, as short verbs
// over a Playwright page (open a file, wait for a squiggle, hover it, open the quick-fix
// menu, take a screenshot). A new scenario is a few lines of these.
import * as fs from 'fs';
import * as path from 'path';
import type { Frame, Locator, Page } from 'playwright-core';

export type Severity = 'error' | 'warning';

export const RESULTS_DIR = path.resolve(__dirname, '..', '..', 'test-results');
const UI_TIMEOUT_MS = 30_000;
/** How long an open Command Palette may lack an entry before it is opened again (its list is fixed when it opens). */
const PALETTE_REOPEN_MS = 5_000;
const QUICK_PICK_ROWS = '.quick-input-widget .quick-input-list .monaco-list-row';

/** A row's text runs label, description and detail together: the label is its start. */
function labelPattern(label: string): RegExp {
  return new RegExp(`^\\s*${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`);
}

/** A line of editor text as the DOM renders it (non-breaking spaces for indentation). */
function normalize(text: string): string {
  return text.replace(/\u00a0/g, ' ');
}

export class Workbench {
  constructor(readonly page: Page) {}

  /** Opens a workspace file through Quick Open, as a person would (Ctrl+P, name, Enter). */
  async openFile(relativePath: string): Promise<void> {
    await this.page.keyboard.press('Control+P');
    const input = this.page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    await input.fill(relativePath);
    const name = path.basename(relativePath);
    await this.page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first().waitFor({ timeout: UI_TIMEOUT_MS });
    await this.page.keyboard.press('Enter');
    await this.page.locator('.tab.active', { hasText: name }).waitFor({ timeout: UI_TIMEOUT_MS });
    await this.editor().locator('.view-lines').waitFor({ timeout: UI_TIMEOUT_MS });
  }

  /** The active text editor. */
  editor(): Locator {
    return this.page.locator('.editor-group-container.active .monaco-editor').first();
  }

  squiggles(severity: Severity): Locator {
    return this.editor().locator(`.view-overlays .squiggly-${severity}`);
  }

  /** Waits for the first squiggle of `severity` (the language server answers after a debounce). */
  async waitForSquiggle(severity: Severity, timeoutMs = UI_TIMEOUT_MS): Promise<Locator> {
    const squiggle = this.squiggles(severity).first();
    await squiggle.waitFor({ state: 'attached', timeout: timeoutMs });
    return squiggle;
  }

  async waitForNoSquiggle(severity: Severity, timeoutMs = UI_TIMEOUT_MS): Promise<void> {
    await this.squiggles(severity).first().waitFor({ state: 'detached', timeout: timeoutMs });
  }

  private async centerOf(target: Locator): Promise<{ x: number; y: number }> {
    const box = await target.boundingBox();
    if (!box) throw new Error('the squiggle is not on screen');
    return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  }

  /** Rests the mouse on `target` and returns the hover widget once it shows. */
  async hover(target: Locator): Promise<Locator> {
    const { x, y } = await this.centerOf(target);
    await this.page.mouse.move(x - 2, y);
    await this.page.mouse.move(x, y);
    const hover = this.page.locator('.monaco-hover:not(.hidden)').filter({ hasText: /\S/ }).first();
    await hover.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    return hover;
  }

  /**
   * Puts the cursor on `target` and opens the quick-fix menu (Ctrl+.); returns its entries.
   * On a busy machine the first Ctrl+. can come before the code actions are known, and the
   * editor then shows no menu at all: asked again until it shows or the time is up.
   */
  async quickFix(target: Locator): Promise<string[]> {
    const { x, y } = await this.centerOf(target);
    await this.page.mouse.click(x, y);
    const rows = this.quickFixRows();
    const deadline = Date.now() + UI_TIMEOUT_MS;
    for (;;) {
      await this.page.keyboard.press('Control+Period');
      try {
        await rows.first().waitFor({ state: 'visible', timeout: Math.max(1_000, Math.min(PALETTE_REOPEN_MS, deadline - Date.now())) });
        break;
      } catch (error) {
        if (Date.now() >= deadline) throw new Error(`no quick-fix menu within ${UI_TIMEOUT_MS} ms`, { cause: error });
        await this.page.keyboard.press('Escape');
        await this.page.mouse.click(x, y);
      }
    }
    return (await rows.allInnerTexts()).map((t) => t.trim()).filter((t) => t.length > 0);
  }

  private quickFixRows(): Locator {
    return this.page.locator('.action-widget .monaco-list-row.action');
  }

  /** Chooses the quick-fix menu entry whose label matches. */
  async chooseQuickFix(label: RegExp): Promise<void> {
    await this.quickFixRows().filter({ hasText: label }).first().click();
    await this.quickFixRows().first().waitFor({ state: 'hidden', timeout: UI_TIMEOUT_MS });
  }

  /** The active editor's text (small files: every line is rendered). */
  async editorText(): Promise<string> {
    const lines = await this.editor().locator('.view-lines .view-line').evaluateAll((nodes) =>
      nodes
        .map((n) => ({ top: parseFloat((n as { style?: { top?: string } }).style?.top || '0'), text: n.textContent ?? '' }))
        .sort((a, b) => a.top - b.top)
        .map((l) => l.text));
    return lines.map(normalize).join('\n');
  }

  async waitForText(expected: string, timeoutMs = UI_TIMEOUT_MS): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await this.editorText()).includes(expected)) {
      if (Date.now() > deadline) throw new Error(`the editor never showed "${expected}"; it shows:\n${await this.editorText()}`);
      await this.page.waitForTimeout(200);
    }
  }

  /** Opens the Problems panel (Ctrl+Shift+M) and returns the text of its rows. */
  async problems(expectedText: string | RegExp): Promise<string[]> {
    await this.page.keyboard.press('Control+Shift+M');
    const rows = this.page.locator('.markers-panel .monaco-list-row');
    await rows.filter({ hasText: expectedText }).first().waitFor({ timeout: UI_TIMEOUT_MS });
    return (await rows.allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
  }

  /** Waits until no row of the Problems panel matches (the finding was fixed). */
  async waitForNoProblem(text: string | RegExp, timeoutMs = UI_TIMEOUT_MS): Promise<void> {
    const rows = this.page.locator('.markers-panel .monaco-list-row').filter({ hasText: text });
    await rows.first().waitFor({ state: 'detached', timeout: timeoutMs });
  }

  /** The count the Problems panel shows on its tab. */
  async problemsBadge(): Promise<number> {
    const badge = this.page.locator('.composite-bar .action-item', { hasText: 'Problems' }).locator('.badge-content');
    await badge.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    return Number((await badge.innerText()).trim());
  }

  async pressEscape(): Promise<void> {
    await this.page.keyboard.press('Escape');
  }

  /**
   * Moves the mouse to the empty title bar. Left on the status bar item (clicked by an earlier
   * step), it keeps that item's hover open over the notifications, whose buttons it then
   * covers (seen in CI once quick picks were chosen with the keys and the mouse stayed put).
   */
  async parkMouse(): Promise<void> {
    await this.page.mouse.move(1150, 8);
  }

  /** Runs a command from the Command Palette (F1), by its title as the palette shows it. */
  /**
   * Runs a command from the Command Palette. The palette lists the commands enabled when it
   * opens and does not update while open: a command whose enablement (`isWorkspaceTrusted`, a
   * context key the extension sets on activation) turns true a moment later never appears in
   * it. So a palette without the command is closed and opened again until the deadline.
   */
  async runCommand(title: string, timeoutMs = UI_TIMEOUT_MS): Promise<void> {
    await this.parkMouse();
    const deadline = Date.now() + timeoutMs;
    const input = this.page.locator('.quick-input-widget input');
    for (;;) {
      await this.page.keyboard.press('F1');
      await input.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
      await input.fill(`>${title}`);
      const left = deadline - Date.now();
      try {
        await this.quickPickRow(title).waitFor({ timeout: Math.max(1_000, Math.min(PALETTE_REOPEN_MS, left)) });
        break;
      } catch (error) {
        if (Date.now() >= deadline) {
          throw new Error(`no Command Palette entry "${title}" within ${timeoutMs} ms; the window shows ${await this.quickInputState()}`, { cause: error });
        }
        await this.page.keyboard.press('Escape');
        await input.waitFor({ state: 'hidden', timeout: UI_TIMEOUT_MS });
      }
    }
    await this.page.keyboard.press('Enter');
  }

  /**
   * Runs a command that opens its own quick pick titled `pickTitle`, types `filter` and chooses
   * the row starting `label`. A quick pick closes when the window's focus moves (a webview that
   * finishes loading takes it; seen twice in CI as "element is inert", then "not visible"), so
   * a pick that closes before the choice is opened again, until the deadline.
   */
  async pickFromCommand(command: string, pickTitle: string, filter: string, label: string, timeoutMs = 2 * UI_TIMEOUT_MS): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const input = this.page.locator('.quick-input-widget input').first();
    for (;;) {
      try {
        await this.runCommand(command);
        await this.page.locator('.quick-input-widget .quick-input-title', { hasText: pickTitle }).waitFor({ timeout: PALETTE_REOPEN_MS });
        await input.fill(filter, { timeout: PALETTE_REOPEN_MS });
        await this.chooseQuickPick(label, PALETTE_REOPEN_MS);
        return;
      } catch (error) {
        if (Date.now() >= deadline) {
          throw new Error(`could not choose "${label}" from ${command} within ${timeoutMs} ms; the window shows ${await this.quickInputState()}`, { cause: error });
        }
        if (await this.page.locator('.quick-input-widget').isVisible()) await this.pressEscape();
      }
    }
  }

  /** The quick pick's row whose label starts with `label`. */
  quickPickRow(label: string): Locator {
    return this.page.locator(QUICK_PICK_ROWS, { hasText: labelPattern(label) }).first();
  }

  /**
   * Chooses an entry of the open quick pick (waiting for it: items may load from the extension).
   * With the keys a user would press, not the mouse: a click aimed at a row can land after that
   * pick has closed, on the smaller pick that replaced it, and outside a pick closes it (seen in
   * CI under load). Keys go to the pick's input box in order, however slow the window is.
   */
  async chooseQuickPick(label: string, timeoutMs = UI_TIMEOUT_MS): Promise<void> {
    await this.parkMouse();
    const deadline = Date.now() + timeoutMs;
    try {
      await this.quickPickRow(label).waitFor({ timeout: timeoutMs });
    } catch (error) {
      throw new Error(`no quick pick row starting "${label}" within ${timeoutMs} ms; the window shows ${await this.quickInputState()}`, { cause: error });
    }
    const input = this.page.locator('.quick-input-widget input').first();
    const wanted = labelPattern(label);
    let previous: string | null = null;
    while (Date.now() < deadline) {
      // Keys go to the pick (not an editor behind it) even if something took the focus.
      await input.focus({ timeout: UI_TIMEOUT_MS });
      const focused = await this.focusedQuickPickRow();
      if (focused !== null && wanted.test(focused)) {
        await this.page.keyboard.press('Enter');
        return;
      }
      if (focused === null || focused !== previous) {
        previous = focused;
        await this.page.keyboard.press('ArrowDown');
      }
      await this.page.waitForTimeout(focused === previous ? 100 : 0);
    }
    throw new Error(`the quick pick never focused a row starting "${label}"; it focuses "${await this.focusedQuickPickRow()}"`);
  }

  /** What the quick input shows now, for a failure's message: whether it is open, its title, placeholder and rows. */
  async quickInputState(): Promise<string> {
    const widget = this.page.locator('.quick-input-widget');
    if (!(await widget.isVisible())) return 'no quick pick (it closed, or never opened)';
    const title = (await widget.locator('.quick-input-title').allInnerTexts()).join(' ').trim();
    const placeholder = await widget.locator('input').first().getAttribute('placeholder');
    const rows = await this.page.locator(QUICK_PICK_ROWS).allInnerTexts();
    return `the quick pick "${title}" (placeholder "${placeholder ?? ''}") with rows ${JSON.stringify(rows.map((r) => r.replace(/\s+/g, ' ').trim()))}`;
  }

  /** The text of the quick pick's focused row, or null when none is focused. */
  private async focusedQuickPickRow(): Promise<string | null> {
    const row = this.page.locator(`${QUICK_PICK_ROWS}.focused`);
    // The pick may close between the count and the read: a bounded read, not a wait for ever.
    return (await row.count()) > 0 ? row.first().innerText({ timeout: UI_TIMEOUT_MS }).catch(() => null) : null;
  }

  /** A status bar item by the id its extension gave it (the DOM id is `<extension id>.<item id>`). */
  statusBarItem(itemId: string): Locator {
    return this.page.locator(`.statusbar-item[id$=".${itemId}"]`).first();
  }

  /** The notification toast whose text matches. */
  notification(text: string | RegExp): Locator {
    return this.page.locator('.notifications-toasts .notification-toast', { hasText: text }).first();
  }

  /** The document inside the webview whose page has this <h1> (webviews sit in nested iframes). */
  async webview(heading: string, timeoutMs = UI_TIMEOUT_MS): Promise<Frame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      for (const frame of this.page.frames()) {
        const found = await frame.locator('h1', { hasText: heading }).count().catch(() => 0);
        if (found > 0) return frame;
      }
      if (Date.now() > deadline) throw new Error(`no webview with the heading "${heading}" appeared`);
      await this.page.waitForTimeout(250);
    }
  }

  /** Saves a screenshot as test-results/<name>.png and returns its path. */
  async screenshot(name: string): Promise<string> {
    fs.mkdirSync(RESULTS_DIR, { recursive: true });
    const file = path.join(RESULTS_DIR, `${name}.png`);
    await this.page.screenshot({ path: file });
    return file;
  }
}
