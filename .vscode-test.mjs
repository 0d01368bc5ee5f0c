// `npm run test:vscode`: the integration suite in a downloaded desktop VS Code through
// @vscode/test-cli, for machines with internet. Here (no download) the same suite runs in
// code-server instead: `npm run test:integration` (scripts/run-integration.js).
import { defineConfig } from '@vscode/test-cli';
import { cpSync, rmSync } from 'node:fs';

// The suite edits and saves files: VS Code gets a fresh copy of the fixture workspace,
// in the git-ignored cache, replaced on every run.
const workspace = '.vscode-test/workspace-copy/workspace';
rmSync('.vscode-test/workspace-copy', { recursive: true, force: true });
cpSync('test/fixtures/workspace', workspace, { recursive: true });

export default defineConfig({
  label: 'integration',
  files: '.vscode-test/out/integration/**/*.test.js',
  version: 'stable',
  extensionDevelopmentPath: '.',
  workspaceFolder: workspace,
  // Only built-in extensions (the notebook serializer among them) beside ours.
  launchArgs: ['--disable-extensions'],
  mocha: { ui: 'bdd', timeout: 90_000, color: true },
});
