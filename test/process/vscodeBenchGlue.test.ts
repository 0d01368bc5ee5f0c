// The benchmark's editor glue against a stand-in `vscode` module: Run Matmul Benchmark from the
// quick picks to the worker request, its progress notification, cancel ("Cancelled", no error
// toast), a busy worker, an impossible request; the results panel's export buttons (the core's
// texts through a save dialog or the clipboard) and history; Install Native TensorFlow Backend
// with a fake npm that fails offline.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Emitter, ResponseError } from 'vscode-jsonrpc';
import { buildRun } from '../../src/core/bench/compare';
import { formatBenchJson, toCsv, toMarkdown } from '../../src/core/bench/export';
import { makeBenchResult } from '../../src/core/bench/result';
import { BENCH_BUSY, BENCH_INVALID } from '../../src/protocol/worker';
import type { BenchParams, BenchProgressParams, BenchRunResponse, EnginesParams, EnginesResponse } from '../../src/protocol/worker';
import type { BenchHistory as BenchHistoryType, MementoLike } from '../../src/vscode/benchmark/benchHistory';
import type { BenchmarkRunner as RunnerType } from '../../src/vscode/benchmark/runBenchmarkCommand';
import type { BenchmarkPanel as PanelType } from '../../src/vscode/benchmark/panel/benchmarkPanel';
import { redirectVscodeModule } from '../unit/helpers/fakeVscodeModule';

interface Message { level: 'info' | 'warning' | 'error'; message: string; items: string[] }
interface FakeUri { scheme: string; fsPath: string; path: string; toString(): string }
type Chooser = (items: Array<{ label: string }>) => { label: string } | undefined;

const uri = (p: string): FakeUri => ({ scheme: 'file', fsPath: p, path: p, toString: () => `file://${p}` });

/** The parts of the vscode API the benchmark glue uses, scripted by the tests. */
function createFakeVscode() {
  const choosers: Chooser[] = [];
  const messages: Message[] = [];
  const answers: Record<string, string | undefined> = {};
  const reports: Array<{ message?: string; increment?: number }> = [];
  const statusMessages: string[] = [];
  const written: Array<{ path: string; text: string }> = [];
  const saveDialogs: Array<{ defaultUri: FakeUri; filters: Record<string, string[]> }> = [];
  const clipboard = { text: '' };
  const panels: FakePanel[] = [];
  const progress = { cancelAfterReports: Infinity, titles: [] as string[] };
  const quickPicks = { chooseWhileBusy: false };
  const choose = (items: Array<{ label: string }>) => {
    const chooser = choosers.shift();
    if (!chooser) throw new Error(`no scripted choice for a quick pick of ${items.map((i) => i.label).join(', ')}`);
    return chooser(items);
  };
  const modals: Array<{ message: string; detail: string; items: string[] }> = [];
  const message = (level: Message['level']) => async (text: string, ...rest: Array<string | { modal?: boolean; detail?: string }>) => {
    const items = rest.filter((item): item is string => typeof item === 'string');
    const options = rest.find((item) => typeof item === 'object');
    if (options?.modal) modals.push({ message: text, detail: options.detail ?? '', items });
    else messages.push({ level, message: text, items });
    return Object.entries(answers).find(([prefix]) => text.startsWith(prefix))?.[1];
  };
  const api = {
    ProgressLocation: { Notification: 15 },
    ViewColumn: { Active: -1 },
    QuickPickItemKind: { Separator: -1, Default: 0 },
    Uri: { file: uri, joinPath: (base: FakeUri, ...parts: string[]) => uri(path.join(base.fsPath, ...parts)) },
    env: { clipboard: { writeText: async (text: string) => { clipboard.text = text; } }, machineId: 'machine-1' },
    workspace: {
      workspaceFolders: [{ uri: uri('/work/project') }],
      fs: { writeFile: async (target: FakeUri, bytes: Uint8Array) => { written.push({ path: target.fsPath, text: new TextDecoder().decode(bytes) }); } },
    },
    window: {
      showQuickPick: async (items: Array<{ label: string }> | Promise<Array<{ label: string }>>) => choose(await items),
      createQuickPick: () => new FakeQuickPick(choose, quickPicks),
      showInformationMessage: message('info'),
      showWarningMessage: message('warning'),
      showErrorMessage: message('error'),
      setStatusBarMessage: (text: string) => { statusMessages.push(text); return { dispose() { /* gone */ } }; },
      showSaveDialog: async (options: { defaultUri: FakeUri; filters: Record<string, string[]> }) => { saveDialogs.push(options); return uri(`/chosen/${path.basename(options.defaultUri.fsPath)}`); },
      createWebviewPanel: (viewType: string, title: string, showOptions: { preserveFocus?: boolean }) => { const panel = new FakePanel(viewType, title, showOptions.preserveFocus === true); panels.push(panel); return panel; },
      withProgress: async <R>(options: { title: string; cancellable: boolean }, task: (p: unknown, token: unknown) => Promise<R>) => {
        assert.strictEqual(options.cancellable, true, 'progress is cancellable');
        progress.titles.push(options.title);
        const cancel = new Emitter<void>();
        const token = { isCancellationRequested: false, onCancellationRequested: cancel.event };
        const reporter = {
          report: (value: { message?: string; increment?: number }) => {
            reports.push(value);
            if (reports.length >= progress.cancelAfterReports && !token.isCancellationRequested) {
              token.isCancellationRequested = true;
              setTimeout(() => cancel.fire(), 0);
            }
          },
        };
        return task(reporter, token);
      },
    },
  };
  return { api, choosers, messages, modals, answers, reports, statusMessages, written, saveDialogs, clipboard, panels, progress, quickPicks };
}

class FakeQuickPick {
  title = ''; placeholder = ''; busy = false; matchOnDescription = false;
  selectedItems: Array<{ label: string }> = [];
  activeItems: Array<{ label: string }> = [];
  private readonly accept = new Emitter<void>();
  private readonly hide = new Emitter<void>();
  readonly onDidAccept = this.accept.event;
  readonly onDidHide = this.hide.event;
  shownItems: Array<{ label: string; kind?: number }> = [];
  constructor(private readonly choose: (items: Array<{ label: string }>) => { label: string } | undefined, private readonly options: { chooseWhileBusy: boolean }) {}
  set items(items: Array<{ label: string; kind?: number }>) {
    this.shownItems = items;
    // The user chooses from a complete pick (busy is set in the same turn as the items), or, with
    // chooseWhileBusy, from the first rows shown.
    setTimeout(() => {
      if ((this.busy && !this.options.chooseWhileBusy) || this.shownItems !== items || items.length === 0) return;
      const picked = this.choose(items.filter((i) => i.kind !== -1));
      if (picked) { this.selectedItems = [picked]; this.accept.fire(); } else this.hide.fire();
    }, 0);
  }
  show(): void { /* shown */ }
  dispose(): void { this.hide.fire(); }
}

class FakePanel {
  readonly posted: Array<{ type: string; html?: string; text?: string }> = [];
  private readonly received = new Emitter<unknown>();
  private readonly disposed = new Emitter<void>();
  visible = true;
  iconPath: unknown;
  readonly webview = {
    html: '',
    cspSource: 'vscode-resource:',
    asWebviewUri: (u: FakeUri) => u,
    postMessage: async (message: { type: string }) => { this.posted.push(message); return true; },
    onDidReceiveMessage: this.received.event,
  };
  readonly onDidDispose = this.disposed.event;
  readonly onDidChangeViewState = new Emitter<unknown>().event;
  /** Whether each time the panel was shown (created, then revealed) left the focus where it was. */
  readonly focusKept: boolean[];
  constructor(readonly viewType: string, readonly title: string, createdKeepingFocus: boolean) {
    this.focusKept = [createdKeepingFocus];
  }
  reveal(_column?: unknown, preserveFocus?: boolean): void { this.focusKept.push(preserveFocus === true); }
  dispose(): void { this.disposed.fire(); }
  /** The page's script posting a message. */
  send(message: unknown): void { this.received.fire(message); }
  /** The body as the page shows it now: the last one posted, else the initial html. */
  body(): string {
    const last = [...this.posted].reverse().find((m) => m.type === 'body');
    return last?.html ?? this.webview.html;
  }
  notices(): string[] { return this.posted.filter((m) => m.type === 'notice').map((m) => m.text ?? ''); }
}

class MemoryMemento implements MementoLike {
  private readonly values = new Map<string, unknown>();
  get<T>(key: string): T | undefined { return this.values.get(key) as T | undefined; }
  async update(key: string, value: unknown): Promise<void> { this.values.set(key, JSON.parse(JSON.stringify(value))); }
}

function benchResponse(): BenchRunResponse {
  const ok = (engine: 'torch' | 'wasm', device: string, medianSec: number) => ({
    status: 'ok' as const,
    result: makeBenchResult({ plan: { engine, device, dtype: 'float32', size: 1024 }, timesSec: [medianSec, medianSec], maxRelError: 1e-6, checkedEntries: 64 }),
  });
  return { ...buildRun([ok('torch', 'cpu', 0.143), ok('torch', 'cuda:0', 0.001)]), transfers: [], cancelled: false, selectedDevice: 'cuda:0', description: 'cuda:0 against torch cpu' };
}

const ENGINES: EnginesResponse = {
  selectedDevice: 'cpu',
  engines: [
    { engine: 'tfjs-node', devices: [], dtypes: ['float32'], problem: { status: 'not-installed', engine: 'tfjs-node', device: null, dtype: null, size: null, message: 'Native TensorFlow.js (@tensorflow/tfjs-node) is not installed.', remedy: 'Run "Device Doctor: Install Native TensorFlow Backend".' } },
    { engine: 'wasm', devices: ['cpu'], dtypes: ['float32'], problem: null },
    { engine: 'js', devices: ['cpu'], dtypes: ['float32'], problem: null },
  ],
};

/** The worker side: records requests, streams progress, answers as scripted. */
class FakeBackend {
  readonly requests: BenchParams[] = [];
  readonly progress = new Emitter<BenchProgressParams>();
  readonly client = { onBenchProgress: this.progress.event };
  answer: (params: BenchParams, token: { isCancellationRequested: boolean; onCancellationRequested(l: () => void): unknown }) => Promise<BenchRunResponse> = async () => benchResponse();
  async benchTarget() { return { pythonPath: '/usr/bin/python3', pinnedDevice: null }; }
  benchEngines: (params: EnginesParams) => Promise<EnginesResponse> = async () => ENGINES;
  bench(params: BenchParams, token: never): Promise<BenchRunResponse> {
    this.requests.push(params);
    for (let done = 0; done < 3; done++) {
      this.progress.fire({ runId: params.runId ?? null, step: 1, steps: 2, progress: { engine: 'torch', device: 'cuda:0', dtype: 'float32', size: 1024, phase: 'timing', done, repeats: 10 } });
    }
    this.progress.fire({ runId: 'someone-else', step: 2, steps: 2, progress: { engine: 'js', device: 'cpu', dtype: 'float32', size: 64, phase: 'timing', done: 9, repeats: 10 } });
    return this.answer(params, token);
  }
}

// Bound in beforeEach to the module instances the glue under test uses (instanceof must match).
let cancelledError: typeof import('../../src/vscode/worker/workerErrors').cancelledError;
let failedError: typeof import('../../src/vscode/worker/workerErrors').failedError;

/** Resolves with a cancelled error once the token is cancelled, like WorkerClient.request. */
function waitForCancel(_params: BenchParams, token: { onCancellationRequested(l: () => void): unknown }): Promise<BenchRunResponse> {
  return new Promise((_resolve, reject) => { token.onCancellationRequested(() => reject(cancelledError('deviceDoctor/bench'))); });
}

describe('vscode: the benchmark command, panel and native install (stand-in vscode)', function () {
  this.timeout(20_000);
  const vscodeModule = redirectVscodeModule(path.join(__dirname, '__fake_vscode_bench__.js'));
  let fake: ReturnType<typeof createFakeVscode>;
  let backend: FakeBackend;
  let runner: RunnerType;
  let panel: PanelType;
  let history: BenchHistoryType;
  let installs: number;
  const logLines: string[] = [];
  const log = { info: (m: string) => logLines.push(m), warn: (m: string) => logLines.push(m), error: (m: string) => logLines.push(m), show: () => undefined, trace: () => undefined, debug: () => undefined };

  beforeEach(() => {
    fake = createFakeVscode();
    vscodeModule.install(fake.api);
    const { BenchmarkRunner } = require('../../src/vscode/benchmark/runBenchmarkCommand') as typeof import('../../src/vscode/benchmark/runBenchmarkCommand');
    const { BenchmarkPanel } = require('../../src/vscode/benchmark/panel/benchmarkPanel') as typeof import('../../src/vscode/benchmark/panel/benchmarkPanel');
    const { BenchHistory } = require('../../src/vscode/benchmark/benchHistory') as typeof import('../../src/vscode/benchmark/benchHistory');
    ({ cancelledError, failedError } = require('../../src/vscode/worker/workerErrors') as typeof import('../../src/vscode/worker/workerErrors'));
    backend = new FakeBackend();
    history = new BenchHistory(new MemoryMemento(), 'machine-1');
    installs = 0;
    logLines.length = 0;
    // The panel records the run it shows in the workspace state (a reload restores it): an in-memory one here.
    const workspaceState = new Map<string, unknown>();
    const memento = { get: (key: string) => workspaceState.get(key), update: async (key: string, value: unknown) => void workspaceState.set(key, value), keys: () => [...workspaceState.keys()] };
    panel = new BenchmarkPanel({ extensionUri: uri('/ext'), workspaceState: memento } as never, history, log as never, { runBenchmark: () => void runner.run() });
    runner = new BenchmarkRunner({ devices: backend as never, panel, history, log, nativeSearchPaths: () => ['/g/native'], installNativeTf: () => { installs++; } });
  });

  const pick = (label: string | RegExp): Chooser => (items) => {
    const found = items.find((i) => (typeof label === 'string' ? i.label === label : label.test(i.label)));
    if (!found) throw new Error(`no "${label}" among ${items.map((i) => i.label).join(', ')}`);
    return found;
  };
  const errors = () => fake.messages.filter((m) => m.level === 'error');

  it('runs "Selected device vs CPU" at 1024, shows progress, stores the run and shows the panel', async () => {
    fake.choosers.push(pick('Selected device vs CPU'), pick('1024'), pick('float32'));
    await runner.run();
    assert.deepStrictEqual(backend.requests, [{ pythonPath: '/usr/bin/python3', pinnedDevice: null, compare: 'versus-cpu', runId: backend.requests[0]!.runId, size: 1024, nativeSearchPaths: ['/g/native'] }]);
    assert.deepStrictEqual(fake.progress.titles, ['Matmul benchmark (Selected device vs CPU, n = 1024)']);
    assert.deepStrictEqual(fake.reports.map((r) => r.message), ['starting…', 'torch · cuda:0 · n = 1024 · repeat 1/10 · run 1 of 2', 'torch · cuda:0 · n = 1024 · repeat 2/10 · run 1 of 2', 'torch · cuda:0 · n = 1024 · repeat 3/10 · run 1 of 2'], 'another run\'s progress is ignored');
    assert.strictEqual(history.entries().length, 1);
    assert.strictEqual(fake.panels.length, 1);
    assert.strictEqual(fake.panels[0]!.title, 'Matmul Benchmark');
    assert.match(fake.panels[0]!.body(), /<p class="headline">cuda:0 is 143× faster than torch cpu<\/p>/);
    assert.deepStrictEqual(errors(), []);
  });

  it('brings each finished run forward without taking the keyboard from what the user went back to', async () => {
    fake.choosers.push(pick('Selected device vs CPU'), pick('1024'), pick('float32'));
    await runner.run();
    fake.choosers.push(pick('Selected device vs CPU'), pick('1024'), pick('float32'));
    await runner.run();
    assert.strictEqual(fake.panels.length, 1, 'the second run reuses the panel');
    assert.deepStrictEqual(fake.panels[0]!.focusKept, [true, true], 'opened, then revealed, each keeping the focus');
  });

  it('asks the dtype (float32 by default) and sends it; an engine that runs float32 only is not asked', async () => {
    fake.choosers.push(pick('Selected device vs CPU'), pick('2048'), (items) => {
      assert.deepStrictEqual(items.map((i) => i.label), ['float32', 'bfloat16', 'float16']);
      return items.find((i) => i.label === 'bfloat16');
    });
    await runner.run();
    assert.deepStrictEqual(backend.requests[0]!.dtypes, ['bfloat16']);
    assert.deepStrictEqual(fake.progress.titles, ['Matmul benchmark (Selected device vs CPU, n = 2048, bfloat16)']);
    fake.choosers.push(pick('One engine/device…'), pick('wasm cpu'), pick('256'));
    await runner.run();
    assert.strictEqual(backend.requests[1]!.dtypes, undefined, 'wasm runs float32 only: no dtype question, float32 sent as before');
  });

  it('picks one engine/device from the worker\'s list; an unavailable engine offers its remedy instead of running', async () => {
    fake.choosers.push(pick('One engine/device…'), pick('wasm cpu'), pick('256'));
    await runner.run();
    assert.strictEqual(backend.requests.length, 1);
    assert.deepStrictEqual({ ...backend.requests[0], runId: undefined }, { pythonPath: '/usr/bin/python3', pinnedDevice: null, compare: 'single', runId: undefined, engine: 'wasm', device: 'cpu', size: 256, nativeSearchPaths: ['/g/native'] });

    fake.answers['Native TensorFlow.js (@tensorflow/tfjs-no'] = 'Install Native TensorFlow Backend';
    fake.choosers.push(pick('One engine/device…'), pick(/tfjs-node$/));
    await runner.run();
    await new Promise((r) => setTimeout(r, 0));
    assert.strictEqual(backend.requests.length, 1, 'nothing was sent for the unavailable engine');
    const warning = fake.messages.find((m) => m.level === 'warning');
    assert.deepStrictEqual(warning, { level: 'warning', message: 'Native TensorFlow.js (@tensorflow/tfjs-node) is not installed. Run "Device Doctor: Install Native TensorFlow Backend".', items: ['Install Native TensorFlow Backend'] });
    assert.strictEqual(installs, 1, 'the remedy\'s button runs the install command');
  });

  it('shows the engines that need no PyTorch while its probe runs, torch marked as probing, and runs wasm without waiting', async () => {
    const asked: boolean[] = [];
    backend.benchEngines = (params: EnginesParams) => {
      asked.push(params.withoutTorch === true);
      return params.withoutTorch ? Promise.resolve(ENGINES) : new Promise<EnginesResponse>(() => undefined); // import torch never answers
    };
    fake.quickPicks.chooseWhileBusy = true;
    let shown: string[] = [];
    fake.choosers.push(pick('One engine/device…'), (items) => {
      shown = items.map((i) => i.label);
      return items.find((i) => i.label === 'wasm cpu');
    }, pick('256'));
    await runner.run();
    assert.deepStrictEqual(asked.sort(), [false, true], 'both answers asked for at once');
    assert.deepStrictEqual(shown, ['$(loading~spin) torch', 'wasm cpu', 'js cpu', '$(circle-slash) tfjs-node']);
    assert.deepStrictEqual([backend.requests[0]?.engine, backend.requests[0]?.device], ['wasm', 'cpu']);
  });

  it('cancel from the notification: "Cancelled" in the panel, no error toast, and the next run works', async () => {
    fake.choosers.push(pick('Selected device vs CPU'), pick('1024'), pick('float32'));
    await runner.run();
    fake.progress.cancelAfterReports = fake.reports.length + 2;
    backend.answer = waitForCancel;
    fake.choosers.push(pick('One engine/device…'), pick('js cpu'), pick('1024'));
    await runner.run();
    assert.deepStrictEqual(errors(), [], 'no error toast');
    assert.ok(fake.statusMessages.some((m) => /cancelled/.test(m)));
    const body = fake.panels[0]!.body();
    assert.match(body, /data-state="cancelled"><strong>Cancelled<\/strong> — js on cpu, n = 1024\./);
    assert.match(body, /cuda:0 is 143× faster/, 'the earlier results stay shown below');
    assert.strictEqual(history.entries().length, 1, 'nothing of the cancelled run is stored');
    assert.ok(!runner.isRunning);

    // The worker may still be stopping the cancelled run: a "busy" just after a cancel is waited out.
    let busyAnswers = 2;
    backend.answer = async () => {
      if (busyAnswers-- > 0) throw failedError('deviceDoctor/bench', new ResponseError(BENCH_BUSY, 'busy'));
      return benchResponse();
    };
    fake.progress.cancelAfterReports = Infinity;
    const requestsBefore = backend.requests.length;
    fake.choosers.push(pick('Selected device vs CPU'), pick('512'), pick('float32'));
    await runner.run();
    assert.strictEqual(backend.requests.length - requestsBefore, 3, 'asked again until the worker was free');
    assert.deepStrictEqual(fake.messages, [], 'no "busy" message for the run being stopped');
    assert.strictEqual(history.entries().length, 2);
    assert.ok(!fake.panels[0]!.body().includes('data-state="cancelled"'), 'a new result clears the status');
  });

  it('a cancelled sweep keeps what finished: stored, shown, and the status says where it stopped', async () => {
    const { cancelledOutcome } = require('../../src/core/bench/outcomes') as typeof import('../../src/core/bench/outcomes');
    const sized = (n: number) => ({ status: 'ok' as const, result: makeBenchResult({ plan: { engine: 'torch', device: 'cpu', dtype: 'float32', size: n }, timesSec: [1e-3 * (n / 256) ** 3], maxRelError: 1e-6, checkedEntries: 64 }) });
    // As the worker answers a cancelled request: the sizes that finished, and the one the cancel stopped.
    const partial: BenchRunResponse = {
      ...buildRun([sized(256), sized(512), sized(1024), sized(2048), cancelledOutcome({ engine: 'torch', device: 'cpu', dtype: 'float32', size: 4096 })]),
      transfers: [], cancelled: true, selectedDevice: 'cpu', description: 'torch on the CPU',
    };
    backend.answer = (_params, token) => new Promise((resolve) => { token.onCancellationRequested(() => resolve(partial)); });
    fake.progress.cancelAfterReports = 2;
    fake.choosers.push(pick('Selected device vs CPU'), pick(/^Sweep/), pick('float32'));
    await runner.run();
    assert.deepStrictEqual(errors(), [], 'no error toast');
    const body = fake.panels[0]!.body();
    assert.match(body, /data-state="cancelled"><strong>Cancelled<\/strong> — Selected device vs CPU, sweep 256…8192: cancelled at n = 4096; 256–2048 kept, shown below\./);
    assert.strictEqual(history.entries().length, 1, 'the kept results are stored');
    assert.deepStrictEqual(history.entries()[0]!.run.results.map((r) => r.size), [256, 512, 1024, 2048]);
    assert.match(body, /<table class="runs">/, 'and shown');
  });

  it('a second benchmark while one runs gets a clear message; so does a busy worker', async () => {
    let release!: () => void;
    backend.answer = () => new Promise((resolve) => { release = () => resolve(benchResponse()); });
    fake.choosers.push(pick('Selected device vs CPU'), pick('1024'), pick('float32'));
    const first = runner.run();
    while (backend.requests.length === 0) await new Promise((r) => setTimeout(r, 1));
    await runner.run();
    assert.deepStrictEqual(fake.messages.map((m) => [m.level, m.message]), [['info', 'A matmul benchmark is already running. Wait for it, or cancel it from its notification, then try again.']]);
    release();
    await first;

    backend.answer = async () => { throw failedError('deviceDoctor/bench', new ResponseError(BENCH_BUSY, 'busy')); };
    fake.choosers.push(pick('Selected device vs CPU'), pick('1024'), pick('float32'));
    await runner.run();
    assert.strictEqual(fake.messages.length, 2);
    assert.strictEqual(fake.messages[1]!.level, 'info');
    assert.match(fake.messages[1]!.message, /already running/);
  });

  it('an impossible request shows the worker\'s message, without a stack trace', async () => {
    backend.answer = async () => { throw failedError('deviceDoctor/bench', new ResponseError(BENCH_INVALID, 'The torch engine has no device mps; it has cpu.\n    at plan (/x/plan.ts:3:1)')); };
    fake.choosers.push(pick('Selected device vs CPU'), pick('4096'), pick('float32'));
    await runner.run();
    assert.deepStrictEqual(errors().map((m) => [m.message, m.items]), [['This benchmark cannot run: The torch engine has no device mps; it has cpu.', ['Show Log']]]);
  });

  it('export buttons write the core\'s JSON, CSV and Markdown through a save dialog; Markdown also to the clipboard', async () => {
    fake.choosers.push(pick('Selected device vs CPU'), pick('1024'), pick('float32'));
    await runner.run();
    const view = fake.panels[0]!;
    const run = history.entries()[0]!.run;
    for (const [type, ext, text] of [['exportJson', 'json', formatBenchJson(run)], ['exportCsv', 'csv', toCsv(run)], ['exportMarkdown', 'md', toMarkdown(run)]] as const) {
      view.send({ type });
      await new Promise((r) => setTimeout(r, 5));
      const dialog = fake.saveDialogs.at(-1)!;
      assert.match(dialog.defaultUri.fsPath, new RegExp(`^/work/project/matmul-benchmark-\\d{4}-\\d\\d-\\d\\d-\\d{4}\\.${ext}$`), 'offered in the workspace folder');
      assert.deepStrictEqual(Object.values(dialog.filters), [[ext]]);
      assert.deepStrictEqual(fake.written.at(-1), { path: `/chosen/${path.basename(dialog.defaultUri.fsPath)}`, text });
    }
    assert.match(view.notices().at(-1)!, /^Saved \/chosen\/matmul-benchmark-.*\.md\.$/);
    view.send({ type: 'copyMarkdown' });
    await new Promise((r) => setTimeout(r, 5));
    assert.strictEqual(fake.clipboard.text, toMarkdown(run));
    assert.strictEqual(view.notices().at(-1), 'Copied the results to the clipboard as Markdown.');
  });

  it('shows an earlier run from the history, and ignores unknown messages', async () => {
    fake.choosers.push(pick('Selected device vs CPU'), pick('1024'), pick('float32'), pick('Selected device vs CPU'), pick('256'), pick('float32'));
    await runner.run();
    await runner.run();
    const [newest, older] = history.entries();
    const view = fake.panels[0]!;
    assert.match(view.body(), new RegExp(`data-run-id="${older!.id}"`));
    view.send({ type: 'showRun', runId: older!.id });
    await new Promise((r) => setTimeout(r, 5));
    assert.match(view.body(), /Earlier run/);
    assert.match(view.body(), new RegExp(`data-run-id="${newest!.id}"`), 'now the newest has the Show button');
    const posted = view.posted.length;
    view.send({ type: 'deleteEverything' });
    view.send({ type: 'showRun', runId: 'no-such-run' });
    await new Promise((r) => setTimeout(r, 5));
    assert.ok(logLines.some((l) => /unknown message: "deleteEverything"/.test(l)));
    assert.match(view.body(), /Earlier run/, 'an unknown id changes nothing');
    assert.ok(view.posted.length <= posted + 1);
  });

  describe('Install Native TensorFlow Backend', () => {
    const LOCK_DIR = path.join(__dirname, '..', '..', 'media', 'nativeTf');
    const LIBRARY = { what: "TensorFlow's C library 2.9.1 (test)", url: 'https://storage.googleapis.com/tensorflow/libtensorflow/test.tar.gz', sha256: 'ab'.repeat(32), into: 'deps', strip: 0 };
    let tmp: string;
    let refreshes: number;

    beforeEach(() => {
      tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'device-doctor-install-'));
      fs.mkdirSync(path.join(tmp, 'bin'));
      refreshes = 0;
    });
    afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

    /** A fake npm that leaves npm-ran.txt whenever it runs. */
    function fakeNpm(script: string): NodeJS.ProcessEnv {
      fs.writeFileSync(path.join(tmp, 'bin', 'npm'), `#!/bin/sh\ntouch "${path.join(tmp, 'npm-ran.txt')}"\n${script}\n`);
      fs.chmodSync(path.join(tmp, 'bin', 'npm'), 0o755);
      return { PATH: `${path.join(tmp, 'bin')}${path.delimiter}/usr/bin:/bin` };
    }
    const npmRan = (): boolean => fs.existsSync(path.join(tmp, 'npm-ran.txt'));

    interface Options { engines?: EnginesResponse; trusted?: boolean; plan?: 'default' | 'ready'; confirm?: boolean }

    async function install(env: NodeJS.ProcessEnv, options: Options = {}): Promise<void> {
      const { installNativeTfCommand } = require('../../src/vscode/benchmark/nativeTf/installNativeTfCommand') as typeof import('../../src/vscode/benchmark/nativeTf/installNativeTfCommand');
      fake.choosers.push(pick('tfjs-node'));
      if (options.confirm !== false) fake.answers['Download and install'] = 'Download and Install';
      const ready = { kind: 'ready' as const, archives: [] };
      await installNativeTfCommand({
        log: log as never,
        folder: path.join(tmp, 'globalStorage', 'native'),
        lockDir: LOCK_DIR,
        refreshEngines: async () => { refreshes++; return options.engines ?? ENGINES; },
        runBenchmark: () => undefined,
        lookup: { execPath: path.join(tmp, 'runtime', 'node'), env, platform: 'linux' },
        isTrusted: () => options.trusted ?? true,
        // The archives need a network: the npm side is tested here with none to fetch.
        ...(options.plan === 'default' ? {} : { plan: () => (options.plan === 'ready' ? { kind: 'ready' as const, archives: [LIBRARY] } : ready) }),
      });
    }

    it('in an untrusted workspace: says it needs trust, asks nothing and runs nothing', async () => {
      await install(fakeNpm('exit 0'), { trusted: false });
      assert.deepStrictEqual(fake.messages.map((m) => [m.level, m.message, m.items]), [['warning', 'Install Native TensorFlow Backend needs a trusted workspace: it downloads native code (TensorFlow) that the benchmark then loads. Trust this folder first, or run the command in a window you trust.', ['Manage Workspace Trust']]]);
      assert.strictEqual(fake.choosers.length, 1, 'no package was asked for');
      assert.deepStrictEqual([fake.modals, npmRan()], [[], false]);
    });

    it('refuses before asking or downloading while an archive it needs has no published checksum', async () => {
      await install(fakeNpm('exit 0'), { plan: 'default' });
      assert.deepStrictEqual(fake.messages.map((m) => m.level), ['error']);
      assert.match(fake.messages[0]!.message, /^Device Doctor (will not|cannot) install @tensorflow\/tfjs-node: /);
      assert.deepStrictEqual([fake.modals, npmRan()], [[], false]);
    });

    it('asks in a modal that names every download and where it comes from; declining downloads nothing', async () => {
      await install(fakeNpm('exit 0'), { plan: 'ready', confirm: false });
      assert.strictEqual(fake.modals.length, 1);
      const [modal] = fake.modals;
      assert.strictEqual(modal!.message, 'Download and install @tensorflow/tfjs-node 4.22.0?');
      assert.deepStrictEqual(modal!.items, ['Download and Install']);
      assert.match(modal!.detail, new RegExp(`into ${path.join(tmp, 'globalStorage', 'native', 'tfjs-node').replace(/[.]/g, '\\.')}:`));
      assert.match(modal!.detail, /127 npm packages in all, from the npm registry/);
      assert.ok(modal!.detail.includes(`${LIBRARY.url}, checked against its pinned SHA-256 ${LIBRARY.sha256}`), modal!.detail);
      assert.strictEqual(npmRan(), false);
    });

    it('offline: one clear error, nothing refreshed', async () => {
      await install(fakeNpm(`echo "npm error network request to https://registry.npmjs.org/@tensorflow%2ftfjs-node failed, reason: getaddrinfo ENOTFOUND registry.npmjs.org" >&2; exit 1`));
      assert.deepStrictEqual(fake.messages.map((m) => [m.level, m.message, m.items]), [['error', 'Could not download TensorFlow: network request to https://registry.npmjs.org/@tensorflow%2ftfjs-node failed, reason: getaddrinfo ENOTFOUND registry.npmjs.org (offline?)', ['Show Log']]]);
      assert.strictEqual(refreshes, 0);
      assert.ok(logLines.some((l) => /^\[install\] npm error network request/.test(l)), 'npm\'s output is in the log');
    });

    it('installed: the engine list is asked again and says whether the engine can run', async () => {
      const env = fakeNpm('while [ "$1" != "--prefix" ]; do shift; done; mkdir -p "$2/node_modules/@tensorflow/tfjs-node" && echo "{}" > "$2/node_modules/@tensorflow/tfjs-node/package.json"');
      const ready: EnginesResponse = { ...ENGINES, engines: [{ engine: 'tfjs-node', devices: ['cpu'], dtypes: ['float32'], problem: null }] };
      await install(env, { engines: ready });
      assert.strictEqual(refreshes, 1);
      assert.deepStrictEqual(fake.messages.map((m) => [m.level, m.message]), [['info', '@tensorflow/tfjs-node is installed: the tfjs-node engine is ready.']]);
      assert.ok(fs.existsSync(path.join(tmp, 'globalStorage', 'native', 'tfjs-node', 'node_modules', '@tensorflow', 'tfjs-node')), 'in the package\'s own folder');
      fake.messages.length = 0;
      await install(env);
      assert.deepStrictEqual(fake.messages.map((m) => m.level), ['warning']);
      assert.match(fake.messages[0]!.message, /is installed, but the tfjs-node engine cannot run: Native TensorFlow\.js/);
    });

    it('without npm: says so, and how to get it', async () => {
      await install({ PATH: path.join(tmp, 'empty') });
      assert.deepStrictEqual(fake.messages.map((m) => m.message), ['npm was not found (next to VS Code\'s runtime or on PATH). Install Node.js, which includes npm, and run this command again.']);
    });
  });
});
