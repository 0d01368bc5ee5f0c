// Earlier benchmark runs on this machine, kept in the extension's global state under a key
// that names the machine (a synced or copied profile must not mix machines' numbers). Newest
// first, at most HISTORY_LIMIT. No vscode import: the store takes a Memento-like object.
import type { BenchRunResponse } from '../../protocol/worker';
import { bestResult, summarySize } from './benchFormat';
import type { BestResult } from './benchFormat';

export const HISTORY_LIMIT = 20;
const KEY_PREFIX = 'deviceDoctor.benchHistory';

export interface BenchHistoryEntry {
  id: string;
  /** Milliseconds since the epoch, when the run finished. */
  time: number;
  /** What was compared, in words (BenchRunResponse.description). */
  description: string;
  selectedDevice: string;
  /** The fastest result at the size the run's headline speaks of (summarySize), as the panel's summary shows it. */
  best: BestResult | null;
  run: BenchRunResponse;
}

/** The parts of vscode.Memento the store uses. */
export interface MementoLike {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): Thenable<void>;
}

export function historyKey(machineId: string): string {
  return `${KEY_PREFIX}.${machineId || 'unknown'}`;
}

export function makeHistoryEntry(run: BenchRunResponse, time: number, id: string): BenchHistoryEntry {
  return { id, time, description: run.description, selectedDevice: run.selectedDevice, best: bestResult(run, summarySize(run) ?? undefined), run };
}

/** The entry first, any older copy of it dropped, the oldest beyond `limit` dropped. */
export function addToHistory(entries: readonly BenchHistoryEntry[], entry: BenchHistoryEntry, limit = HISTORY_LIMIT): BenchHistoryEntry[] {
  return [entry, ...entries.filter((e) => e.id !== entry.id)].slice(0, Math.max(0, limit));
}

/** What the global state holds, keeping only well-formed entries (an older version may have written it). */
export function readHistory(value: unknown): BenchHistoryEntry[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isEntry).sort((a, b) => b.time - a.time).slice(0, HISTORY_LIMIT);
}

function isEntry(value: unknown): value is BenchHistoryEntry {
  if (typeof value !== 'object' || value === null) return false;
  const e = value as Partial<BenchHistoryEntry>;
  const run = e.run as Partial<BenchRunResponse> | undefined;
  return typeof e.id === 'string' && typeof e.time === 'number' && Number.isFinite(e.time) && typeof e.description === 'string'
    && typeof run === 'object' && run !== null && Array.isArray(run.results) && Array.isArray(run.problems);
}

/** What the panel's page keeps across a window reload (vscode.setState): the run it shows, whole. */
export interface SavedPanelState {
  runId: string | null;
  /** The shown run itself: the history's copy may be missing after the reload (a write lost with the window, another window's history). */
  entry?: BenchHistoryEntry | null;
}

/**
 * The run a benchmark panel restored after a reload shows. First the one the extension last
 * showed (`lastShownId`, which it records itself the moment it shows a run): the page saves its
 * state only once it has loaded and been told, so a reload soon after a run ended restored the
 * run before it (issue 28 item 9). Then the one the page saved, from the history, else as the
 * page kept it; else the newest. `outsideHistory`: not in the history (the panel keeps it).
 */
export function runToRestore(entries: readonly BenchHistoryEntry[], saved: unknown, lastShownId?: unknown): { shown: BenchHistoryEntry | null; outsideHistory: boolean } {
  const recorded = typeof lastShownId === 'string' ? entries.find((e) => e.id === lastShownId) : undefined;
  if (recorded) return { shown: recorded, outsideHistory: false };
  const state = typeof saved === 'object' && saved !== null ? saved as Partial<SavedPanelState> : {};
  const runId = typeof state.runId === 'string' ? state.runId : undefined;
  const kept = isEntry(state.entry) && state.entry.id === runId ? state.entry : undefined;
  const fromHistory = runId === undefined ? undefined : entries.find((e) => e.id === runId);
  if (fromHistory) return { shown: fromHistory, outsideHistory: false };
  if (kept) return { shown: kept, outsideHistory: true };
  return { shown: entries[0] ?? null, outsideHistory: false };
}

export class BenchHistory {
  private readonly key: string;

  constructor(private readonly memento: MementoLike, machineId: string) {
    this.key = historyKey(machineId);
  }

  entries(): BenchHistoryEntry[] {
    return readHistory(this.memento.get<unknown>(this.key));
  }

  find(id: string): BenchHistoryEntry | undefined {
    return this.entries().find((e) => e.id === id);
  }

  async add(entry: BenchHistoryEntry): Promise<void> {
    await this.memento.update(this.key, addToHistory(this.entries(), entry));
  }
}
