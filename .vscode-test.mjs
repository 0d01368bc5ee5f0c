// `npm run test:vscode`: the integration suite in a downloaded desktop VS Code through
// @vscode/test-cli, for machines with internet. Here (no download) the same suite runs in
// code-server instead: `npm run test:integration` (scripts/run-integration.js).
import { defineConfig } from '@vscode/test-cli';
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The suite edits and saves files: VS Code gets a throwaway copy of the fixture workspace.
const workspace = join(mkdtempSync(join(tmpdir(), 'device-doctor-vscode-test-')), 'workspace');
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
