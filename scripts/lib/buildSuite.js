// Compiles the integration suite (TypeScript) into .vscode-test/out/integration: one
// CommonJS file per test file plus the runner, with `vscode` and `mocha` left to the
// extension host. Never into dist/, which ships in the .vsix.
const esbuild = require('esbuild');
const fs = require('fs');
const path = require('path');

const ROOT = path.resolve(__dirname, '..', '..');
const SOURCE_DIR = path.join(ROOT, 'test', 'integration');
// The stable place @vscode/test-cli reads (.vscode-test.mjs). The code-server driver builds
// into a folder of its own per run instead, so that runs started side by side never
// delete each other's suite. Either way under the repository: `require('mocha')` from
// the compiled files must find node_modules.
const OUT_DIR = path.join(ROOT, '.vscode-test', 'out', 'integration');

async function buildIntegrationSuite(outDir = OUT_DIR) {
  const entries = fs.readdirSync(SOURCE_DIR).filter((f) => f.endsWith('.test.ts') || f === 'runner.ts');
  fs.rmSync(outDir, { recursive: true, force: true });
  await esbuild.build({
    entryPoints: entries.map((f) => path.join(SOURCE_DIR, f)),
    outdir: outDir,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    external: ['vscode', 'mocha'],
    sourcemap: 'inline',
    logLevel: 'warning',
  });
  return { outDir, runner: path.join(outDir, 'runner.js') };
}

module.exports = { buildIntegrationSuite, INTEGRATION_OUT_DIR: OUT_DIR };

if (require.main === module) {
  buildIntegrationSuite().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
