// Console output of the test drivers: timed steps, a mocha-style summary that always ends
// with the line `N passed, N failed`, and the artifacts CI keeps when something fails
// (a screenshot, code-server's log and the extension hosts' logs under test-results/).
const fs = require('fs');
const path = require('path');

const ROOT = path.resolve(__dirname, '..', '..');
const RESULTS_DIR = path.join(ROOT, 'test-results');

async function step(name, action) {
  const started = Date.now();
  process.stderr.write(`• ${name} …\n`);
  const value = await action();
  process.stderr.write(`  ${name}: ${((Date.now() - started) / 1000).toFixed(1)}s\n`);
  return value;
}

function indent(text, prefix) {
  return String(text).split('\n').map((l) => prefix + l).join('\n');
}

function seconds(ms) {
  return `${Math.round((ms || 0) / 100) / 10}s`;
}

/**
 * Prints passes, failures (with message and stack) and the closing count line.
 * Pending tests count as failures: a skipped test proves nothing. Returns true when green.
 */
function printResults(label, results) {
  const out = [];
  for (const pass of results.passes) out.push(`  ✓ ${pass.fullTitle} (${pass.durationMs ?? 0}ms)`);
  results.failures.forEach((failure, i) => out.push(`  ${i + 1}) ${failure.fullTitle}`));
  for (const pending of results.pending) out.push(`  - ${pending.fullTitle} (pending: not allowed)`);
  out.push('');
  out.push(`  ${label}: ${results.passes.length} passing (${seconds(results.durationMs)})`);
  if (results.failures.length) out.push(`  ${results.failures.length} failing`);
  if (results.pending.length) out.push(`  ${results.pending.length} pending`);
  results.failures.forEach((failure, i) => {
    out.push('');
    out.push(`  ${i + 1}) ${failure.fullTitle}:`);
    const detail = failure.stack && failure.stack.includes(failure.message || '') ? failure.stack : `${failure.message}\n${failure.stack || ''}`;
    out.push(indent(detail.split('\n').slice(0, 25).join('\n'), '     '));
  });
  const failed = results.failures.length + results.pending.length;
  out.push('');
  out.push(`${results.passes.length} passed, ${failed} failed`);
  process.stdout.write(`${out.join('\n')}\n`);
  return failed === 0 && results.passes.length > 0;
}

function copyDir(from, to) {
  if (fs.existsSync(from)) fs.cpSync(from, to, { recursive: true });
}

/** Keeps what explains a failure; never throws (it runs while handling another error). */
async function saveFailureArtifacts(label, { page, server }) {
  try {
    fs.mkdirSync(RESULTS_DIR, { recursive: true });
    if (page) await page.screenshot({ path: path.join(RESULTS_DIR, `${label}-failure.png`) }).catch(() => undefined);
    if (server) {
      fs.writeFileSync(path.join(RESULTS_DIR, `${label}-code-server.log`), server.log());
      copyDir(path.join(server.dirs.userDataDir, 'logs'), path.join(RESULTS_DIR, `${label}-logs`));
    }
    process.stderr.write(`  failure artifacts in ${path.relative(ROOT, RESULTS_DIR)}/ (${label}-*)\n`);
  } catch (err) {
    process.stderr.write(`  could not save failure artifacts: ${err.message}\n`);
  }
}

module.exports = { step, printResults, saveFailureArtifacts, RESULTS_DIR };
