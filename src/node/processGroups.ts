// The process groups the runner starts, for whoever must outlive a killed worker: the worker
// tells them to its parent (src/protocol/toolGroups.ts), which kills what is left should the
// worker die by a signal. Kept apart from processRunner.ts, which calls tellGroupListeners.

/**
 * Told of every process group the runner starts (POSIX: each child leads its own) and of its
 * end, once its leader has exited and its output pipes have closed. The worker passes these to
 * the extension, which kills what is left should the worker itself be killed (it cannot clean
 * up after a SIGKILL; see src/vscode/worker/workerProcess.ts).
 */
export interface ProcessGroupListener {
  started(pgid: number): void;
  ended(pgid: number): void;
}

const groupListeners = new Set<ProcessGroupListener>();

/** Calls `listener` for every group started from now on; returns the unsubscribe. */
export function watchProcessGroups(listener: ProcessGroupListener): () => void {
  groupListeners.add(listener);
  return () => groupListeners.delete(listener);
}

export function tellGroupListeners(event: keyof ProcessGroupListener, pgid: number): void {
  for (const listener of groupListeners) {
    try {
      listener[event](pgid);
    } catch {
      // A listener's failure (a closed connection) must not fail the run.
    }
  }
}

/**
 * Set in every child's environment: the scripts Device Doctor ships (probe.py, bench.py,
 * collectives.py) stop with their parent only when it is this process, not when a user's
 * torchrun or srun started them (src/worker/python/probe.py, exit_with_parent).
 */
export const PARENT_PID_VARIABLE = 'DEVICE_DOCTOR_PARENT_PID';
