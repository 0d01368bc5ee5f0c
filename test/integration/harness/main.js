// The harness plays the part that @vscode/test-electron plays on a desktop VS Code: once
// the extension host is up, it loads the compiled integration suite's runner (which
// requires the real `vscode` module) and lets it write its results where the driving
// script (scripts/run-integration.js) waits for them. Without a run request it does nothing.
const fs = require('fs');

const REQUEST_ENV = 'DEVICE_DOCTOR_TEST_REQUEST';

function writeJson(file, value) {
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(value, null, 2));
  fs.renameSync(`${file}.tmp`, file); // the driver never reads a half-written file
}

async function runRequested(request) {
  try {
    const runner = require(request.runner);
    const results = await runner.runSuite(request);
    writeJson(request.results, results);
  } catch (err) {
    writeJson(request.results, {
      passes: [],
      failures: [{ fullTitle: 'integration harness', message: String(err && err.stack ? err.stack : err) }],
      pending: [],
    });
  }
}

function activate() {
  const requestFile = process.env[REQUEST_ENV];
  if (!requestFile || !fs.existsSync(requestFile)) return;
  const request = JSON.parse(fs.readFileSync(requestFile, 'utf8'));
  // A marker that the extension host picked the request up: the driver tells a harness that
  // never started apart from a suite that hangs.
  fs.writeFileSync(`${request.results}.started`, String(process.pid));
  setTimeout(() => void runRequested(request), 0);
}

function deactivate() {}

module.exports = { activate, deactivate };
