// test/unit holds pure tests: nothing here may start a process (those tests live in
// test/process). Loaded by .mocharc.json before any test file, so a test that spawns
// fails with the reason instead of quietly making the layer slow.
import childProcess = require('child_process');

for (const name of ['spawn', 'spawnSync', 'fork', 'exec', 'execSync', 'execFile', 'execFileSync'] as const) {
  (childProcess as unknown as Record<string, unknown>)[name] = () => {
    throw new Error(`child_process.${name} called from test/unit: tests that start processes belong in test/process`);
  };
}
