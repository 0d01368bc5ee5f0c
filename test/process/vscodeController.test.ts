// The editor glue (DeviceController + DeviceStatusBar) against a small stand-in for the `vscode`
// module and the fake worker process: activation detects in the background, Restricted Mode
// sends no interpreter, focus and the enabled setting drive monitoring, trust and settings
// changes re-detect, and a worker that keeps crashing turns the item red with a Restart action.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { DeviceController as DeviceControllerType } from '../../src/vscode/devices/deviceController';
import type { DeviceStatusBar as DeviceStatusBarType } from '../../src/vscode/devices/statusBar';
import { EventEmitter } from '../unit/helpers/fakeVscodeEvents';
import { redirectVscodeModule } from '../unit/helpers/fakeVscodeModule';

const FAKE_WORKER = path.resolve(__dirname, '..', 'fixtures', 'fakeWorker', 'worker.js');


interface FakeItem {
  text: string; name?: string; command?: { command: string }; tooltip?: { value: string; isTrusted?: unknown };
  backgroundColor?: { id: string }; accessibilityInformation?: { label: string }; visible: boolean;
  show(): void; hide(): void; dispose(): void;
}

/** The parts of the vscode API the device glue uses, with knobs for the tests. */
function createFakeVscode() {
  const settings: Record<string, { globalValue?: unknown; workspaceValue?: unknown }> = {};
  const windowState = new EventEmitter<{ focused: boolean }>();
  const configuration = new EventEmitter<{ affectsConfiguration(key: string): boolean }>();
  const trust = new EventEmitter<void>();
  const openTerminal = new EventEmitter<unknown>();
  const closeTerminal = new EventEmitter<unknown>();
  const terminals: Array<{ processId: Promise<number | undefined> }> = [];
  const errors: Array<{ message: string; items: string[] }> = [];
  const items: FakeItem[] = [];
  const api = {
    EventEmitter,
    StatusBarAlignment: { Left: 1, Right: 2 },
    ThemeColor: class { constructor(readonly id: string) {} },
    MarkdownString: class { isTrusted: unknown; constructor(readonly value: string, readonly supportThemeIcons?: boolean) {} },
    window: {
      state: { focused: true },
      onDidChangeWindowState: windowState.event,
      terminals,
      onDidOpenTerminal: openTerminal.event,
      onDidCloseTerminal: closeTerminal.event,
      createStatusBarItem: () => {
        const item: FakeItem = { text: '', visible: false, show() { item.visible = true; }, hide() { item.visible = false; }, dispose() { item.visible = false; } };
        items.push(item);
        return item;
      },
      showErrorMessage: async (message: string, ...choices: string[]) => { errors.push({ message, items: choices }); return undefined; },
    },
    workspace: {
      isTrusted: false,
      workspaceFolders: undefined,
      getConfiguration: (section: string) => ({
        get: (key: string) => { const s = settings[`${section}.${key}`]; return s?.workspaceValue ?? s?.globalValue; },
        inspect: (key: string) => settings[`${section}.${key}`] ?? {},
      }),
      onDidChangeConfiguration: configuration.event,
      onDidGrantWorkspaceTrust: trust.event,
    },
    extensions: { getExtension: () => { throw new Error('the Python extension must not be looked up here'); } },
  };
  const change = (key: string, value: { globalValue?: unknown; workspaceValue?: unknown }) => {
    settings[key] = value;
    configuration.fire({ affectsConfiguration: (section: string) => key === section || key.startsWith(`${section}.`) });
  };
  return { api, settings, windowState, trust, errors, items, change, terminals, openTerminal };
}

class RecordingLog {
  readonly lines: string[] = [];
  trace(m: string) { this.lines.push(m); }
  debug(m: string) { this.lines.push(m); }
  info(m: string) { this.lines.push(m); }
  warn(m: string) { this.lines.push(m); }
  error(m: string) { this.lines.push(m); }
  show() { /* nothing to show */ }
  count(pattern: RegExp): number { return this.lines.filter((l) => pattern.test(l)).length; }
}

async function waitUntil(what: string, condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('vscode: the device controller and the status bar item', function () {
  this.timeout(20_000);
  const vscodeModule = redirectVscodeModule(path.join(__dirname, '__fake_vscode__.js'));
  let fake: ReturnType<typeof createFakeVscode>;
  let log: RecordingLog;
  let controller: DeviceControllerType;
  let statusBar: DeviceStatusBarType;

  beforeEach(() => {
    fake = createFakeVscode();
    // Each test gets modules bound to its own fake.
    vscodeModule.install(fake.api, ['@vscode/python-extension']);
    log = new RecordingLog();
    const { DeviceController } = require('../../src/vscode/devices/deviceController') as typeof import('../../src/vscode/devices/deviceController');
    const { DeviceStatusBar } = require('../../src/vscode/devices/statusBar') as typeof import('../../src/vscode/devices/statusBar');
    const extension = { asAbsolutePath: () => FAKE_WORKER };
    controller = new DeviceController(extension as never, log as never);
    statusBar = new DeviceStatusBar(controller);
  });

  afterEach(async () => {
    statusBar.dispose();
    await controller.stop();
    controller.dispose();
    delete process.env.FAKE_WORKER_EXIT_ON_START;
  });

  const item = () => fake.items[0]!;

  it('detects in the background after start(), with no interpreter in Restricted Mode, and shows the device', async () => {
    controller.start();
    assert.strictEqual(controller.client.pid, undefined, 'start() itself forks nothing');
    await waitUntil('a report', () => controller.snapshot.report !== null);
    assert.ok(log.lines.some((l) => l.startsWith('[worker] detect {"pythonPath":null,"pinnedDevice":null')), log.lines.join('\n'));
    assert.strictEqual(item().text, '$(chip) cuda:0 H200 · 20.0/140.4 GiB');
    assert.strictEqual(item().name, 'Device Doctor');
    assert.strictEqual(item().command?.command, 'deviceDoctor.showDeviceReport');
    assert.deepStrictEqual(item().tooltip?.isTrusted, { enabledCommands: ['deviceDoctor.detectAccelerators', 'deviceDoctor.selectDevice', 'deviceDoctor.chooseInterpreter', 'deviceDoctor.showLog', 'deviceDoctor.restartWorker'] });
    assert.match(item().tooltip?.value ?? '', /Restricted Mode/);
    assert.ok(item().visible);
  });

  it('detect is told the native TensorFlow folder once it exists (for the TensorFlow.js GPU probe), and none before', async () => {
    const { DeviceController } = require('../../src/vscode/devices/deviceController') as typeof import('../../src/vscode/devices/deviceController');
    const storage = fs.mkdtempSync(path.join(os.tmpdir(), 'dd-native-folder-'));
    const folder = path.join(storage, 'native');
    const withFolder = new DeviceController({ asAbsolutePath: () => FAKE_WORKER } as never, log as never, folder);
    try {
      withFolder.start();
      await waitUntil('a report', () => withFolder.snapshot.report !== null);
      assert.ok(log.lines.some((l) => l.startsWith('[worker] detect {') && l.includes('"nativeSearchPaths":[]')), log.lines.join('\n'));
      // An install puts each package in its own folder (nativeTfFolder.ts): that folder is searched.
      fs.mkdirSync(path.join(folder, 'tfjs-node'), { recursive: true });
      await withFolder.detect(undefined, true);
      assert.ok(log.lines.some((l) => l.startsWith('[worker] detect {') && l.includes(`"nativeSearchPaths":${JSON.stringify([path.join(folder, 'tfjs-node')])}`)), log.lines.join('\n'));
    } finally {
      await withFolder.stop();
      withFolder.dispose();
      fs.rmSync(storage, { recursive: true, force: true });
    }
  });

  it('pauses monitoring while the window is unfocused and when the item is disabled', async () => {
    fake.settings['deviceDoctor.monitor.intervalMs'] = { globalValue: 250 };
    controller.start();
    await waitUntil('live samples in the status bar', () => /· 1\.0\/140\.4 GiB/.test(item().text));
    fake.windowState.fire({ focused: false });
    await waitUntil('monitoring to stop', () => log.count(/monitor stopped/) === 1);
    fake.windowState.fire({ focused: true });
    await waitUntil('monitoring to resume', () => log.count(/monitor every 250 ms/) === 2);
    fake.change('deviceDoctor.statusBar.enabled', { globalValue: false });
    await waitUntil('monitoring to stop again', () => log.count(/monitor stopped/) === 2);
    assert.ok(!item().visible, 'the item is hidden');
  });

  it('tells the worker the window\'s processes (itself and each terminal\'s shell) and keeps the GPU process list it sends', async () => {
    fake.terminals.push({ processId: Promise.resolve(4242) });
    controller.start();
    await waitUntil('the window pids', () => log.lines.some((l) => l.includes('window pids')));
    assert.ok(log.lines.includes(`[worker] window pids ${JSON.stringify([process.pid, 4242].sort((a, b) => a - b))}`), log.lines.join('\n'));
    await waitUntil('the process list', () => controller.snapshot.processes !== null);
    assert.deepStrictEqual(controller.snapshot.processes!.map((p) => [p.pid, p.fromThisWindow]), [[4321, true]]);
    // A new terminal is the window's too: the worker hears of it.
    fake.terminals.push({ processId: Promise.resolve(4343) });
    fake.openTerminal.fire({});
    await waitUntil('the new terminal', () => log.lines.some((l) => l.includes('4343')));
  });

  it('detects again when trust is granted, now with the workspace\'s interpreter', async () => {
    fake.settings['deviceDoctor.pythonPath'] = { workspaceValue: '/work/project/.venv/bin/python' };
    controller.start();
    await waitUntil('the first report', () => controller.snapshot.report !== null && !controller.snapshot.probing);
    fake.api.workspace.isTrusted = true;
    fake.trust.fire();
    await waitUntil('a trusted detection', () => log.lines.some((l) => l.includes('detect {"pythonPath":"/work/project/.venv/bin/python"')));
    assert.strictEqual(log.count(/\[worker\] detect \{"pythonPath":null/), 1, 'the untrusted one sent no interpreter');
  });

  it('detects again with the pinned device when deviceDoctor.device changes', async () => {
    controller.start();
    await waitUntil('the first report', () => controller.snapshot.report !== null && !controller.snapshot.probing);
    fake.change('deviceDoctor.device', { globalValue: 'cpu' });
    await waitUntil('the pinned report', () => controller.snapshot.report?.selected.device === 'cpu');
    assert.match(item().text, /^\$\(chip\) CPU · /);
  });

  it('turns red and offers "Restart Worker" after 5 crashes in 3 minutes', async () => {
    process.env.FAKE_WORKER_EXIT_ON_START = '1';
    controller.start();
    await waitUntil('the client to give up', () => controller.client.state === 'gaveUp');
    await waitUntil('the error message', () => fake.errors.length === 1);
    assert.strictEqual(item().text, '$(error) Device Doctor: worker stopped');
    assert.strictEqual(item().backgroundColor?.id, 'statusBarItem.errorBackground');
    assert.match(fake.errors[0]!.message, /crashed 5 times in the last 3 minutes/);
    assert.deepStrictEqual(fake.errors[0]!.items, ['Restart Worker', 'Show Log']);
    assert.ok(!/\n\s+at /.test(fake.errors[0]!.message), 'no stack trace');

    delete process.env.FAKE_WORKER_EXIT_ON_START;
    await controller.restartWorker();
    assert.strictEqual(controller.snapshot.workerStopped, null);
    assert.strictEqual(item().text, '$(chip) cuda:0 H200 · 20.0/140.4 GiB');
  });
});
