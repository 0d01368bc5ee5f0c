// Runs mocha files in this Node process and returns plain results for report.js.
// mocha 12 is an ES module: require(esm) hands back its namespace.
function loadMocha() {
  const loaded = require('mocha');
  return loaded.default || loaded;
}

function outcome(test, err) {
  return {
    fullTitle: test.fullTitle(),
    durationMs: test.duration,
    message: err ? String(err.message || err) : undefined,
    stack: err ? err.stack : undefined,
  };
}

/** Prints only which test is running (live progress); report.js prints the summary. */
class ProgressReporter {
  constructor(runner) {
    runner.on('test', (test) => process.stderr.write(`  · ${test.fullTitle()}\n`));
  }
}

function runMocha(files, { grep, timeoutMs }) {
  const Mocha = loadMocha();
  const mocha = new Mocha({ ui: 'bdd', timeout: timeoutMs, reporter: ProgressReporter, color: false });
  if (grep) mocha.grep(grep);
  for (const file of files) mocha.addFile(file);
  const results = { passes: [], failures: [], pending: [], durationMs: 0 };
  const started = Date.now();
  return new Promise((resolve) => {
    const runner = mocha.run(() => {
      results.durationMs = Date.now() - started;
      resolve(results);
    });
    runner.on('pass', (test) => results.passes.push(outcome(test)));
    runner.on('fail', (test, err) => results.failures.push(outcome(test, err)));
    runner.on('pending', (test) => results.pending.push(outcome(test)));
  });
}

module.exports = { runMocha };
