// One e2e session: a fresh copy of the fixture workspace, code-server with our packaged
// extension, and headless Chromium showing that folder. Trusted sessions turn Workspace
// Trust off; untrusted ones leave it on, so the folder opens in Restricted Mode.
import * as fs from 'fs';
import * as path from 'path';
import type { Browser, Page } from 'playwright-core';
import { FAKE_PYTHON } from '../integration/fixtureFindings';
import { Workbench } from './workbench';

interface CodeServer { folderUrl(folder: string): string; log(): string; dirs: { userDataDir: string }; stop(): Promise<void> }
interface BrowserHandle { browser: Browser; close(): Promise<void> }
const { startCodeServer } = require('../../scripts/lib/codeServer') as {
  startCodeServer(options: object): Promise<CodeServer>;
};
const { launchBrowser, openWorkbench } = require('../../scripts/lib/browser') as {
  launchBrowser(): Promise<BrowserHandle>;
  openWorkbench(browser: Browser, url: string): Promise<Page>;
};
const { copyFixtureWorkspace } = require('../../scripts/lib/workspaceCopy') as {
  copyFixtureWorkspace(label: string): { path: string; remove(): void };
};
const { saveFailureArtifacts } = require('../../scripts/lib/report') as {
  saveFailureArtifacts(label: string, parts: { page?: Page; server?: CodeServer }): Promise<void>;
};

export const VSIX_ENV = 'DEVICE_DOCTOR_E2E_VSIX';

export interface Session {
  workbench: Workbench;
  /** The workspace folder code-server shows (a temporary copy). */
  workspace: string;
  /** True once the fake interpreter named by the workspace settings has been run. */
  fakePythonRan(): boolean;
  /** Screenshot and logs into test-results/ (for a failed scenario). */
  saveArtifacts(label: string): Promise<void>;
  stop(): Promise<void>;
}

function extensionVsix(): string {
  const vsix = process.env[VSIX_ENV];
  if (!vsix || !fs.existsSync(vsix)) {
    throw new Error(`${VSIX_ENV} must name the packaged extension; run the suite with "npm run test:e2e"`);
  }
  return vsix;
}

export interface SessionOptions {
  label: string;
  trusted: boolean;
  /**
   * deviceDoctor.pythonPath in the workspace settings; default: this copy's fake interpreter;
   * null: not set at all, so the extension looks for an interpreter itself (PATH, as a new user's).
   */
  pythonPath?: string | null;
  /** Extra environment for code-server and so the extension host (a fake nvidia-smi first on PATH). */
  env?: NodeJS.ProcessEnv;
}

/**
 * Points deviceDoctor.pythonPath at this copy's fake interpreter (by absolute path), or at
 * `pythonPath`; null leaves the setting out (the fixture's relative one is removed too).
 */
function namePython(workspace: string, pythonPath?: string | null): void {
  const settings = path.join(workspace, '.vscode', 'settings.json');
  const interpreter = pythonPath === undefined ? path.join(workspace, FAKE_PYTHON.script) : pythonPath;
  const values = interpreter === null ? {} : { 'deviceDoctor.pythonPath': interpreter };
  fs.writeFileSync(settings, `${JSON.stringify(values, null, 2)}\n`);
}

export async function startSession(options: SessionOptions): Promise<Session> {
  const copy = copyFixtureWorkspace(`e2e-${options.label}`);
  namePython(copy.path, options.pythonPath);
  const stops: Array<() => Promise<void> | void> = [() => copy.remove()];
  const stop = async () => {
    for (const s of stops.reverse()) await s();
  };
  try {
    const server = await startCodeServer({
      label: `e2e-${options.label}`,
      vsixFiles: [extensionVsix()],
      trustWorkspace: options.trusted,
      env: options.env,
      // Restricted Mode without the modal "Do you trust the authors?" question in the way.
      userSettings: options.trusted ? {} : { 'security.workspace.trust.startupPrompt': 'never' },
    });
    stops.push(() => server.stop());
    const browser = await launchBrowser();
    stops.push(() => browser.close());
    const page = await openWorkbench(browser.browser, server.folderUrl(copy.path));
    return {
      workbench: new Workbench(page),
      workspace: copy.path,
      fakePythonRan: () => fs.existsSync(path.join(copy.path, FAKE_PYTHON.marker)),
      saveArtifacts: (label) => saveFailureArtifacts(label, { page, server }),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
