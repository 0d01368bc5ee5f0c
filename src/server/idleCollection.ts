// A full garbage collection once an analysis worker has been idle a moment. V8 collects a
// worker thread's old generation only when it reaches a limit it sets at up to four times
// what survived the last collection, and its memory reducer, which shrinks an idle main
// thread's heap, never ran in these workers: after 30 files of a real repository were opened,
// each worker held 200-270 MB of heap for 100 MB of live data, and still did 40 s later.
// `gc` is V8's own (--expose-gc), taken from a fresh context so that no flag is needed at start.
import * as v8 from 'v8';
import * as vm from 'vm';

/** Idle this long after its last analysis, a worker collects: long enough not to run between two keystrokes of a burst. */
export const IDLE_COLLECT_MS = 2000;

let collect: (() => void) | undefined;

/** V8's full collection (the `gc` of --expose-gc); undefined where it cannot be had. */
export function fullCollection(): (() => void) | undefined {
  if (!collect) {
    try {
      // Read when a context is made: this one gets `gc`; contexts made before do not change.
      v8.setFlagsFromString('--expose-gc');
      collect = vm.runInNewContext('gc') as () => void;
    } catch {
      return undefined;
    }
  }
  return collect;
}

/**
 * Collections in a row: one frees the garbage but leaves the heap's pages committed (30 files
 * opened: worker heaps 146-149 MB for 79-88 MB live, server RSS 405 MB); three, as V8's memory
 * reducer runs, compact them (118-125 MB, RSS 349 MB).
 */
const COLLECTIONS = 3;

/** Heap grown less than this since the last idle collection: no collection (a pause between keystrokes makes little). */
const MIN_GROWTH_BYTES = 16 * 1024 * 1024;

export class IdleCollection {
  private timer?: NodeJS.Timeout;
  private afterLast = 0;

  constructor(
    private readonly idleMs = IDLE_COLLECT_MS,
    private readonly collector = fullCollection,
    private readonly heapUsed = () => process.memoryUsage().heapUsed,
  ) {}

  /** The worker fell idle: collect after idleMs unless work comes first. */
  schedule(): void {
    this.cancel();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.heapUsed() - this.afterLast < MIN_GROWTH_BYTES) return;
      const collect = this.collector();
      if (!collect) return;
      for (let i = 0; i < COLLECTIONS; i++) collect();
      this.afterLast = this.heapUsed();
    }, this.idleMs);
    // Never what keeps a worker alive.
    this.timer.unref();
  }

  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
