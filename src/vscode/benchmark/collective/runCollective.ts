// The collective-bandwidth branch of Run Matmul Benchmark: which collective, the largest size,
// then a cancellable progress notification fed by the worker's per-measurement progress, and
// the Collective Bandwidth panel. Cancel stops every rank; a wrong result, a dead rank or an
// impossible request is one sentence (the worker's), never a stack trace.
import * as vscode from 'vscode';
import type { Event } from 'vscode-jsonrpc';
import { sizeText } from '../../../core/bench/collectives/sizeText';
import { wrongMeasurements } from '../../../core/bench/collectives/report';
import type { DeviceReport } from '../../../core/devices/report';
import type { CollectiveBenchParams, CollectiveBenchResponse, CollectiveProgressParams } from '../../../protocol/collectives';
import type { BenchParams } from '../../../protocol/worker';
import { classifyBenchError } from '../runBenchmarkErrors';
import type { CollectivePanel } from './collectivePanel';
import {
  COLLECTIVE_KIND_PICKS,
  collectiveSizePicks,
  describeCollectiveChoice,
  toCollectiveParams,
  type CollectiveChoice,
  type CollectiveKindPick,
  type CollectiveOffer,
  type CollectiveSizePick,
} from './collectivePicks';

export interface CollectiveBackend {
  benchTarget(): Promise<Pick<BenchParams, 'pythonPath' | 'pinnedDevice'>>;
  benchCollective(params: CollectiveBenchParams, token?: vscode.CancellationToken): Promise<CollectiveBenchResponse>;
  readonly snapshot: { readonly report: DeviceReport | null };
  readonly client: { readonly onCollectiveProgress: Event<CollectiveProgressParams> };
}

export interface CollectiveRunnerDeps {
  devices: CollectiveBackend;
  panel: Pick<CollectivePanel, 'setStatus' | 'showReport'>;
  log: Pick<vscode.LogOutputChannel, 'info' | 'error' | 'show'>;
  title: string;
}

export class CollectiveRunner {
  private running = false;
  private counter = 0;

  constructor(private readonly deps: CollectiveRunnerDeps) {}

  async run(offer: CollectiveOffer): Promise<void> {
    if (this.running) {
      void vscode.window.showInformationMessage('A collective benchmark is already running. Wait for it, or cancel it from its notification.');
      return;
    }
    const choice = await this.ask(offer);
    if (choice) await this.execute(choice);
  }

  private async ask(offer: CollectiveOffer): Promise<CollectiveChoice | undefined> {
    const kind = await vscode.window.showQuickPick<CollectiveKindPick & vscode.QuickPickItem>(COLLECTIVE_KIND_PICKS.map((p) => ({ ...p })), {
      title: this.deps.title, ignoreFocusOut: true, placeHolder: `Which collective, on ${offer.where}`,
    });
    if (!kind) return undefined;
    const size = await vscode.window.showQuickPick<CollectiveSizePick & vscode.QuickPickItem>(collectiveSizePicks(offer).map((p) => ({ ...p })), {
      title: this.deps.title, ignoreFocusOut: true, placeHolder: 'Message sizes: from 1 MiB, doubling, up to',
    });
    if (!size) return undefined;
    return { offer, collectives: kind.collectives, maxBytes: size.maxBytes };
  }

  private async execute(choice: CollectiveChoice): Promise<void> {
    const { panel, log, devices } = this.deps;
    const description = describeCollectiveChoice(choice);
    const runId = `collective-${Date.now()}-${++this.counter}`;
    this.running = true;
    panel.setStatus({ kind: 'running', description }, true);
    try {
      const params = toCollectiveParams(choice, { ...(await devices.benchTarget()), runId });
      log.info(`Collective benchmark: ${description} (${JSON.stringify(params)}).`);
      const answer = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Collective bandwidth (${description})`, cancellable: true },
        async (progress, token) => {
          progress.report({ message: 'starting the ranks…' });
          const subscription = devices.client.onCollectiveProgress((p) => {
            if (p.runId === runId) progress.report({ message: `${p.collective} ${sizeText(p.bytes)} measured (${p.step} of ${p.steps})`, increment: 100 / p.steps });
          });
          try {
            return await devices.benchCollective(params, token);
          } catch (error) {
            return classifyBenchError(error);
          } finally {
            subscription.dispose();
          }
        },
      );
      if ('kind' in answer || answer.cancelled || !answer.report) {
        const failure = 'kind' in answer ? answer : { kind: 'cancelled' as const };
        if (failure.kind === 'cancelled') {
          panel.setStatus({ kind: 'cancelled', description }, false);
          return;
        }
        log.error(`Collective benchmark failed (${description}): ${failure.message}`);
        panel.setStatus({ kind: 'failed', description, message: failure.message }, true);
        void vscode.window.showErrorMessage(`Collective benchmark: ${failure.message}`, 'Show Log').then((action) => { if (action === 'Show Log') log.show(); });
        return;
      }
      const { report } = answer;
      log.info(`Collective benchmark done: ${report.results.length} measurement(s) on ${report.worldSize} ranks (${report.backend}).`);
      panel.showReport({ report, description, time: Date.now() }, devices.snapshot.report);
      const wrong = wrongMeasurements(report)[0];
      if (wrong) void vscode.window.showErrorMessage(`Collective benchmark: ${wrong.collective} of ${sizeText(wrong.bytes)} gave a wrong result on rank ${wrong.wrongRanks.join(', ')}.`);
    } finally {
      this.running = false;
    }
  }
}
