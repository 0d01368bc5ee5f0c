// Runs the compiled integration suite with mocha inside an extension host. Two callers:
// @vscode/test-electron (`run()`, its extensionTestsPath contract) and the code-server
// harness (`runSuite()`, which also returns the results as plain data for the driver).
import * as fs from 'fs';
import * as path from 'path';
import type MochaType from 'mocha';

export interface TestOutcome {
  fullTitle: string;
  durationMs?: number;
  message?: string;
  stack?: string;
}

export interface SuiteResults {
  passes: TestOutcome[];
  failures: TestOutcome[];
  pending: TestOutcome[];
  durationMs: number;
}

export interface RunRequest {
  /** Only tests whose full title matches (the driver's --grep). */
  grep?: string;
}

/** mocha 12 is an ES module; require(esm) hands back its namespace. */
function loadMocha(): typeof MochaType {
  const loaded = require('mocha') as { default?: typeof MochaType } & typeof MochaType;
  return loaded.default ?? loaded;
}

function testFiles(): string[] {
  return fs.readdirSync(__dirname).filter((f) => f.endsWith('.test.js')).sort().map((f) => path.join(__dirname, f));
}

function outcome(test: MochaType.Runnable, err?: Error): TestOutcome {
  return {
    fullTitle: test.fullTitle(),
    durationMs: test.duration,
    message: err ? String(err.message ?? err) : undefined,
    stack: err?.stack,
  };
}

export function runSuite(request: RunRequest = {}): Promise<SuiteResults> {
  const Mocha = loadMocha();
  const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 90_000, reporter: 'spec' });
  if (request.grep) mocha.grep(request.grep);
  for (const file of testFiles()) mocha.addFile(file);
  const results: SuiteResults = { passes: [], failures: [], pending: [], durationMs: 0 };
  const started = Date.now();
  return new Promise((resolve) => {
    const runner = mocha.run(() => {
      results.durationMs = Date.now() - started;
      resolve(results);
    });
    runner.on('pass', (test) => results.passes.push(outcome(test)));
    runner.on('fail', (test, err: Error) => results.failures.push(outcome(test, err)));
    runner.on('pending', (test) => results.pending.push(outcome(test)));
  });
}

/** The @vscode/test-electron entry point: rejects when any test failed. */
export async function run(): Promise<void> {
  const results = await runSuite();
  for (const failure of results.failures) console.error(`FAIL ${failure.fullTitle}\n${failure.stack ?? failure.message}`);
  if (results.failures.length > 0) throw new Error(`${results.failures.length} integration test(s) failed`);
}
