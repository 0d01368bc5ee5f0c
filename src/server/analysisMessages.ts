// What crosses between the language server's main thread and its analysis worker thread
// (worker_threads; structured clone, so plain data only).
import type { AnalyzeOptions, CellFinding, Finding } from '../core/analysis';
import type { TextChange } from '../core/python/document';

export type AnalysisRequest =
  | {
    kind: 'file';
    id: number;
    uri: string;
    /** The client's full text (the worker checks its incrementally updated tree against it). */
    text: string;
    /** The client's changes since the last request for `uri`, in order. */
    changes: TextChange[];
    options: AnalyzeOptions;
  }
  | { kind: 'notebook'; id: number; uri: string; cells: string[]; options: AnalyzeOptions }
  | { kind: 'release'; uri: string };

export type AnalysisReply =
  | { kind: 'ready' }
  | { kind: 'file'; id: number; findings: Finding[] }
  | { kind: 'notebook'; id: number; findings: CellFinding[] }
  | { kind: 'failed'; id: number; message: string; stack?: string }
  /** Tree-sitter's wasm aborted on this request's text; the worker reloads its parser. */
  | { kind: 'parserCrashed'; id: number; textLength: number; cause: string }
  | { kind: 'parserReloaded'; id: number; ms: number; reloads: number }
  | { kind: 'parserReloadFailed'; id: number; message: string };
