// Per-document debouncing: analysis runs once typing pauses, and runs of one document never
// overlap (the next reads the latest text when it starts). At most one run waits behind the
// one in flight: a later one replaces it, so that a file edited all through a long analysis
// gets one more run after it, not one per pause. `flush` runs a pending task at once and
// waits for it (the tests use it; code actions answer from the stored findings instead).

type Task = () => Promise<void>;

/** A run waiting for the one in flight; `task` is replaced by a later run's until it starts. */
interface Waiting {
  task: Task;
  done: Promise<void>;
}

interface Entry {
  timer?: ReturnType<typeof setTimeout>;
  task?: Task;
  running?: Promise<void>;
  waiting?: Waiting;
}

export class Debouncer {
  private readonly entries = new Map<string, Entry>();

  /**
   * `onError` hears about tasks that throw, which should not happen: tasks catch their own.
   * `superseded` hears that a run is due while the previous one of its key is still in flight
   * (which may then be cut short: the new run waits for it).
   */
  constructor(
    private readonly onError: (key: string, error: unknown) => void,
    private readonly superseded: (key: string) => void = () => undefined,
  ) {}

  /** Runs `task` after `delayMs` unless scheduled again before then. */
  schedule(key: string, delayMs: number, task: Task): void {
    const entry = this.entry(key);
    if (entry.timer) clearTimeout(entry.timer);
    entry.task = task;
    entry.timer = setTimeout(() => void this.runNow(key), delayMs);
  }

  /** Runs a pending task at once; resolves when no run for `key` is in flight. */
  async flush(key: string): Promise<void> {
    const entry = this.entries.get(key);
    if (!entry) return;
    if (entry.task) await this.runNow(key);
    else if (entry.running) await entry.running;
  }

  cancel(key: string): void {
    const entry = this.entries.get(key);
    if (entry?.timer) clearTimeout(entry.timer);
    this.entries.delete(key);
  }

  dispose(): void {
    for (const key of [...this.entries.keys()]) this.cancel(key);
  }

  private entry(key: string): Entry {
    let entry = this.entries.get(key);
    if (!entry) {
      entry = {};
      this.entries.set(key, entry);
    }
    return entry;
  }

  /** Runs are serialized per key: a new one waits for the one in flight, replacing any that already waits. */
  private async runNow(key: string): Promise<void> {
    const entry = this.entries.get(key);
    if (!entry?.task) return;
    if (entry.timer) clearTimeout(entry.timer);
    const task = entry.task;
    entry.timer = undefined;
    entry.task = undefined;
    if (entry.running) this.superseded(key);
    if (entry.waiting) {
      entry.waiting.task = task;
      await entry.waiting.done;
      return;
    }
    const previous = entry.running;
    const waiting: Waiting | undefined = previous ? { task, done: previous } : undefined;
    const start = () => {
      if (entry.waiting === waiting) entry.waiting = undefined;
      return (waiting?.task ?? task)();
    };
    const run = (previous ?? Promise.resolve()).then(start).catch((error: unknown) => this.onError(key, error)).finally(() => {
      if (entry.running === run) entry.running = undefined;
    });
    if (waiting) {
      waiting.done = run;
      entry.waiting = waiting;
    }
    entry.running = run;
    await run;
  }
}
