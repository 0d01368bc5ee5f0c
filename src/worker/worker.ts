// Entry point of dist/worker.js, the compute worker. The extension forks it with an IPC
// channel; `node dist/worker.js --stdio` speaks the same JSON-RPC over stdin/stdout.
// It exits when its parent goes away, and never writes anything but the protocol to
// stdout: console output is sent to stderr.
import { createMessageConnection, IPCMessageReader, IPCMessageWriter, StreamMessageReader, StreamMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node';
import { watchProcessGroups } from '../node/processGroups';
import { killChildren } from '../node/processRunner';
import { ToolGroupNotification } from '../protocol/toolGroups';
import { WorkerService } from './service';

function redirectConsoleToStderr(): void {
  const toStderr = (...args: unknown[]): void => {
    process.stderr.write(`${args.map((a) => (typeof a === 'string' ? a : String(a))).join(' ')}\n`);
  };
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
}

function openConnection(): MessageConnection {
  if (process.argv.includes('--stdio')) {
    return createMessageConnection(new StreamMessageReader(process.stdin), new StreamMessageWriter(process.stdout));
  }
  if (typeof process.send !== 'function') {
    process.stderr.write('device-doctor worker: start me with an IPC channel (fork) or with --stdio\n');
    process.exit(2);
  }
  return createMessageConnection(new IPCMessageReader(process), new IPCMessageWriter(process));
}

/** Test hooks, read once at start: where sysfs is, and a shorter monitor restart delay. */
function optionalNumber(value: string | undefined): number | undefined {
  const parsed = value === undefined ? NaN : Number(value);
  return Number.isFinite(parsed) ? parsed : undefined;
}

function main(): void {
  redirectConsoleToStderr();
  const connection = openConnection();
  const service = new WorkerService(connection, {
    env: process.env,
    platform: process.platform,
    sysfsDrmRoot: process.env.DEVICE_DOCTOR_SYSFS_DRM || undefined,
    monitorRestartDelayMs: optionalNumber(process.env.DEVICE_DOCTOR_MONITOR_RESTART_MS),
  });
  let exiting = false;
  const exit = (code: number): void => {
    if (exiting) return;
    exiting = true;
    service.dispose();
    // The probes' tools and bench.py: one set in the process runner.
    killChildren();
    process.exit(code);
  };
  service.register();
  // Before any tool starts: the parent must know every group, to kill them should we be killed.
  watchProcessGroups({
    started: (pgid) => void connection.sendNotification(ToolGroupNotification, { pgid, running: true }).catch(() => undefined),
    ended: (pgid) => void connection.sendNotification(ToolGroupNotification, { pgid, running: false }).catch(() => undefined),
  });
  connection.onClose(() => exit(0));
  // Never log a connection error over the broken connection itself: that fails again
  // and loops. stderr reaches the extension's log through the child's stderr pipe.
  connection.onError(([err]) => process.stderr.write(`device-doctor worker: connection error: ${err.message}\n`));
  process.on('disconnect', () => exit(0));
  // The parent may have gone before the handler above existed (a very quick deactivate).
  if (typeof process.send === 'function' && !process.connected) exit(0);
  // Touch stdin only in stdio mode: with IPC it may be the parent's terminal.
  if (process.argv.includes('--stdio')) process.stdin.on('end', () => exit(0));
  process.on('SIGTERM', () => exit(0));
  process.on('uncaughtException', (err) => {
    if (exiting) return;
    process.stderr.write(`device-doctor worker: uncaught: ${err.stack ?? err.message}\n`);
  });
  process.on('unhandledRejection', (reason) => service.log('error', `unhandled rejection: ${String(reason)}`));
  connection.listen();
  service.log('info', `worker ${process.pid} ready (node ${process.version}, ${process.platform})`);
}

main();
