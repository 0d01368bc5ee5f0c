// Each run works on its own copy of test/fixtures/workspace: tests edit and save files,
// and the repository's fixtures must stay as they are.
const fs = require('fs');
const os = require('os');
const path = require('path');
const { trackTempDir, removeTempDir } = require('./processes');

const ROOT = path.resolve(__dirname, '..', '..');
const FIXTURE_WORKSPACE = path.join(ROOT, 'test', 'fixtures', 'workspace');

function copyFixtureWorkspace(label) {
  const base = trackTempDir(fs.mkdtempSync(path.join(os.tmpdir(), `device-doctor-${label}-ws-`)));
  const workspace = path.join(base, 'workspace');
  fs.cpSync(FIXTURE_WORKSPACE, workspace, { recursive: true });
  return {
    path: workspace,
    /** The run's own folder beside the workspace, for request and result files. */
    runDir: base,
    remove: () => removeTempDir(base),
  };
}

module.exports = { copyFixtureWorkspace, FIXTURE_WORKSPACE };
