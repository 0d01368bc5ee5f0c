// A window reload is not a failure: when deactivate stops the worker while a device detection or
// an interpreter discovery is still running, the request ends as "stopped", and that is logged as
// info, never as an error. Also: in Restricted Mode the interpreter discovery does not ask the
// Python extension for its environments. The editor glue runs against a small stand-in for the
// `vscode` module; the worker client's requests are stubbed, so nothing is forked.
import * as assert from 'assert';
import * as path from 'path';
import type { DeviceController as DeviceControllerType } from '../../src/vscode/devices/deviceController';
import { WorkerClient } from '../../src/vscode/worker/workerClient';
import { isShutdownStop, stoppedError, WorkerError } from '../../src/vscode/worker/workerErrors';
import { EventEmitter } from './helpers/fakeVscodeEvents';
import { redirectVscodeModule } from './helpers/fakeVscodeModule';


class CancellationTokenSource {
  private readonly cancelled = new EventEmitter<void>();
  readonly token = { isCancellationRequested: false, onCancellationRequested: this.cancelled.event };
  cancel(): void {
    this.token.isCancellationRequested = true;
    this.cancelled.fire();
  }
  dispose(): void {
    this.cancelled.dispose();
  }
}

/** The quick pick Choose Interpreter shows; the test reads its placeholder and hides it. */
function createFakeQuickPick() {
  const accept = new EventEmitter<void>();
  const hide = new EventEmitter<void>();
  return {
    title: '', placeholder: '', busy: false, matchOnDescription: false, matchOnDetail: false,
    items: [] as unknown[], selectedItems: [] as unknown[], shown: false,
    onDidAccept: accept.event, onDidHide: hide.event,
    show() { this.shown = true; },
    hide() { hide.fire(); },
    dispose() { /* nothing held */ },
  };
}

function createFakeVscode() {
  const asked: string[] = [];
  const quickPicks: Array<ReturnType<typeof createFakeQuickPick>> = [];
  const never = new EventEmitter<never>().event;
  const api = {
    EventEmitter,
    CancellationTokenSource,
    ConfigurationTarget: { Global: 1, Workspace: 2, WorkspaceFolder: 3 },
    window: {
      state: { focused: true },
      terminals: [],
      onDidChangeWindowState: never,
      onDidOpenTerminal: never,
      onDidCloseTerminal: never,
      createQuickPick: () => {
        const quickPick = createFakeQuickPick();
        quickPicks.push(quickPick);
        return quickPick;
      },
      showErrorMessage: async () => undefined,
      showInformationMessage: async () => undefined,
      showQuickPick: async () => undefined,
    },
    workspace: {
      isTrusted: false,
      workspaceFolders: undefined,
      getConfiguration: () => ({ get: () => undefined, inspect: () => ({}) }),
      onDidChangeConfiguration: never,
      onDidGrantWorkspaceTrust: never,
    },
    extensions: { getExtension: (id: string) => { asked.push(id); return undefined; } },
  };
  return { api, asked, quickPicks };
}

class RecordingLog {
  readonly lines: string[] = [];
  trace(m: string) { this.lines.push(`trace ${m}`); }
  debug(m: string) { this.lines.push(`debug ${m}`); }
  info(m: string) { this.lines.push(`info ${m}`); }
  warn(m: string) { this.lines.push(`warn ${m}`); }
  error(m: string) { this.lines.push(`error ${m}`); }
  show() { /* nothing to show */ }
  errors(): string[] { return this.lines.filter((l) => l.startsWith('error ')); }
}

async function waitUntil(what: string, condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('vscode: a worker stopped by the extension\'s own shutdown', () => {
  it('a disposed client fails a request as stopped by the shutdown', async () => {
    const client = new WorkerClient({ modulePath: path.join(__dirname, 'no-such-worker.js'), log: new RecordingLog() });
    await client.dispose();
    const error = await client.request({ method: 'deviceDoctor/detect' } as never, {}).then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof WorkerError && error.kind === 'stopped', String(error));
    assert.ok(isShutdownStop(error), 'marked as stopped by the shutdown');
  });

  it('tells a shutdown stop from a worker that gave up or failed', () => {
    assert.ok(isShutdownStop(stoppedError('deviceDoctor/detect', true)));
    assert.ok(isShutdownStop(stoppedError('deviceDoctor/detect'), true), 'the caller knows it is shutting down');
    assert.ok(!isShutdownStop(stoppedError('deviceDoctor/detect')));
    assert.ok(!isShutdownStop(new WorkerError('stopped', 'The Device Doctor worker crashed 5 times')));
    assert.ok(!isShutdownStop(new WorkerError('failed', 'nvidia-smi exploded'), true));
  });

  describe('in the editor glue', () => {
    const vscodeModule = redirectVscodeModule(path.join(__dirname, '__fake_vscode_shutdown__.js'));
    let fake: ReturnType<typeof createFakeVscode>;
    let log: RecordingLog;
    let controller: DeviceControllerType;
    /** The in-flight request's reject, and what the stubbed request was asked. */
    let pending: { method: string; reject(error: unknown): void } | undefined;
    /** The error module the freshly loaded glue uses (its WorkerError is the class it checks). */
    let errors: typeof import('../../src/vscode/worker/workerErrors');

    /** Modules bound to this test's fake; the client's requests hang until the test ends them. */
    function load() {
      fake = createFakeVscode();
      vscodeModule.install(fake.api, ['@vscode/python-extension']);
      log = new RecordingLog();
      pending = undefined;
      errors = require('../../src/vscode/worker/workerErrors') as typeof import('../../src/vscode/worker/workerErrors');
      const { DeviceController } = require('../../src/vscode/devices/deviceController') as typeof import('../../src/vscode/devices/deviceController');
      controller = new DeviceController({ asAbsolutePath: () => path.join(__dirname, 'no-such-worker.js') } as never, log as never);
      const client = controller.client as unknown as Record<string, unknown>;
      client.request = (type: { method: string }) => new Promise((_, reject) => { pending = { method: type.method, reject }; });
      client.setMonitor = async () => undefined;
      // As the real client did before it marked them: the pending request fails as plainly "stopped".
      client.dispose = async () => pending?.reject(errors.stoppedError(pending.method));
      return { chooseInterpreter: (require('../../src/vscode/interpreter/chooseInterpreterCommand') as typeof import('../../src/vscode/interpreter/chooseInterpreterCommand')).chooseInterpreter };
    }

    afterEach(() => controller.dispose());

    it('a reload during a device detection logs no error, and leaves no error in the snapshot', async () => {
      load();
      controller.start();
      await waitUntil('the detection request', () => pending?.method === 'deviceDoctor/detect');
      await controller.stop();
      await waitUntil('the detection to end', () => !controller.snapshot.probing);
      assert.deepStrictEqual(log.errors(), []);
      assert.ok(log.lines.includes('info Device detection stopped: the extension is shutting down.'), log.lines.join('\n'));
      assert.strictEqual(controller.snapshot.detectError, null);
    });

    it('a worker that is stopped while the extension runs is still an error', async () => {
      load();
      controller.start();
      await waitUntil('the detection request', () => pending?.method === 'deviceDoctor/detect');
      pending!.reject(new errors.WorkerError('stopped', 'The Device Doctor worker crashed 5 times in the last 3 minutes and will not be restarted.'));
      await waitUntil('the detection to end', () => !controller.snapshot.probing);
      assert.deepStrictEqual(log.errors(), ['error Device detection failed: The Device Doctor worker crashed 5 times in the last 3 minutes and will not be restarted.']);
    });

    it('a reload during interpreter discovery logs no error', async () => {
      const { chooseInterpreter } = load();
      const chosen = chooseInterpreter(controller, log as never);
      await waitUntil('the discovery request', () => pending?.method === 'deviceDoctor/interpreters');
      await controller.stop();
      await new Promise((r) => setTimeout(r, 10));
      assert.deepStrictEqual(log.errors(), []);
      assert.ok(log.lines.includes('info Interpreter discovery stopped: the extension is shutting down.'), log.lines.join('\n'));
      fake.quickPicks[0]!.hide();
      await chosen;
    });

    it('a discovery that fails while the extension runs is still an error', async () => {
      const { chooseInterpreter } = load();
      const chosen = chooseInterpreter(controller, log as never);
      await waitUntil('the discovery request', () => pending?.method === 'deviceDoctor/interpreters');
      pending!.reject(new errors.WorkerError('failed', 'The Device Doctor worker could not run "interpreters": EACCES'));
      await new Promise((r) => setTimeout(r, 10));
      assert.deepStrictEqual(log.errors(), ['error Interpreter discovery failed: The Device Doctor worker could not run "interpreters": EACCES']);
      assert.match(fake.quickPicks[0]!.placeholder, /Interpreter discovery failed/);
      fake.quickPicks[0]!.hide();
      await chosen;
    });

    it('in Restricted Mode, discovery does not ask the Python extension for its environments', async () => {
      load();
      void controller.discoverInterpreters().catch(() => undefined);
      await waitUntil('the discovery request', () => pending?.method === 'deviceDoctor/interpreters');
      assert.deepStrictEqual(fake.asked, [], 'the Python extension was looked up');
      pending!.reject(new errors.WorkerError('cancelled', 'done'));
    });

    it('once trusted, discovery asks the Python extension', async () => {
      load();
      fake.api.workspace.isTrusted = true;
      void controller.discoverInterpreters().catch(() => undefined);
      await waitUntil('the discovery request', () => pending?.method === 'deviceDoctor/interpreters');
      assert.deepStrictEqual(fake.asked, ['ms-python.python']);
      pending!.reject(new errors.WorkerError('cancelled', 'done'));
    });
  });
});
