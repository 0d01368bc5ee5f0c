// The .vsix files a test run installs: ours, built by the project's own `npm run package`
// (exactly what users get), and the integration-test harness, packaged from
// test/integration/harness into the run's own folder.
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const ROOT = path.resolve(__dirname, '..', '..');
const EXTENSION_VSIX = path.join(ROOT, 'device-doctor.vsix');
const HARNESS_SOURCE = path.join(ROOT, 'test', 'integration', 'harness');
const VSCE = path.join(ROOT, 'node_modules', '.bin', 'vsce');

function run(command, args, cwd) {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (result.status !== 0) {
    const output = `${result.stdout || ''}${result.stderr || ''}`.trim();
    throw new Error(`${command} ${args.join(' ')} failed (exit ${result.status}):\n${output}`);
  }
  return result.stdout;
}

/** Builds and packages the extension with `npm run package`; returns the .vsix path. */
function packageExtension() {
  fs.rmSync(EXTENSION_VSIX, { force: true });
  run('npm', ['run', 'package'], ROOT);
  if (!fs.existsSync(EXTENSION_VSIX)) {
    throw new Error(`npm run package succeeded but wrote no ${path.relative(ROOT, EXTENSION_VSIX)}`);
  }
  return EXTENSION_VSIX;
}

/** Packages the harness (no README/LICENSE of its own: it never ships). */
function packageHarness(outDir) {
  const vsix = path.join(outDir, 'device-doctor-test-harness.vsix');
  const staging = fs.mkdtempSync(path.join(os.tmpdir(), 'device-doctor-harness-'));
  try {
    for (const file of fs.readdirSync(HARNESS_SOURCE)) fs.copyFileSync(path.join(HARNESS_SOURCE, file), path.join(staging, file));
    fs.mkdirSync(outDir, { recursive: true });
    run(VSCE, ['package', '--no-dependencies', '--skip-license', '--allow-missing-repository', '--out', vsix], staging);
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
  return vsix;
}

module.exports = { packageExtension, packageHarness, EXTENSION_VSIX };
