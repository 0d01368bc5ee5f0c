#!/usr/bin/env node
// `npm run test:e2e`: what a person sees, in code-server driven by headless Chromium.
// Packages the extension, then runs test/e2e/*.e2e.ts with mocha; each scenario group
// starts its own code-server (test/e2e/session.ts). Screenshots land in test-results/.
// Options: --grep <pattern>; DEVICE_DOCTOR_KEEP_TMP=1 keeps temporary folders.
const fs = require('fs');
const path = require('path');
const { setup } = require('./setup-code-server');
const { packageExtension } = require('./lib/packaging');
const { printResults, step, RESULTS_DIR } = require('./lib/report');
const { trackTempDir, removeTempDir, killAllNow } = require('./lib/processes');
const { runMocha } = require('./lib/mochaRun');

const ROOT = path.resolve(__dirname, '..');
const E2E_DIR = path.join(ROOT, 'test', 'e2e');
const SCREENSHOTS = [
  '01-squiggle-hover', '02-quickfix-menu', '03-fixed-file', '04-restricted-mode', '05-discarded-to-fixed',
  '06-status-bar-tooltip', '07-device-report', '08-benchmark-panel', '09-benchmark-cancelled',
  '10-no-pytorch-status-bar', '11-choose-interpreter', '12-interpreter-chosen',
  '13-gpu-processes-report', '14-report-after-reload', '15-rule-doc-offline', '16-dd015-hover', '17-dd015-fixed',
  '18-topology-report', '19-collective-bandwidth', '20-benchmark-dtype-pick', '21-benchmark-sweep', '22-benchmark-sweep-cancelled',
];

function parseArgs(argv) {
  const grepAt = argv.indexOf('--grep');
  return { grep: grepAt >= 0 ? argv[grepAt + 1] : undefined };
}

function clearOldScreenshots() {
  // A screenshot left from an earlier run must not pass for one of this run.
  for (const name of SCREENSHOTS) fs.rmSync(path.join(RESULTS_DIR, `${name}.png`), { force: true });
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  let exitCode = 1;
  const buildDir = trackTempDir(path.join(ROOT, '.vscode-test', 'runs', `e2e-${process.pid}`));
  try {
    await step('setup code-server', () => setup());
    const packaged = await step('package the extension (npm run package)', () => packageExtension());
    fs.mkdirSync(buildDir, { recursive: true });
    const vsix = path.join(buildDir, path.basename(packaged));
    fs.copyFileSync(packaged, vsix);
    process.env.DEVICE_DOCTOR_E2E_VSIX = vsix;
    require('tsx/cjs'); // the scenarios are TypeScript
    clearOldScreenshots();
    const files = fs.readdirSync(E2E_DIR).filter((f) => f.endsWith('.e2e.ts')).sort().map((f) => path.join(E2E_DIR, f));
    const results = await step('run the scenarios', () => runMocha(files, { grep: options.grep, timeoutMs: 180_000 }));
    exitCode = printResults('e2e', results) ? 0 : 1;
  } catch (err) {
    process.stdout.write(`\ne2e suite could not run: ${err.message}\n\n0 passed, 1 failed\n`);
  } finally {
    removeTempDir(buildDir);
    killAllNow();
  }
  process.exit(exitCode);
}

main();
