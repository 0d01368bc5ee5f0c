// What crosses between the language server's main thread and its analysis worker thread
// (worker_threads; structured clone, so plain data only).
import type { AnalyzeOptions, CellFinding, Finding } from '../core/analysis';
import type { TextChange } from '../core/python/document';

/** Where an analysed document lives, for cross-file analysis (the worker builds its resolver). */
export interface ProjectSpec {
  /** Absolute path of the file or notebook analysed. */
  path: string;
  /** Workspace folders, searched for imports after the file's own folder and package root. */
  roots: string[];
  /** A module file of more UTF-8 bytes is not read (the importing document's maxFileBytes); 0: no limit. */
  maxModuleBytes: number;
}

/**
 * Open documents whose text changed since the worker last heard of them, and those closed
 * since: the worker's copy of the editor's texts, kept current with each request so that
 * no message is sent per keystroke of a document nobody imports.
 */
export interface OverlayUpdate {
  set: Array<{ path: string; text: string }>;
  drop: string[];
}

/** The files one analysis looked for (existing or not) and the milliseconds spent reading them. */
export interface ModuleUse {
  found: string[];
  missing: string[];
  ms: number;
}

/** Options without `project`: a resolver is a function, which cannot cross threads. */
export type PlainAnalyzeOptions = Omit<AnalyzeOptions, 'project'>;

export type AnalysisRequest =
  | {
    kind: 'file';
    id: number;
    uri: string;
    /** The client's full text (the worker checks its incrementally updated tree against it). */
    text: string;
    /** The client's changes since the last request for `uri`, in order. */
    changes: TextChange[];
    options: PlainAnalyzeOptions;
    project?: ProjectSpec;
    overlay?: OverlayUpdate;
  }
  | { kind: 'notebook'; id: number; uri: string; cells: string[]; options: PlainAnalyzeOptions; project?: ProjectSpec; overlay?: OverlayUpdate }
  | { kind: 'release'; uri: string }
  /** Files changed on disk (a watcher's event): the worker drops what it cached of them. */
  | { kind: 'filesChanged'; paths: string[] };

export type AnalysisReply =
  | { kind: 'ready' }
  | { kind: 'file'; id: number; findings: Finding[]; modules?: ModuleUse }
  | { kind: 'notebook'; id: number; findings: CellFinding[]; modules?: ModuleUse }
  | { kind: 'failed'; id: number; message: string; stack?: string }
  /** Tree-sitter's wasm aborted on this request's text; the worker reloads its parser. */
  | { kind: 'parserCrashed'; id: number; textLength: number; cause: string }
  | { kind: 'parserReloaded'; id: number; ms: number; reloads: number }
  | { kind: 'parserReloadFailed'; id: number; message: string };
