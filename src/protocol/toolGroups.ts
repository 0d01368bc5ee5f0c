// The worker's tools, as process groups, told to the process that forked it: a worker killed
// with SIGKILL cannot stop its own tools (a streaming nvidia-smi, bench.py, the collective
// ranks), so its parent kills the groups still running when it sees the worker die.
import { NotificationType } from 'vscode-jsonrpc';

export interface ToolGroupParams {
  /** The group's id: its leader's pid (POSIX only; Windows has no groups and sends nothing). */
  pgid: number;
  /** true when started, false once its leader has exited and its pipes have closed. */
  running: boolean;
}

export const ToolGroupNotification = new NotificationType<ToolGroupParams>('deviceDoctor/toolGroup');
