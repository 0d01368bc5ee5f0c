// Two analysis worker threads ("lanes"), so that no document waits behind another's long
// analysis. An analysis cannot be interrupted inside its worker, so with one worker a small
// file opened while a 49,000-line file was analysed waited for all of it (6-15 s here), and a
// large file edited every 500 ms kept every other file waiting about one of its analyses.
//
// A document is analysed where its tree is (its runs are incremental there) when that lane is
// free; otherwise on a free lane if it is no larger than the work it would wait for (it is
// parsed afresh there, which costs a small file little); otherwise it waits where its tree is.
// The second worker starts only when the first is taken, and keeps the documents it analysed.
import type { Worker } from 'worker_threads';
import type { AnalyzeOptions, CellFinding, Finding } from '../core/analysis';
import type { TextChange } from '../core/python/document';
import type { DocumentAnalyzer } from './fileAnalyzer';
import type { ProjectRequest } from './projectRequest';
import { WorkerAnalyzer, type WorkerAnalyzerEvents } from './workerAnalyzer';

/** Two: one for whatever runs long, one for the rest. More would only compete for the same cores (two on many laptops). */
export const ANALYSIS_LANES = 2;

export class AnalysisLanes implements DocumentAnalyzer {
  private readonly lanes: WorkerAnalyzer[];

  constructor(spawn: () => Worker, events: WorkerAnalyzerEvents = {}, count = ANALYSIS_LANES) {
    const stopped = new Set<string>();
    this.lanes = Array.from({ length: count }, () => new WorkerAnalyzer(spawn, events, { stopped }));
  }

  recordChanges(uri: string, changes: readonly TextChange[]): void {
    // Kept only by the lane that holds the document's tree.
    for (const lane of this.lanes) lane.recordChanges(uri, changes);
  }

  analyze(uri: string, text: string, options: AnalyzeOptions, project?: ProjectRequest): Promise<Finding[]> {
    const lane = this.laneFor(uri, text.length);
    // A document that moves lanes leaves its tree behind: freed there, parsed afresh here.
    for (const other of this.lanes) if (other !== lane && other.holds(uri)) other.release(uri);
    return lane.analyze(uri, text, options, project);
  }

  analyzeNotebook(cells: readonly string[], options: AnalyzeOptions, uri: string, project?: ProjectRequest): Promise<CellFinding[]> {
    const size = cells.reduce((sum, cell) => sum + cell.length, 0);
    return this.laneFor(uri, size).analyzeNotebook(cells, options, uri, project);
  }

  /** Drops the analyses of `uri` that have not started: a newer edit made them stale. */
  cancelQueued(uri: string): void {
    for (const lane of this.lanes) lane.cancelQueued(uri);
  }

  /** A newer analysis of `uri` is due while an older one runs: see WorkerAnalyzer.supersede. */
  supersede(uri: string): void {
    for (const lane of this.lanes) lane.supersede(uri);
  }

  filesChanged(paths: readonly string[]): void {
    for (const lane of this.lanes) lane.filesChanged(paths);
  }

  release(uri: string): void {
    for (const lane of this.lanes) lane.release(uri);
  }

  /** How many analyses are waiting or running, in all lanes. */
  get busy(): number {
    return this.lanes.reduce((sum, lane) => sum + lane.busy, 0);
  }

  dispose(): void {
    for (const lane of this.lanes) lane.dispose();
  }

  private laneFor(uri: string, size: number): WorkerAnalyzer {
    const home = this.lanes.find((lane) => lane.holds(uri));
    if (home && home.busy === 0) return home;
    const free = this.lanes.find((lane) => lane.busy === 0);
    if (free && (!home || size <= home.pendingChars)) return free;
    if (home) return home;
    return this.lanes.reduce((least, lane) => (lane.pendingChars < least.pendingChars ? lane : least));
  }
}
