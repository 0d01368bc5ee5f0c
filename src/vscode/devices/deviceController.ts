// The device side of the extension: owns the worker client, runs detections (one at a time; a
// request during one queues a single rerun), keeps the snapshot the status bar and the report view
// render, and decides when memory is monitored (status bar shown and window focused).
import * as vscode from 'vscode';
import type { DeviceReport } from '../../core/devices/report';
import { BenchRequest, DetectRequest, EnginesRequest, HistoryRequest } from '../../protocol/worker';
import type { HistoryResponse, BenchParams, BenchRunResponse, EnginesParams, EnginesResponse, MemorySamples, ProbeOptions, WorkerProblem } from '../../protocol/worker';
import { EMPTY_SNAPSHOT } from './deviceSnapshot';
import type { DeviceSnapshot } from './deviceSnapshot';
import { detectTimeoutMs, probeTimeoutOption, readDeviceSettings, REDETECT_SETTINGS, STATUS_BAR_SETTINGS } from './deviceSettings';
import type { DeviceSettings } from './deviceSettings';
import { LifecycleQueue } from '../shared/lifecycleQueue';
import { InterpreterLocator } from '../interpreter/python';
import { nativeSearchPaths } from '../benchmark/nativeTf/nativeTfFolder';
import { WorkerClient } from '../worker/workerClient';
import type { WorkerState } from '../worker/workerClient';
import { isShutdownStop, WorkerError } from '../worker/workerErrors';
import { SETTINGS_SECTION } from '../../protocol/settings';
import { InterpretersRequest, type InterpretersResponse } from '../../protocol/interpreters';
import { CollectiveBenchRequest, type CollectiveBenchParams, type CollectiveBenchResponse } from '../../protocol/collectives';

/** Every interpreter is probed (two at a time): a few of them may each take the probe timeout. */
const DISCOVERY_TIMEOUT_MS = 5 * 60_000;

/** Worker problems kept for the tooltip (the newest). */
const MAX_WORKER_PROBLEMS = 5;
/** A sweep of every engine may rightly run for many minutes; the user cancels from the notification. */
const BENCH_TIMEOUT_MS = 60 * 60_000;
/** A cancelled benchmark stops within a second and answers with what finished; wait a little longer than that for it. */
const BENCH_ANSWER_AFTER_CANCEL_MS = 3_000;

/** The extension host (a Jupyter kernel it starts is below it) and each terminal's shell (below the pty host, not us). */
async function windowPids(): Promise<number[]> {
  const terminals = await Promise.all(vscode.window.terminals.map((terminal) => Promise.resolve(terminal.processId).catch(() => undefined)));
  const pids = [process.pid, ...terminals.filter((pid): pid is number => typeof pid === 'number')];
  return [...new Set(pids)].sort((a, b) => a - b);
}

export class DeviceController implements vscode.Disposable {
  readonly client: WorkerClient;
  private state: DeviceSnapshot = EMPTY_SNAPSHOT;
  private readonly detections = new LifecycleQueue();
  private readonly interpreters: InterpreterLocator;
  private readonly changed = new vscode.EventEmitter<DeviceSnapshot>();
  private readonly disposables: vscode.Disposable[] = [];
  private focused = vscode.window.state.focused;
  /** The last detection died with the worker: detect again once it is back. */
  private detectionCrashed = false;
  private startTimer: NodeJS.Timeout | undefined;
  /** stop() was called (deactivate: a window reload or close); requests cut short by it did not fail. */
  private stopping = false;

  readonly onDidChange = this.changed.event;

  /** nativeFolder: where the native TensorFlow install goes (nativeTfFolder), searched by detect as by a benchmark; null: none. */
  constructor(extension: vscode.ExtensionContext, private readonly log: vscode.LogOutputChannel, private readonly nativeFolder: string | null = null) {
    this.client = new WorkerClient({ modulePath: extension.asAbsolutePath('dist/worker.js'), log });
    this.interpreters = new InterpreterLocator(log);
    this.disposables.push(
      this.changed,
      this.interpreters,
      this.client.onMemorySamples((samples) => this.addSamples(samples)),
      this.client.onGpuProcesses(({ processes }) => this.update({ processes })),
      // A terminal's shell is the window's too: what it starts is marked so in the process list.
      vscode.window.onDidOpenTerminal(() => this.planMonitoring()),
      vscode.window.onDidCloseTerminal(() => this.planMonitoring()),
      this.client.onProblem((problem) => this.addWorkerProblem(problem)),
      this.client.onDidChangeState((state) => this.workerStateChanged(state)),
      this.client.onDidRestartAfterCrash(() => { if (this.detectionCrashed) void this.detect(); }),
      vscode.window.onDidChangeWindowState((window) => { this.focused = window.focused; this.planMonitoring(); }),
      vscode.workspace.onDidChangeConfiguration((event) => this.configurationChanged(event)),
      // Restricted Mode skipped PyTorch; now the workspace's interpreter may run.
      vscode.workspace.onDidGrantWorkspaceTrust(() => void this.detect()),
      this.interpreters.onDidChange(() => void this.detect()),
    );
  }

  get snapshot(): DeviceSnapshot {
    return this.state;
  }

  settings(): DeviceSettings {
    return readDeviceSettings(vscode.workspace.getConfiguration(SETTINGS_SECTION, vscode.workspace.workspaceFolders?.[0]?.uri));
  }

  /** Forks the worker and runs the first detection after activate() has returned. */
  start(): void {
    this.startTimer = setTimeout(() => {
      this.startTimer = undefined;
      void this.detect();
      this.planMonitoring();
    }, 0);
  }

  /**
   * Detects again; resolves with the report of a detection that started after this call.
   * `refresh`: the user asked, so PyTorch is probed again even if its interpreter is unchanged.
   */
  async detect(token?: vscode.CancellationToken, refresh = false): Promise<DeviceReport | undefined> {
    await this.detections.restart(() => this.runDetection(token, refresh));
    return this.state.detectError === null ? this.state.report ?? undefined : undefined;
  }

  /** What every benchmark request carries: the interpreter a detection would run (Workspace Trust applied) and the pin. */
  async benchTarget(): Promise<Pick<BenchParams, 'pythonPath' | 'pinnedDevice'>> {
    const interpreter = await this.interpreters.locate();
    return { pythonPath: interpreter.pythonPath, pinnedDevice: this.settings().pinnedDevice };
  }

  /** Runs a matmul benchmark in the worker; progress arrives through client.onBenchProgress. */
  bench(params: BenchParams, token?: vscode.CancellationToken): Promise<BenchRunResponse> {
    return this.client.request(BenchRequest, params, { token, timeoutMs: BENCH_TIMEOUT_MS, answerAfterCancelMs: BENCH_ANSWER_AFTER_CANCEL_MS });
  }

  /** Runs a collective benchmark in the worker (torch.distributed ranks); progress through client.onCollectiveProgress. */
  benchCollective(params: CollectiveBenchParams, token?: vscode.CancellationToken): Promise<CollectiveBenchResponse> {
    return this.client.request(CollectiveBenchRequest, params, { token, timeoutMs: BENCH_TIMEOUT_MS, answerAfterCancelMs: BENCH_ANSWER_AFTER_CANCEL_MS });
  }

  /** The engines and devices a benchmark can use here (the worker may detect first). */
  benchEngines(params: EnginesParams, token?: vscode.CancellationToken): Promise<EnginesResponse> {
    return this.client.request(EnginesRequest, params, { token, timeoutMs: detectTimeoutMs(this.settings()) });
  }

  /** Every interpreter on this machine with its PyTorch (the worker probes each once per path and mtime). */
  async discoverInterpreters(token?: vscode.CancellationToken): Promise<InterpretersResponse> {
    const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
    const known = await this.interpreters.knownInterpreters();
    const params = { workspaceFolders: folders, trusted: vscode.workspace.isTrusted, known, ...probeTimeoutOption(this.settings()) };
    return this.client.request(InterpretersRequest, params, { token, timeoutMs: DISCOVERY_TIMEOUT_MS });
  }

  /** The monitor's last minutes, or undefined while the worker is not running (asking must not start one). */
  async history(): Promise<HistoryResponse | undefined> {
    if (this.client.state !== 'running') return undefined;
    return this.client.request(HistoryRequest, undefined, { timeoutMs: 5_000 });
  }

  /** The user's "Restart Worker": a given-up worker gets a fresh start, then a fresh report. */
  async restartWorker(): Promise<void> {
    await this.client.restart();
    this.planMonitoring();
    await this.detect();
  }

  /** True when `error` only says that the worker was stopped because the extension is shutting down. */
  stoppedByShutdown(error: unknown): boolean {
    return isShutdownStop(error, this.stopping);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.startTimer);
    await this.client.dispose();
  }

  dispose(): void {
    void this.stop();
    for (const disposable of this.disposables.splice(0)) disposable.dispose();
  }

  private async runDetection(token: vscode.CancellationToken | undefined, refresh: boolean): Promise<void> {
    this.update({ probing: true });
    try {
      const interpreter = await this.interpreters.locate();
      this.update({ interpreter });
      const settings = this.settings();
      const options: ProbeOptions = {
        pythonPath: interpreter.pythonPath,
        pinnedDevice: settings.pinnedDevice,
        ...probeTimeoutOption(settings),
        ...(refresh ? { refresh } : {}),
        nativeSearchPaths: this.nativeFolder === null ? [] : nativeSearchPaths(this.nativeFolder),
      };
      // The path where a path belongs; the note (a sentence: where it came from, or why none) after it.
      this.log.info(`Detecting devices: interpreter ${interpreter.pythonPath ?? 'none'}, device ${settings.pinnedDevice ?? 'automatic'}. ${interpreter.note}`);
      const report = await this.client.request(DetectRequest, options, { token, timeoutMs: detectTimeoutMs(settings) });
      this.detectionCrashed = false;
      // A fresh report supersedes what the worker complained about before it.
      this.update({ report, detectError: null, workerProblems: [] });
      this.log.info(`Selected device: ${report.selected.device} (${report.selected.reason}); ${report.accelerators.length} accelerator(s), ${report.problems.length} problem(s).`);
    } catch (error) {
      this.detectionFailed(error);
    } finally {
      this.update({ probing: false });
    }
  }

  private detectionFailed(error: unknown): void {
    if (error instanceof WorkerError && error.kind === 'cancelled') {
      this.log.info('Device detection cancelled.');
      return;
    }
    if (this.stoppedByShutdown(error)) {
      // A reload stopped the worker mid-detection: the next window detects afresh.
      this.log.info('Device detection stopped: the extension is shutting down.');
      return;
    }
    this.detectionCrashed = error instanceof WorkerError && error.kind === 'crashed';
    const message = error instanceof Error ? error.message : String(error);
    this.log.error(`Device detection failed: ${message}`);
    this.update({ detectError: message });
  }

  private monitoringWanted(): boolean {
    return this.settings().statusBarEnabled && this.focused && this.state.workerStopped === null;
  }

  private planMonitoring(): void {
    if (!this.monitoringWanted()) {
      void this.client.setMonitor(null);
      return;
    }
    // Asked again after the terminals answered: focus may have gone meanwhile.
    void windowPids().then((pids) => this.client.setMonitor(this.monitoringWanted() ? { intervalMs: this.settings().monitorIntervalMs, windowPids: pids } : null));
  }

  private configurationChanged(event: vscode.ConfigurationChangeEvent): void {
    if (REDETECT_SETTINGS.some((key) => event.affectsConfiguration(key))) void this.detect();
    if (STATUS_BAR_SETTINGS.some((key) => event.affectsConfiguration(key))) {
      this.planMonitoring();
      this.changed.fire(this.state);
    }
  }

  private workerStateChanged(state: WorkerState): void {
    if (state === 'gaveUp') {
      this.update({ workerStopped: this.client.gaveUpMessage ?? 'The Device Doctor worker is stopped.' });
      void this.offerRestart(this.client.gaveUpMessage ?? 'The Device Doctor worker is stopped.');
    } else if (state === 'running' && this.state.workerStopped !== null) {
      this.update({ workerStopped: null });
    }
  }

  private async offerRestart(message: string): Promise<void> {
    const choice = await vscode.window.showErrorMessage(message, 'Restart Worker', 'Show Log');
    if (choice === 'Restart Worker') await this.restartWorker();
    else if (choice === 'Show Log') this.log.show();
  }

  private addSamples({ samples }: MemorySamples): void {
    const latest = { ...this.state.samples };
    for (const sample of samples) latest[sample.id] = sample;
    this.update({ samples: latest });
  }

  private addWorkerProblem(problem: WorkerProblem): void {
    this.log.warn(`${problem.source}: ${problem.message}`);
    const others = this.state.workerProblems.filter((p) => p.source !== problem.source || p.message !== problem.message);
    this.update({ workerProblems: [...others, problem].slice(-MAX_WORKER_PROBLEMS) });
  }

  private update(change: Partial<DeviceSnapshot>): void {
    this.state = { ...this.state, ...change };
    this.changed.fire(this.state);
  }
}
