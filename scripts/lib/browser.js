// Debian's Chromium driven by playwright-core, headless, with the flags that work on
// these machines (TESTING.md). The browser's process group is tracked like code-server's.
const { chromium } = require('playwright-core');
const { paths } = require('../setup-code-server');
const { trackGroup, stopGroup } = require('./processes');

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

async function launchBrowser() {
  const browser = await chromium.launch({
    executablePath: paths.chromium,
    args: CHROMIUM_ARGS,
    headless: true,
  });
  const pid = browser.process && browser.process() ? browser.process().pid : undefined;
  if (pid) trackGroup(pid);
  return {
    browser,
    async close() {
      await browser.close().catch(() => undefined);
      if (pid) await stopGroup(pid, 1000);
    },
  };
}

/** Opens the workbench on `url` and waits until VS Code has rendered it. */
async function openWorkbench(browser, url, { width = 1400, height = 900 } = {}) {
  const context = await browser.newContext({ viewport: { width, height } });
  const page = await context.newPage();
  await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 60_000 });
  await page.waitForSelector('.monaco-workbench', { timeout: 90_000 });
  return page;
}

module.exports = { launchBrowser, openWorkbench, CHROMIUM_ARGS };
