// Python files: one ParsedDocument per open file, fed the client's incremental changes so
// that each analysis re-parses only what changed. Changes are buffered between analyses
// and applied in one go, so a burst of keystrokes costs one parse. If the parser crashes
// and is reloaded (parser.ts), kept trees are dead: ParsedDocument parses their text again.
import { analyzeNotebook, analyzeTree } from '../core/analysis';
import type { AnalyzeOptions, CellFinding, Finding } from '../core/analysis';
import { ParsedDocument, TextChange } from '../core/python/document';
import { ParserCrashedError } from '../core/python/parser';

interface FileState {
  parsed?: ParsedDocument;
  pending: TextChange[];
}

/**
 * What the linter analyses with: this class in the same thread (the analysis worker, the
 * unit tests), or WorkerAnalyzer, which hands the work to that worker thread.
 */
export interface DocumentAnalyzer {
  recordChanges(uri: string, changes: readonly TextChange[]): void;
  analyze(uri: string, text: string, options: AnalyzeOptions): Finding[] | Promise<Finding[]>;
  /** A notebook's code cells as one program; no tree is kept between analyses. */
  analyzeNotebook(cells: readonly string[], options: AnalyzeOptions, uri: string): CellFinding[] | Promise<CellFinding[]>;
  release(uri: string): void;
  dispose(): void;
}

export class FileAnalyzer implements DocumentAnalyzer {
  private readonly files = new Map<string, FileState>();
  /** How often a whole file was parsed versus a tree updated (a mismatch shows in the log and the tests). */
  readonly parses = { full: 0, incremental: 0 };

  /** Called with each didChange's content changes, in order. */
  recordChanges(uri: string, changes: readonly TextChange[]): void {
    const state = this.files.get(uri);
    if (state?.parsed) state.pending.push(...changes);
  }

  /** Analyses `text` (the client's current text), re-parsing incrementally when possible. */
  analyze(uri: string, text: string, options: AnalyzeOptions): Finding[] {
    const parsed = this.parsedFor(uri, text);
    return analyzeTree(parsed.tree, parsed.text, options);
  }

  analyzeNotebook(cells: readonly string[], options: AnalyzeOptions): CellFinding[] {
    return analyzeNotebook(cells, options);
  }

  /** The text the kept tree was parsed from, if any (lets tests check the incremental path). */
  parsedText(uri: string): string | undefined {
    return this.files.get(uri)?.parsed?.text;
  }

  /** How many files have a tree or buffered changes kept (0 once every file is released). */
  get size(): number {
    return this.files.size;
  }

  /** Drops the tree (a closed file, or one too large to keep parsing). */
  release(uri: string): void {
    this.files.get(uri)?.parsed?.dispose();
    this.files.delete(uri);
  }

  dispose(): void {
    for (const uri of [...this.files.keys()]) this.release(uri);
  }

  private parsedFor(uri: string, text: string): ParsedDocument {
    const state = this.files.get(uri) ?? { pending: [] };
    this.files.set(uri, state);
    const pending = state.pending.splice(0);
    if (state.parsed && pending.length > 0) {
      try {
        state.parsed.update(pending);
        this.parses.incremental++;
      } catch (error) {
        this.dropTree(state);
        // The text crashed the parser: parsing it again from scratch would only crash the fresh one.
        if (error instanceof ParserCrashedError) throw error;
      }
    }
    // The buffered changes must reproduce the client's text; if they ever do not, start over.
    if (state.parsed && state.parsed.text !== text) this.dropTree(state);
    if (!state.parsed) {
      state.parsed = new ParsedDocument(text);
      this.parses.full++;
    }
    return state.parsed;
  }

  private dropTree(state: FileState): void {
    state.parsed?.dispose();
    state.parsed = undefined;
  }
}
