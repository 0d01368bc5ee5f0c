// One forked compute worker and its JSON-RPC connection: everything that lives exactly as long
// as that process. A restart throws the whole object away (its disposables with it) and forks a
// new one; the client's extension-lifetime state stays in WorkerClient.
// No vscode import: tests fork the fake worker through this very code.
import * as path from 'path';
import { createMessageConnection, IPCMessageReader, IPCMessageWriter } from 'vscode-jsonrpc/node';
import type { Disposable, MessageConnection } from 'vscode-jsonrpc/node';
import { forkWithIpc, type ForkedProcess } from '../../node/forkProcess';
import { ToolGroupNotification, type ToolGroupParams } from '../../protocol/toolGroups';
import { WorkerLogNotification } from '../../protocol/worker';
import type { WorkerLog } from '../../protocol/worker';

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface WorkerProcessOptions {
  /** Absolute path of dist/worker.js (or the fake worker in tests). */
  modulePath: string;
  env?: NodeJS.ProcessEnv;
  /** Worker log notifications and the worker's stray stdout/stderr lines. */
  onLog(entry: WorkerLog): void;
  /** Called once when the process has gone, whether asked to or not. */
  onExit(exit: ProcessExit): void;
}

export class WorkerProcess {
  readonly connection: MessageConnection;
  readonly exited: Promise<ProcessExit>;
  private readonly child: ForkedProcess;
  private readonly disposables: Disposable[] = [];
  private hasExited = false;
  /** The worker's tools still running, as it told us: what to kill should it die first. */
  private readonly toolGroups = new Set<number>();

  constructor(options: WorkerProcessOptions) {
    this.child = forkWithIpc(options.modulePath, {
      // Not the workspace: a Python started from there could import a workspace's own "torch".
      cwd: path.dirname(options.modulePath),
      env: options.env,
      onStdoutLine: (line) => options.onLog({ level: 'info', message: `[worker stdout] ${line}` }),
      onStderrLine: (line) => options.onLog({ level: 'warn', message: `[worker stderr] ${line}` }),
    });
    this.exited = new Promise((resolve) => {
      const done = (exit: ProcessExit) => {
        if (this.hasExited) return;
        this.hasExited = true;
        this.killToolGroups(exit, options.onLog);
        resolve(exit);
        options.onExit(exit);
      };
      this.child.once('exit', (code, signal) => done({ code, signal }));
      this.child.on('error', (error) => {
        options.onLog({ level: 'error', message: `Worker process: ${error.message}` });
        // fork() itself failed (e.g. no such executable): no 'exit' follows.
        if (this.child.pid === undefined) done({ code: null, signal: null });
      });
    });
    this.connection = createMessageConnection(new IPCMessageReader(this.child), new IPCMessageWriter(this.child));
    this.disposables.push(this.connection, this.connection.onNotification(WorkerLogNotification, options.onLog));
    // Read off the channel itself, not through the connection: its queue may hand a
    // notification over only after 'exit', and a group started just before a kill counts too.
    this.child.on('message', (message: unknown) => this.noteToolGroup(message));
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get isRunning(): boolean {
    return !this.hasExited;
  }

  /** Registers a worker-lifetime disposable (a notification handler, say). */
  own(disposable: Disposable): void {
    this.disposables.push(disposable);
  }

  listen(): void {
    this.connection.listen();
  }

  /**
   * Stops the worker without sending it anything it could hang on: closing the ipc channel
   * tells it to clean up (its probes, the streaming nvidia-smi) and exit. A worker that has not
   * exited after half of `graceMs` gets SIGTERM (one still loading may have missed the channel
   * closing), and one still there after `graceMs` SIGKILL.
   */
  async shutdown(graceMs: number): Promise<ProcessExit> {
    this.dispose();
    if (this.child.connected) this.child.disconnect();
    for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
      const exit = await Promise.race([this.exited, delay(graceMs / 2).then(() => undefined)]);
      if (exit) return exit;
      if (!this.hasExited) this.child.kill(signal);
    }
    return this.exited;
  }

  /** SIGKILL, for a worker that must go now (tests crash it this way too). */
  kill(): void {
    if (!this.hasExited) this.child.kill('SIGKILL');
  }

  private noteToolGroup(message: unknown): void {
    const group = toolGroupOf(message);
    if (!group) return;
    if (!group.running) this.toolGroups.delete(group.pgid);
    else if (!this.hasExited) this.toolGroups.add(group.pgid);
    else killGroup(group.pgid);
  }

  /**
   * A worker that exits cleanly has stopped its tools already; one killed (SIGKILL, a crash)
   * could not, and its tools, each leading its own process group, would run on for nobody: a
   * bench.py holding a GPU for up to half an hour. Killing a group already gone does nothing.
   */
  private killToolGroups(exit: ProcessExit, onLog: WorkerProcessOptions['onLog']): void {
    let killed = 0;
    for (const pgid of this.toolGroups) if (killGroup(pgid)) killed++;
    this.toolGroups.clear();
    // After a clean exit a group may linger only as its leader's zombie: nothing to report.
    if (killed > 0 && exit.code !== 0) onLog({ level: 'warn', message: `Worker exited with ${killed} tool process group(s) still running; they were killed.` });
  }

  dispose(): void {
    for (const disposable of this.disposables.splice(0)) {
      try {
        disposable.dispose();
      } catch {
        // A connection to a dead process may complain while closing; it is gone either way.
      }
    }
  }
}

/** A ToolGroupNotification's params, when `message` is one with a real group id. */
export function toolGroupOf(message: unknown): ToolGroupParams | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const { method, params } = message as { method?: unknown; params?: Partial<ToolGroupParams> };
  if (method !== ToolGroupNotification.method || typeof params !== 'object' || params === null) return undefined;
  const { pgid, running } = params;
  // Only a tool's own group: process.kill(-0) or (-1) would reach far more than a tool, and
  // our own pid's group would be this process's.
  if (typeof pgid !== 'number' || !Number.isInteger(pgid) || pgid <= 1 || pgid === process.pid || typeof running !== 'boolean') return undefined;
  return { pgid, running };
}

/** SIGKILL of the whole group; false when it is gone already (ESRCH). */
function killGroup(pgid: number): boolean {
  try {
    process.kill(-pgid, 'SIGKILL');
    return true;
  } catch {
    return false;
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref?.());
}
