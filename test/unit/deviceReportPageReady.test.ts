// The device report's page loses a message posted before its script listens (the html was just
// set). A change that arrives in that gap (the GPU process list, right after the report opens)
// must still reach the page once it says 'ready', even if nothing changes after it: a fake GPU
// whose process list never changes left the report on "Not known yet" for good.
import * as assert from 'assert';
import * as path from 'path';
import type { DeviceSnapshot } from '../../src/vscode/devices/deviceSnapshot';
import { EMPTY_SNAPSHOT } from '../../src/vscode/devices/deviceSnapshot';
import { EventEmitter } from './helpers/fakeVscodeEvents';
import { redirectVscodeModule } from './helpers/fakeVscodeModule';

interface Posted { type: string; html?: string }

/** A webview whose page answers nothing until the test says it loaded: posts before that are lost. */
function createFakePanel() {
  const received = new EventEmitter<unknown>();
  const page = { loaded: false, body: '', lost: 0 };
  const webview = {
    options: {},
    cspSource: 'vscode-resource:',
    asWebviewUri: (uri: { path: string }) => ({ toString: () => uri.path }),
    onDidReceiveMessage: received.event,
    set html(text: string) {
      page.loaded = false;
      page.body = /<main[^>]*id="report"[^>]*>([\s\S]*?)<\/main>/.exec(text)?.[1] ?? text;
    },
    postMessage(message: Posted) {
      if (!page.loaded) page.lost++;
      else if (message.type === 'body' && typeof message.html === 'string') page.body = message.html;
      return Promise.resolve(true);
    },
  };
  const panel = {
    webview, visible: true, iconPath: undefined as unknown,
    onDidDispose: new EventEmitter<void>().event,
    onDidChangeViewState: new EventEmitter<unknown>().event,
    reveal() { /* shown already */ },
    dispose() { /* nothing held */ },
  };
  return {
    panel, page,
    /** The page's script ran: it listens, and says so. */
    load() {
      page.loaded = true;
      received.fire({ type: 'ready' });
    },
  };
}

describe('device report page: a change made while the page loads is shown once it is ready', () => {
  const fakeVscode = redirectVscodeModule(path.join(__dirname, 'fake-vscode-device-report.js'));

  it('shows a detect error that arrived between setting the html and the page\'s ready', async () => {
    const fake = createFakePanel();
    fakeVscode.install({
      EventEmitter,
      ViewColumn: { Active: -1 },
      Uri: { joinPath: (base: { path: string }, ...parts: string[]) => ({ path: [base.path, ...parts].join('/') }) },
      window: { createWebviewPanel: () => fake.panel },
      env: { clipboard: { writeText: () => Promise.resolve() } },
    });
    const { DeviceReportPanel } = require('../../src/vscode/devices/deviceReportPanel') as typeof import('../../src/vscode/devices/deviceReportPanel');
    const changed = new EventEmitter<DeviceSnapshot>();
    const devices = {
      snapshot: EMPTY_SNAPSHOT as DeviceSnapshot,
      onDidChange: changed.event,
      settings: () => ({ memoryWarningPercent: 90 }),
      history: () => Promise.resolve(undefined),
    };
    const extension = { extensionUri: { path: '/ext' } };
    const report = new DeviceReportPanel(extension as never, devices as never, { debug() {}, warn() {} } as never, {} as never);
    report.show();
    assert.doesNotMatch(fake.page.body, /nvidia-smi crashed/);

    devices.snapshot = { ...EMPTY_SNAPSHOT, detectError: 'nvidia-smi crashed' };
    changed.fire(devices.snapshot);
    fake.load();
    await new Promise((resolve) => setImmediate(resolve));

    assert.match(fake.page.body, /nvidia-smi crashed/, `the page still shows: ${fake.page.body}`);
    report.dispose();
  });
});
