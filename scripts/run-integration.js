#!/usr/bin/env node
// `npm run test:integration`: runs test/integration inside a real VS Code (code-server).
// Packages the extension as users get it, installs it with the harness extension into a
// fresh code-server, opens the fixture workspace in headless Chromium (code-server starts
// an extension host only for a connected window), and waits for the harness's results.
// Options: --grep <pattern> runs matching tests only; DEVICE_DOCTOR_KEEP_TMP=1 keeps the
// temporary folders for inspection.
const fs = require('fs');
const path = require('path');
const { setup } = require('./setup-code-server');
const { buildIntegrationSuite } = require('./lib/buildSuite');
const { packageExtension, packageHarness } = require('./lib/packaging');
const { startCodeServer } = require('./lib/codeServer');
const { launchBrowser, openWorkbench } = require('./lib/browser');
const { copyFixtureWorkspace } = require('./lib/workspaceCopy');
const { trackTempDir } = require('./lib/processes');
const { printResults, saveFailureArtifacts, step } = require('./lib/report');

const HARNESS_START_TIMEOUT_MS = 120_000;
const SUITE_TIMEOUT_MS = Number(process.env.DEVICE_DOCTOR_INTEGRATION_TIMEOUT_MS || 15 * 60_000);

function parseArgs(argv) {
  const grepAt = argv.indexOf('--grep');
  return { grep: grepAt >= 0 ? argv[grepAt + 1] : undefined };
}

async function waitForFile(file, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  while (!fs.existsSync(file)) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function prepare(options) {
  await step('setup code-server', () => setup());
  const buildDir = trackTempDir(path.join(path.dirname(__dirname), '.vscode-test', 'runs', `integration-${process.pid}`));
  const suite = await step('compile the integration suite', () => buildIntegrationSuite(path.join(buildDir, 'suite')));
  const packaged = await step('package the extension (npm run package)', () => packageExtension());
  // Our own copy: another run's `npm run package` may replace the file while we install it.
  const extensionVsix = path.join(buildDir, path.basename(packaged));
  fs.copyFileSync(packaged, extensionVsix);
  const harnessVsix = await step('package the test harness', () => packageHarness(buildDir));
  const workspace = copyFixtureWorkspace('integration');
  const resultsFile = path.join(workspace.runDir, 'results.json');
  const requestFile = path.join(workspace.runDir, 'request.json');
  fs.writeFileSync(requestFile, JSON.stringify({ runner: suite.runner, results: resultsFile, grep: options.grep }));
  return { extensionVsix, harnessVsix, workspace, resultsFile, requestFile };
}

async function runInCodeServer(prepared, cleanup) {
  const server = await step('start code-server', () => startCodeServer({
    label: 'integration',
    vsixFiles: [prepared.extensionVsix, prepared.harnessVsix],
    env: { DEVICE_DOCTOR_TEST_REQUEST: prepared.requestFile },
  }));
  cleanup.push(() => server.stop());
  const browser = await step('launch Chromium', () => launchBrowser());
  cleanup.push(() => browser.close());
  const page = await step('open the workbench', () => openWorkbench(browser.browser, server.folderUrl(prepared.workspace.path)));
  try {
    await step('wait for the harness', () => waitForFile(`${prepared.resultsFile}.started`, HARNESS_START_TIMEOUT_MS,
      'the harness extension to activate (is it installed? see the code-server log)'));
    await step('run the suite', () => waitForFile(prepared.resultsFile, SUITE_TIMEOUT_MS, 'the suite to finish'));
    const results = JSON.parse(fs.readFileSync(prepared.resultsFile, 'utf8'));
    if (results.failures.length > 0) await saveFailureArtifacts('integration', { page, server });
    return results;
  } catch (err) {
    await saveFailureArtifacts('integration', { page, server });
    throw err;
  }
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const cleanup = [];
  let exitCode = 1;
  try {
    const prepared = await prepare(options);
    cleanup.push(() => prepared.workspace.remove());
    const results = await runInCodeServer(prepared, cleanup);
    exitCode = printResults('integration', results) ? 0 : 1;
  } catch (err) {
    process.stdout.write(`\nintegration suite could not run: ${err.message}\n\n0 passed, 1 failed\n`);
  } finally {
    for (const stop of cleanup.reverse()) await stop();
  }
  process.exit(exitCode);
}

main();
