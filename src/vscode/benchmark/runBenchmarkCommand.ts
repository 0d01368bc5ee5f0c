// Device Doctor: Run Matmul Benchmark — what to compare, which engine/device (for one), which
// size or a sweep; then a cancellable progress notification fed by the worker's progress, and the
// results panel. Cancel says "Cancelled" in the panel (no error toast) and keeps what finished; a busy worker or an
// impossible request says so in one sentence.
import * as vscode from 'vscode';
import type { Event } from 'vscode-jsonrpc';
import { isFailure } from '../../core/bench/outcomes';
import type { BenchParams, BenchProgressParams, BenchRunResponse, EnginesParams, EnginesResponse } from '../../protocol/worker';
import { cancelSummary } from './benchFormat';
import { progressMessage, ProgressTracker } from './benchProgress';
import { makeHistoryEntry } from './benchHistory';
import type { BenchHistory, BenchHistoryEntry } from './benchHistory';
import type { BenchPanelStatus } from './panel/benchmarkHtml';
import { classifyBenchError, BENCH_BUSY_MESSAGE } from './runBenchmarkErrors';
import type { BenchFailure } from './runBenchmarkErrors';
import { COMPARE_PICKS, describeChoice, dtypePicks, SIZE_PICKS, toBenchParams } from './runBenchmarkPicks';
import type { BenchChoice, ComparePick, DtypePick, SizePick, TargetPick } from './runBenchmarkPicks';
import { showTargetPick } from './targetQuickPick';
import type { Dtype } from '../../core/bench/model';
import { collectiveComparePick, type CollectiveComparePick, type CollectiveOffer } from './collective/collectivePicks';
import type { EveryDevicePick } from './everyDevicePick';
import { inTheEditor } from '../../core/interpreters/choiceWays';

export const BENCHMARK_COMMAND_TITLE = 'Device Doctor: Run Matmul Benchmark';

/**
 * The picks of one run are steps of one question: a step stays open when the focus leaves it.
 * Between two steps the focus goes back to the editor for a moment, and with the benchmark
 * panel there, its focus event can arrive after the next step opened and would close it on a
 * busy machine. Escape still closes each step.
 */
const STEP_PICK = { title: BENCHMARK_COMMAND_TITLE, ignoreFocusOut: true } as const;
export const INSTALL_NATIVE_ACTION = 'Install Native TensorFlow Backend';

/** The worker side, as DeviceController offers it. */
export interface BenchBackend {
  benchTarget(): Promise<Pick<BenchParams, 'pythonPath' | 'pinnedDevice'>>;
  bench(params: BenchParams, token?: vscode.CancellationToken): Promise<BenchRunResponse>;
  benchEngines(params: EnginesParams, token?: vscode.CancellationToken): Promise<EnginesResponse>;
  readonly client: { readonly onBenchProgress: Event<BenchProgressParams> };
}

/** The results panel, as BenchmarkPanel offers it. */
export interface BenchView {
  showRun(entry: BenchHistoryEntry, status?: BenchPanelStatus): void;
  setStatus(status: BenchPanelStatus, reveal: boolean): void;
}

export interface BenchmarkCommandDeps {
  devices: BenchBackend;
  panel: BenchView;
  history: Pick<BenchHistory, 'add'>;
  log: Pick<vscode.LogOutputChannel, 'info' | 'warn' | 'error' | 'show'>;
  /** Where native TensorFlow.js may have been installed (sent with every request). */
  nativeSearchPaths(): string[];
  installNativeTf(): void;
  newRunId?(): string;
  /** How a collective benchmark would run here, or null (no usable PyTorch): the choice is offered only then. */
  collectiveOffer?(): CollectiveOffer | null;
  runCollective?(offer: CollectiveOffer): Promise<void>;
  /** The "every device" choice when PyTorch sees two accelerators or more, else null. */
  everyDevicePick?(): EveryDevicePick | null;
}

/** A cancelled run may carry what finished before the cancel (the worker answers with it). */
type Outcome = { kind: 'done'; run: BenchRunResponse } | { kind: 'cancelled'; run: BenchRunResponse } | BenchFailure;

/** How long after a cancel a "busy" answer means the cancelled run is still stopping (the worker stops within a second). */
const CANCEL_SETTLE_MS = 3000;
const BUSY_RETRY_MS = 250;

export class BenchmarkRunner {
  /** The description of the benchmark in flight, if any: one at a time per window. */
  private running: string | null = null;
  private counter = 0;
  /** When the last run was cancelled (ms since the epoch). */
  private lastCancel = 0;

  constructor(private readonly deps: BenchmarkCommandDeps) {}

  get isRunning(): boolean {
    return this.running !== null;
  }

  async run(): Promise<void> {
    if (this.running !== null) {
      void vscode.window.showInformationMessage(BENCH_BUSY_MESSAGE);
      return;
    }
    const choice = await this.ask();
    if (choice) await this.execute(choice);
  }

  /** The quick picks, in order; undefined when the user stops (Escape) or picks an unavailable engine. */
  async ask(): Promise<BenchChoice | undefined> {
    // Collective bandwidth is offered when PyTorch can run it here (GPUs over NCCL, else CPU ranks over gloo).
    // Every device is offered with two accelerators or more that PyTorch sees.
    const offer = this.deps.collectiveOffer?.() ?? null;
    const everyDevice = this.deps.everyDevicePick?.() ?? null;
    const picks: Array<ComparePick | EveryDevicePick | CollectiveComparePick> = [...COMPARE_PICKS, ...(everyDevice ? [everyDevice] : []), ...(offer ? [collectiveComparePick(offer)] : [])];
    const compare = await vscode.window.showQuickPick<(ComparePick | EveryDevicePick | CollectiveComparePick) & vscode.QuickPickItem>(picks.map((p) => ({ ...p })), {
      ...STEP_PICK,
      placeHolder: 'What to compare',
    });
    if (!compare) return undefined;
    if ('collective' in compare) {
      await this.deps.runCollective?.(compare.collective);
      return undefined;
    }
    let target: BenchChoice['target'];
    let dtypes: readonly Dtype[] | undefined;
    let device: string | undefined;
    if (compare.compare === 'single') {
      const picked = await this.pickTarget();
      if (!picked) return undefined;
      if (picked.device === null) {
        this.explainUnavailable(picked);
        return undefined;
      }
      target = { engine: picked.engine, device: picked.device };
      dtypes = picked.dtypes;
      device = picked.device;
    }
    const size = await vscode.window.showQuickPick<SizePick & vscode.QuickPickItem>(SIZE_PICKS.map((p) => ({ ...p })), {
      ...STEP_PICK,
      placeHolder: 'Matrix size n (n×n · n×n)',
    });
    if (!size) return undefined;
    const dtype = await this.pickDtype(dtypes, device);
    if (dtype === null) return undefined;
    const engine = 'engine' in compare ? { engine: compare.engine } : {};
    const bothPasses = 'everyDevice' in compare ? { everyDevice: true } : {};
    return { compare: compare.compare, target, ...engine, ...bothPasses, size: size.size, ...(dtype ? { dtype } : {}) };
  }

  /** The dtype, when there is a choice (undefined: float32 is all the engine runs; null: Escape). */
  private async pickDtype(supported: readonly Dtype[] | undefined, device?: string): Promise<Dtype | undefined | null> {
    // tf32 is offered for one CUDA target only: against the CPU it would have no baseline.
    const picks = dtypePicks(supported, device);
    if (picks.length === 0) return undefined;
    const picked = await vscode.window.showQuickPick<DtypePick & vscode.QuickPickItem>(picks.map((p) => ({ ...p })), {
      ...STEP_PICK,
      placeHolder: 'Element type of the matrices',
    });
    return picked ? picked.dtype : null;
  }

  /** The engine and device: shown at once, torch marked as being probed until its probe answers (targetQuickPick.ts). */
  private pickTarget(): Promise<TargetPick | undefined> {
    const { devices } = this.deps;
    const target = devices.benchTarget();
    return showTargetPick({
      title: BENCHMARK_COMMAND_TITLE,
      engines: (withoutTorch) => target.then((t) => devices.benchEngines({ ...t, nativeSearchPaths: this.deps.nativeSearchPaths(), ...(withoutTorch ? { withoutTorch } : {}) })),
      log: this.deps.log,
      showFailure: (message) => this.showFailure('Could not list the benchmark engines', message),
    });
  }

  private explainUnavailable(pick: TargetPick): void {
    const text = inTheEditor([pick.unavailable?.message, pick.unavailable?.remedy].filter(Boolean).join(' '));
    const native = pick.engine === 'tfjs-node' || pick.engine === 'tfjs-node-gpu';
    void vscode.window.showWarningMessage(text, ...(native ? [INSTALL_NATIVE_ACTION] : [])).then((action) => {
      if (action === INSTALL_NATIVE_ACTION) this.deps.installNativeTf();
    });
  }

  async execute(choice: BenchChoice): Promise<void> {
    const description = describeChoice(choice);
    const runId = this.deps.newRunId?.() ?? `bench-${Date.now()}-${++this.counter}`;
    this.running = description;
    this.deps.panel.setStatus({ kind: 'running', description }, false);
    try {
      const target = await this.deps.devices.benchTarget();
      const params = toBenchParams(choice, { ...target, runId, nativeSearchPaths: this.deps.nativeSearchPaths() });
      this.deps.log.info(`Benchmark: ${description} (${JSON.stringify(params)}).`);
      const outcome = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Matmul benchmark (${description})`, cancellable: true },
        (progress, token) => this.request(params, progress, token),
      );
      await this.finish(outcome, description, runId);
    } finally {
      this.running = null;
    }
  }

  private async request(params: BenchParams, progress: vscode.Progress<{ message?: string; increment?: number }>, token: vscode.CancellationToken): Promise<Outcome> {
    const tracker = new ProgressTracker();
    progress.report({ message: 'starting…' });
    const subscription = this.deps.devices.client.onBenchProgress((p) => {
      if (p.runId === params.runId) progress.report({ message: progressMessage(p), increment: tracker.increment(p) });
    });
    try {
      for (;;) {
        try {
          const run = await this.deps.devices.bench(params, token);
          return run.cancelled || token.isCancellationRequested ? { kind: 'cancelled', run } : { kind: 'done', run };
        } catch (error) {
          const failure: Outcome = token.isCancellationRequested ? { kind: 'cancelled' } : classifyBenchError(error);
          if (failure.kind !== 'busy' || !(await this.stillStopping(token))) return failure;
        }
      }
    } finally {
      subscription.dispose();
    }
  }

  /**
   * The client lets go of a cancelled request at once, while the worker takes up to a second to
   * stop it: a run started just after a cancel waits for that instead of reporting "busy".
   */
  private async stillStopping(token: vscode.CancellationToken): Promise<boolean> {
    if (Date.now() - this.lastCancel > CANCEL_SETTLE_MS || token.isCancellationRequested) return false;
    await new Promise((resolve) => setTimeout(resolve, BUSY_RETRY_MS));
    return !token.isCancellationRequested;
  }

  private async finish(outcome: Outcome, description: string, runId: string): Promise<void> {
    const { panel, log } = this.deps;
    switch (outcome.kind) {
      case 'done': return this.showResults(outcome.run, runId);
      case 'cancelled': {
        this.lastCancel = Date.now();
        const kept = 'run' in outcome ? cancelSummary(outcome.run) : null;
        log.info(`Benchmark cancelled: ${description}${kept ? ` (${kept})` : ''}.`);
        // What finished before the cancel is a measurement like any other: stored and shown.
        if (kept && 'run' in outcome) await this.showResults(outcome.run, runId, { kind: 'cancelled', description, kept });
        else panel.setStatus({ kind: 'cancelled', description, kept: null }, true);
        vscode.window.setStatusBarMessage('$(circle-slash) Matmul benchmark cancelled', 5000);
        return;
      }
      case 'busy':
        panel.setStatus({ kind: 'idle' }, false);
        void vscode.window.showInformationMessage(outcome.message);
        return;
      default:
        log.error(`Benchmark failed (${description}): ${outcome.message}`);
        panel.setStatus({ kind: 'failed', description, message: outcome.message }, false);
        this.showFailure(outcome.kind === 'invalid' ? 'This benchmark cannot run' : 'The benchmark failed', outcome.message);
    }
  }

  private async showResults(run: BenchRunResponse, runId: string, status?: BenchPanelStatus): Promise<void> {
    const entry = makeHistoryEntry(run, Date.now(), runId);
    try {
      await this.deps.history.add(entry);
    } catch (error) {
      this.deps.log.warn(`Could not store the benchmark in the history: ${error instanceof Error ? error.message : String(error)}`);
    }
    this.deps.log.info(`Benchmark done: ${run.results.length} measurement(s), ${run.problems.length} problem(s).`);
    this.deps.panel.showRun(entry, status);
    const wrong = run.problems.find(isFailure);
    if (wrong) void vscode.window.showErrorMessage(`Matmul benchmark: ${wrong.message}`);
  }

  private showFailure(prefix: string, message: string): void {
    void vscode.window.showErrorMessage(`${prefix}: ${message}`, 'Show Log').then((action) => {
      if (action === 'Show Log') this.deps.log.show();
    });
  }
}
