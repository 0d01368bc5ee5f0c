// Panels that come back after a window reload: VS Code keeps the tabs of registered view types
// and hands each one back here (activating the extension for it: package.json's
// onWebviewPanel events); the panel objects adopt it and render their current state.
import * as vscode from 'vscode';
import type { BenchmarkFeature } from './benchmark/benchmarkFeature';
import { BENCHMARK_VIEW_TYPE } from './benchmark/panel/benchmarkPanel';
import type { DeviceReportPanel } from './devices/deviceReportPanel';
import { REPORT_VIEW_TYPE } from './devices/deviceReportPanel';

export interface SerializedPanels {
  reportPanel: DeviceReportPanel;
  benchmarks: BenchmarkFeature;
}

export function registerPanelSerializers(doctor: SerializedPanels): vscode.Disposable[] {
  return [
    vscode.window.registerWebviewPanelSerializer(REPORT_VIEW_TYPE, {
      deserializeWebviewPanel: async (panel) => doctor.reportPanel.adopt(panel),
    }),
    vscode.window.registerWebviewPanelSerializer(BENCHMARK_VIEW_TYPE, {
      // The state the page's script saved (vscode.setState): the run it showed; benchHistory's runToRestore reads it.
      deserializeWebviewPanel: async (panel, state: unknown) => doctor.benchmarks.panel.adopt(panel, state),
    }),
  ];
}
