// The benchmark feature's parts in one owner: the history of runs on this machine, the results
// panel, the Run Matmul Benchmark flow and the native TensorFlow install. deviceDoctor.ts builds one.
import * as vscode from 'vscode';
import type { EnginesResponse } from '../../protocol/worker';
import { BenchHistory } from './benchHistory';
import { COMMANDS } from '../shared/commandIds';
import { installNativeTfCommand } from './nativeTf/installNativeTfCommand';
import { nativeSearchPaths, nativeTfFolder, nativeTfLockDir } from './nativeTf/nativeTfFolder';
import { BENCHMARK_COMMAND_TITLE, BenchmarkRunner } from './runBenchmarkCommand';
import type { DeviceController } from '../devices/deviceController';
import { BenchmarkPanel } from './panel/benchmarkPanel';
import { collectiveOffer } from './collective/collectivePicks';
import { everyDevicePick } from './everyDevicePick';
import { CollectivePanel } from './collective/collectivePanel';
import { CollectiveRunner } from './collective/runCollective';

export class BenchmarkFeature implements vscode.Disposable {
  readonly history: BenchHistory;
  readonly panel: BenchmarkPanel;
  readonly runner: BenchmarkRunner;
  readonly collectivePanel: CollectivePanel;
  readonly collectives: CollectiveRunner;
  /** Where "Install Native TensorFlow Backend" puts npm's node_modules; the worker searches it. */
  readonly nativeFolder: string;
  private readonly nativeLockDir: string;

  constructor(extension: vscode.ExtensionContext, private readonly devices: DeviceController, private readonly log: vscode.LogOutputChannel) {
    this.nativeFolder = nativeTfFolder(extension);
    this.nativeLockDir = nativeTfLockDir(extension);
    this.history = new BenchHistory(extension.globalState, vscode.env.machineId);
    this.panel = new BenchmarkPanel(extension, this.history, log, { runBenchmark: () => void this.run() });
    this.collectivePanel = new CollectivePanel(extension);
    this.collectives = new CollectiveRunner({ devices, panel: this.collectivePanel, log, title: BENCHMARK_COMMAND_TITLE });
    this.runner = new BenchmarkRunner({
      devices,
      collectiveOffer: () => collectiveOffer(devices.snapshot.report),
      everyDevicePick: () => everyDevicePick(devices.snapshot.report),
      runCollective: (offer) => this.collectives.run(offer),
      panel: this.panel,
      history: this.history,
      log,
      nativeSearchPaths: () => this.nativeSearchPaths(),
      installNativeTf: () => void vscode.commands.executeCommand(COMMANDS.installNativeTf),
    });
  }

  run(): Promise<void> {
    return this.runner.run();
  }

  installNativeTf(): Promise<void> {
    return installNativeTfCommand({
      log: this.log,
      folder: this.nativeFolder,
      lockDir: this.nativeLockDir,
      refreshEngines: () => this.refreshEngines(),
      runBenchmark: () => void this.run(),
    });
  }

  dispose(): void {
    this.panel.dispose();
    this.collectivePanel.dispose();
  }

  private nativeSearchPaths(): string[] {
    return nativeSearchPaths(this.nativeFolder);
  }

  private async refreshEngines(): Promise<EnginesResponse | undefined> {
    try {
      const target = await this.devices.benchTarget();
      const engines = await this.devices.benchEngines({ ...target, nativeSearchPaths: this.nativeSearchPaths() });
      this.log.info(`Benchmark engines: ${engines.engines.map((e) => `${e.engine} ${e.problem ? `(${e.problem.status})` : e.devices.join('/')}`).join(', ')}.`);
      return engines;
    } catch (error) {
      this.log.warn(`Could not list the benchmark engines: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
  }
}
