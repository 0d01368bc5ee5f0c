// The compute worker is the one child that is not started through processRunner: it is a Node
// module with an IPC channel (vscode-jsonrpc's IPCMessageReader/Writer need the ChildProcess
// itself), and it is stopped by closing that channel, then SIGTERM, then SIGKILL of the process
// alone: it kills its own children (processRunner's groups) on its way out. One killed outside
// that path cannot, so it tells its parent every group it starts (src/protocol/toolGroups.ts)
// and the parent kills those still running once it has gone (workerProcess.ts).
import { fork, type ChildProcess } from 'child_process';
import { LineSplitter } from './processOutput';

export type ForkedProcess = ChildProcess;

export interface ForkOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** Whatever the module prints instead of speaking over the channel, line by line. */
  onStdoutLine(line: string): void;
  onStderrLine(line: string): void;
}

/** Forks `modulePath` in a Node (in the extension host: Electron running as Node) with an IPC channel. */
export function forkWithIpc(modulePath: string, options: ForkOptions): ForkedProcess {
  const child = fork(modulePath, [], {
    // Never inherit the parent's --inspect flags: a second debugger port would clash.
    execArgv: [],
    cwd: options.cwd,
    // In VS Code process.execPath is Electron: without this it would start another editor.
    env: { ...(options.env ?? process.env), ELECTRON_RUN_AS_NODE: '1' },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  readLines(child.stdout, options.onStdoutLine);
  readLines(child.stderr, options.onStderrLine);
  return child;
}

function readLines(stream: NodeJS.ReadableStream | null, onLine: (line: string) => void): void {
  if (!stream) return;
  const lines = new LineSplitter(onLine);
  stream.setEncoding('utf8');
  stream.on('data', (text: string) => lines.push(text));
  stream.on('end', () => lines.end());
}
