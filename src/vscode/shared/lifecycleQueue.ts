// Start, stop and restart of a child process run one at a time, in order. A restart asked
// for while another restart is still waiting its turn joins that one (ruff-vscode's
// `restartQueued`): ten quick "restart" clicks during a restart cause one more restart, not ten.
// No vscode import: unit-tested directly.

export class LifecycleQueue {
  private tail: Promise<void> = Promise.resolve();
  private waitingRestart: Promise<void> | undefined;

  /** Runs `step` after every step queued before it; a failed step does not stop the queue. */
  run(step: () => Promise<void>): Promise<void> {
    const next = this.tail.then(step, step);
    this.tail = next.catch(() => undefined);
    return next;
  }

  /** Queues `restart` unless one is already waiting; the waiting one is returned instead. */
  restart(restart: () => Promise<void>): Promise<void> {
    this.waitingRestart ??= this.run(async () => {
      // From here on a new request must queue a fresh restart: this one is already running.
      this.waitingRestart = undefined;
      await restart();
    });
    return this.waitingRestart;
  }

  /** Resolves once every step queued so far has finished. */
  idle(): Promise<void> {
    return this.tail;
  }
}
