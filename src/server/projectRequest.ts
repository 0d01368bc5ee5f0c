// The main thread's side of cross-file analysis: what one analysis needs to know of the
// project (ProjectSpec, which crosses to the worker thread) plus the open documents and a
// callback for what it read (which stay here). OverlaySync sends the worker only the open
// documents' texts it lacks, so an edit in an open file reaches the next analysis once.
import type { ModuleUse, OverlayUpdate, PlainAnalyzeOptions, ProjectSpec } from './analysisMessages';
import type { AnalyzeOptions } from '../core/analysis';

/** An open Python document that has a file path. */
export interface OpenText {
  path: string;
  version: number;
  /** Read only when the worker does not have this version yet. */
  text(): string;
}

export interface ProjectRequest extends ProjectSpec {
  /** The analysed document's version; its text travels with the request anyway. Absent for a notebook. */
  version?: number;
  /** Every open Python document with a path, the analysed one included. */
  openDocuments(): readonly OpenText[];
  /** What the analysis looked for, called before its findings are delivered. */
  resolved?(use: ModuleUse): void;
}

/** The part of a request that crosses to the worker thread: plain data only. */
export function specOf(project: ProjectRequest): ProjectSpec {
  return { path: project.path, roots: [...project.roots], maxModuleBytes: project.maxModuleBytes };
}

/** Analyzer options without a resolver: the worker builds its own from the ProjectSpec. */
export function plainOptions(options: AnalyzeOptions): PlainAnalyzeOptions {
  const plain: AnalyzeOptions = { ...options };
  delete plain.project;
  return plain;
}

/** Which version of each open document the analysing side holds. */
export class OverlaySync {
  private readonly held = new Map<string, number>();

  /** What to tell the analysing side before this request: changed texts, closed documents. */
  update(project: ProjectRequest): OverlayUpdate {
    const set: OverlayUpdate['set'] = [];
    const open = new Set<string>();
    for (const document of project.openDocuments()) {
      open.add(document.path);
      if (this.held.get(document.path) === document.version) continue;
      this.held.set(document.path, document.version);
      // The analysed document's text comes with the request itself.
      if (document.path === project.path && document.version === project.version) continue;
      set.push({ path: document.path, text: document.text() });
    }
    const drop = [...this.held.keys()].filter((path) => !open.has(path));
    for (const path of drop) this.held.delete(path);
    return { set, drop };
  }

  /** The analysing side starts afresh (a new worker thread): it holds nothing. */
  reset(): void {
    this.held.clear();
  }
}
