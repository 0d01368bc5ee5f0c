// The engine/device quick pick of Run Matmul Benchmark: the editor side of targetPickModel.ts.
// It shows at once (busy), fills in the engines that need no PyTorch as soon as the worker lists
// them, marks torch as being probed, and is updated in place when the probe answers.
import * as vscode from 'vscode';
import type { EnginesResponse } from '../../protocol/worker';
import { classifyBenchError } from './runBenchmarkErrors';
import type { TargetPick } from './runBenchmarkPicks';
import { TargetPickModel, type TargetRow } from './targetPickModel';

export interface TargetPickDeps {
  title: string;
  /** The worker's engines; withoutTorch: at once, torch left out. */
  engines(withoutTorch: boolean): Promise<EnginesResponse>;
  log: Pick<vscode.LogOutputChannel, 'warn' | 'error'>;
  /** Nothing could be listed at all: the pick is closed and this says why. */
  showFailure(message: string): void;
}

/** The chosen row (an unavailable engine too: the caller explains it); undefined on Escape. */
export function showTargetPick(deps: TargetPickDeps): Promise<TargetPick | undefined> {
  const model = new TargetPickModel();
  const quickPick = vscode.window.createQuickPick<vscode.QuickPickItem>();
  quickPick.title = deps.title;
  // A step of Run Matmul Benchmark: it survives the focus bounce between steps (STEP_PICK).
  quickPick.ignoreFocusOut = true;
  quickPick.matchOnDescription = true;
  let settled = false;
  const render = (): void => {
    if (settled) return;
    // Replacing the items focuses the first row: the row the user is on stays focused.
    const active = quickPick.activeItems[0]?.label;
    const items = model.rows().map(toQuickPickItem);
    quickPick.items = items;
    const keep = items.find((item) => item.label === active && item.kind !== vscode.QuickPickItemKind.Separator);
    if (keep) quickPick.activeItems = [keep];
    quickPick.placeholder = model.placeholder;
    quickPick.busy = model.busy;
  };
  return new Promise((resolve) => {
    const finish = (value: TargetPick | undefined): void => {
      if (settled) return;
      settled = true;
      quickPick.dispose();
      resolve(value);
    };
    quickPick.onDidAccept(() => {
      const outcome = model.accept((quickPick.selectedItems[0] ?? quickPick.activeItems[0])?.label);
      // The probing torch row is not a choice yet: the pick stays open until torch's devices arrive.
      if (outcome.kind !== 'wait') finish(outcome.kind === 'chosen' ? outcome.pick : undefined);
    });
    quickPick.onDidHide(() => finish(undefined));
    render();
    quickPick.show();
    deps.engines(true).then(
      (engines) => {
        model.quickAnswered(engines);
        render();
      },
      // The full answer still comes, or says why not.
      (error: unknown) => deps.log.warn(`Could not list the engines without PyTorch: ${error instanceof Error ? error.message : String(error)}`),
    );
    deps.engines(false).then(
      (engines) => {
        model.fullAnswered(engines);
        render();
      },
      (error: unknown) => {
        const failure = classifyBenchError(error);
        if (failure.kind === 'cancelled') return finish(undefined);
        deps.log.error(`Could not list the benchmark engines: ${failure.message}`);
        if (settled) return;
        if (model.fullFailed(failure.message)) return render();
        finish(undefined);
        deps.showFailure(failure.message);
      },
    );
  });
}

/** A model row as the editor's item: separators become the editor's kind. */
function toQuickPickItem(row: TargetRow): vscode.QuickPickItem {
  return 'separator' in row ? { label: row.separator, kind: vscode.QuickPickItemKind.Separator } : { ...row };
}
