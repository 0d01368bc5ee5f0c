// Every command the extension contributes, by id, in one table (Error Lens `commands.ts`).
// package.json `contributes.commands` lists the same ids (a unit test checks). No vscode import.

export const COMMANDS = {
  restartServer: 'deviceDoctor.restartServer',
  showLog: 'deviceDoctor.showLog',
  detect: 'deviceDoctor.detectAccelerators',
  selectDevice: 'deviceDoctor.selectDevice',
  chooseInterpreter: 'deviceDoctor.chooseInterpreter',
  insertDeviceSelection: 'deviceDoctor.insertDeviceSelection',
  restartWorker: 'deviceDoctor.restartWorker',
  showDeviceReport: 'deviceDoctor.showDeviceReport',
  runBenchmark: 'deviceDoctor.runBenchmark',
  showBenchmarkResults: 'deviceDoctor.showBenchmarkResults',
  installNativeTf: 'deviceDoctor.installNativeTensorFlow',
  showRuleDoc: 'deviceDoctor.showRuleDocumentation',
  dryRunVirtualGpu: 'deviceDoctor.dryRunVirtualGpu',
} as const;

export type CommandId = (typeof COMMANDS)[keyof typeof COMMANDS];
