// At most one probe of a kind in flight: a second request while one runs shares its
// promise, and a probe that hung is not started again until its back-off has passed
// (a stuck driver would otherwise collect one hung nvidia-smi per detect).

export class CancelledError extends Error {
  constructor() {
    super('cancelled');
    this.name = 'CancelledError';
  }
}

export interface GateOptions {
  /** First back-off after a hang; doubles with each further hang. */
  backoffMs: number;
  maxBackoffMs: number;
  now?: () => number;
}

export type Gated<T> =
  | { status: 'ran'; value: T; shared: boolean }
  /** The last run hung; `value` is that run, `retryAt` when a new one may start. */
  | { status: 'backing-off'; value: T; retryAt: number };

interface Flight<T> {
  kind: string;
  promise: Promise<T>;
  controller: AbortController;
  /** Callers that still want the result; when the last one cancels, the probe is aborted. */
  waiters: number;
}

interface Backoff<T> {
  until: number;
  hangs: number;
  value: T;
}

export const DEFAULT_GATE_OPTIONS: GateOptions = { backoffMs: 60_000, maxBackoffMs: 10 * 60_000 };

export class ProbeGate {
  private readonly flights = new Map<string, Flight<unknown>>();
  private readonly backoffs = new Map<string, Backoff<unknown>>();
  private readonly now: () => number;

  constructor(private readonly options: GateOptions = DEFAULT_GATE_OPTIONS) {
    this.now = options.now ?? Date.now;
  }

  /**
   * Runs `task` for `kind` unless one is in flight (then shares it) or the kind is backing
   * off after a hang. `hung(value)` says whether a finished run hung.
   */
  async run<T>(kind: string, task: (signal: AbortSignal) => Promise<T>, hung: (value: T) => boolean, signal?: AbortSignal): Promise<Gated<T>> {
    const existing = this.flights.get(kind) as Flight<T> | undefined;
    if (existing) return { status: 'ran', value: await this.wait(existing, signal), shared: true };
    const backoff = this.backoffs.get(kind) as Backoff<T> | undefined;
    if (backoff && this.now() < backoff.until) return { status: 'backing-off', value: backoff.value, retryAt: backoff.until };
    const flight = this.start(kind, task, hung);
    return { status: 'ran', value: await this.wait(flight, signal), shared: false };
  }

  /** When `kind` may run again, or undefined when it is not backing off. */
  retryAt(kind: string): number | undefined {
    const backoff = this.backoffs.get(kind);
    return backoff && this.now() < backoff.until ? backoff.until : undefined;
  }

  private start<T>(kind: string, task: (signal: AbortSignal) => Promise<T>, hung: (value: T) => boolean): Flight<T> {
    const controller = new AbortController();
    const flight: Flight<T> = { kind, controller, waiters: 0, promise: Promise.resolve(undefined as T) };
    flight.promise = task(controller.signal).then(
      (value) => {
        if (this.land(flight)) this.record(kind, value, hung(value));
        return value;
      },
      (err: unknown) => {
        this.land(flight);
        throw err;
      },
    );
    this.flights.set(kind, flight as Flight<unknown>);
    return flight;
  }

  /** Forgets a finished flight; false when it had been abandoned (and maybe replaced) already. */
  private land(flight: Flight<unknown>): boolean {
    if (this.flights.get(flight.kind) !== flight) return false;
    this.flights.delete(flight.kind);
    return true;
  }

  private record<T>(kind: string, value: T, didHang: boolean): void {
    if (!didHang) {
      this.backoffs.delete(kind);
      return;
    }
    const hangs = (this.backoffs.get(kind)?.hangs ?? 0) + 1;
    const delay = Math.min(this.options.backoffMs * 2 ** (hangs - 1), this.options.maxBackoffMs);
    this.backoffs.set(kind, { until: this.now() + delay, hangs, value });
  }

  private wait<T>(flight: Flight<T>, signal: AbortSignal | undefined): Promise<T> {
    flight.waiters++;
    if (!signal) return flight.promise;
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => {
        flight.waiters--;
        if (flight.waiters === 0) {
          // Nobody wants it any more: a new request starts afresh rather than sharing a cancelled run.
          this.land(flight as Flight<unknown>);
          flight.controller.abort();
        }
        reject(new CancelledError());
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      flight.promise.then(
        (value) => {
          signal.removeEventListener('abort', onAbort);
          resolve(value);
        },
        (err: unknown) => {
          signal.removeEventListener('abort', onAbort);
          reject(err);
        },
      );
    });
  }
}
