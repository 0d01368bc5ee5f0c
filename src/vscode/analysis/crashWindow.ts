// When a crashed language server is worth restarting: always, unless it crashed too often
// lately — then restarting would only loop (vscode-languageclient's own rule: 5 in 3 minutes).

export const MAX_CRASHES = 5;
export const CRASH_WINDOW_MS = 3 * 60 * 1000;

export class CrashWindow {
  private crashes: number[] = [];

  constructor(
    private readonly maxCrashes = MAX_CRASHES,
    private readonly windowMs = CRASH_WINDOW_MS,
  ) {}

  /** Records a crash at `now`; true while a restart is still reasonable. */
  shouldRestart(now: number): boolean {
    this.crashes = this.crashes.filter((t) => now - t < this.windowMs);
    this.crashes.push(now);
    return this.crashes.length < this.maxCrashes;
  }

  /** A user-requested restart starts with a clean slate. */
  reset(): void {
    this.crashes = [];
  }
}
