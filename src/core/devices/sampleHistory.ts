// The last minutes of each device's memory and utilization: a fixed-size ring per device, so a
// monitor left running for days holds the same few kilobytes as one started a minute ago.
// Samples closer together than window/capacity share a slot; older than the window are dropped when read.

export interface HistoryPoint {
  /** Milliseconds since the epoch. */
  time: number;
  usedBytes: number | null;
  totalBytes: number | null;
  utilizationPercent: number | null;
}

export const HISTORY_WINDOW_MS = 10 * 60_000;
/** 10 minutes at one sample a second; faster intervals keep the newest this many. */
export const HISTORY_CAPACITY = 600;

class Ring {
  private readonly points: HistoryPoint[] = [];
  private next = 0;

  constructor(private readonly capacity: number) {}

  push(point: HistoryPoint): void {
    if (this.points.length < this.capacity) this.points.push(point);
    else this.points[this.next] = point;
    this.next = (this.next + 1) % this.capacity;
  }

  get newest(): HistoryPoint | undefined {
    return this.points.length === 0 ? undefined : this.points[(this.next - 1 + this.capacity) % this.capacity] ?? this.points[this.points.length - 1];
  }

  replaceNewest(point: HistoryPoint): void {
    const index = this.points.length < this.capacity ? this.points.length - 1 : (this.next - 1 + this.capacity) % this.capacity;
    this.points[index] = point;
  }

  /** Oldest first. */
  list(): HistoryPoint[] {
    return this.points.length < this.capacity ? [...this.points] : [...this.points.slice(this.next), ...this.points.slice(0, this.next)];
  }
}

export class SampleHistory {
  private readonly rings = new Map<string, Ring>();

  constructor(private readonly windowMs = HISTORY_WINDOW_MS, private readonly capacity = HISTORY_CAPACITY) {}

  add(id: string, point: HistoryPoint): void {
    let ring = this.rings.get(id);
    if (!ring) {
      ring = new Ring(this.capacity);
      this.rings.set(id, ring);
    }
    // Faster than capacity per window (a short monitor interval): the newest sample of each
    // slot stands for it, so the ring still spans the whole window.
    const slot = (time: number) => Math.floor(time / (this.windowMs / this.capacity));
    const newest = ring.newest;
    if (newest && slot(point.time) === slot(newest.time)) ring.replaceNewest(point);
    else ring.push(point);
  }

  /** Each device's points within the window before `now`, oldest first. */
  snapshot(now: number): Record<string, HistoryPoint[]> {
    const series: Record<string, HistoryPoint[]> = {};
    for (const [id, ring] of this.rings) {
      const points = ring.list().filter((p) => p.time > now - this.windowMs && p.time <= now);
      if (points.length > 0) series[id] = points;
    }
    return series;
  }
}
