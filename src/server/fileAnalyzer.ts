// Python files: one ParsedDocument per open file, fed the client's incremental changes so
// that each analysis re-parses only what changed. Changes are buffered between analyses
// and applied in one go, so a burst of keystrokes costs one parse. If the parser crashes
// and is reloaded (parser.ts), kept trees are dead: ParsedDocument parses their text again.
// Only the documents analysed last keep their state (recentDocuments.ts): the others are
// parsed and analysed whole again when they are next analysed.
import { analyzeNotebook, analyzeSplicedTree, analyzeTree, marimoScript, RunCache, withoutFixesNamingOtherCells } from '../core/analysis';
import type { AnalyzeOptions, CellFinding, Finding } from '../core/analysis';
import { ParsedDocument, TextChange } from '../core/python/document';
import { ParserCrashedError } from '../core/python/parser';
import { KeptPlainTree, type Node } from '../core/python/pyNode';
import type { ModuleUse, PlainAnalyzeOptions, ProjectSpec } from './analysisMessages';
import { ProjectFiles } from './projectFiles';
import { OverlaySync, plainOptions, specOf, type ProjectRequest } from './projectRequest';
import { RecentDocuments } from './recentDocuments';

interface FileState {
  parsed?: ParsedDocument;
  /** The plain tree of its last analysis: an edit re-reads only the statements it changed, */
  plain: KeptPlainTree;
  /** and the muted runs over them, replayed where nothing they read changed. */
  runs: RunCache;
  pending: TextChange[];
}

/**
 * What the linter analyses with: this class in the same thread (the analysis worker, the
 * unit tests), or WorkerAnalyzer, which hands the work to that worker thread.
 */
export interface DocumentAnalyzer {
  recordChanges(uri: string, changes: readonly TextChange[]): void;
  /** `project`: the document's path and workspace, so that its imports of local modules are followed. */
  analyze(uri: string, text: string, options: AnalyzeOptions, project?: ProjectRequest): Finding[] | Promise<Finding[]>;
  /** A notebook's code cells as one program; no tree is kept between analyses. */
  analyzeNotebook(cells: readonly string[], options: AnalyzeOptions, uri: string, project?: ProjectRequest): CellFinding[] | Promise<CellFinding[]>;
  release(uri: string): void;
  /** Drops analyses of `uri` that wait to run (a newer edit made them stale); absent where nothing waits. */
  cancelQueued?(uri: string): void;
  /** A newer analysis of `uri` is due while an older one runs: it may be stopped (WorkerAnalyzer.supersede). */
  supersede?(uri: string): void;
  /** Files changed on disk: what was cached of them is dropped. */
  filesChanged(paths: readonly string[]): void;
  dispose(): void;
}

/** Findings and, with a project, what the analysis read. */
export interface AnalysisResult<T> {
  findings: T[];
  modules?: ModuleUse;
}

export class FileAnalyzer implements DocumentAnalyzer {
  private readonly files = new Map<string, FileState>();
  /** Which documents keep their state in `files`: the few analysed last. */
  private readonly recent: RecentDocuments;
  /** Open documents' texts and the disk, for the modules an analysed file imports. */
  readonly projectFiles = new ProjectFiles();
  /** In this thread (unit tests): which open documents' texts projectFiles holds. */
  private readonly overlay = new OverlaySync();
  /** How often a whole file was parsed, a tree updated, or a plain tree spliced without a parse (the tests read them). */
  readonly parses = { full: 0, incremental: 0, spliced: 0 };

  /** `recent`: which documents keep their trees and runs (tests give a smaller one). */
  constructor(recent = new RecentDocuments()) {
    this.recent = recent;
  }

  /** Called with each didChange's content changes, in order. */
  recordChanges(uri: string, changes: readonly TextChange[]): void {
    const state = this.files.get(uri);
    if (state?.parsed) state.pending.push(...changes);
  }

  /** Analyses `text` (the client's current text), re-parsing incrementally when possible. */
  analyze(uri: string, text: string, options: AnalyzeOptions, project?: ProjectRequest): Finding[] {
    this.syncOverlay(project);
    const result = this.analyzeFile(uri, text, project ? plainOptions(options) : options, project && specOf(project));
    if (result.modules) project?.resolved?.(result.modules);
    return result.findings;
  }

  analyzeNotebook(cells: readonly string[], options: AnalyzeOptions, _uri?: string, project?: ProjectRequest): CellFinding[] {
    this.syncOverlay(project);
    const result = this.analyzeCells(cells, project ? plainOptions(options) : options, project && specOf(project));
    if (result.modules) project?.resolved?.(result.modules);
    return result.findings;
  }

  /**
   * The analysis worker's entry, with the open documents' texts already applied to
   * `projectFiles` from the request: `spec` gives the file's project, if it has one.
   */
  analyzeFile(uri: string, text: string, options: AnalyzeOptions, spec?: ProjectSpec): AnalysisResult<Finding> {
    // A marimo notebook is analysed as the script its cells make (same positions, marimo.ts).
    const notebook = marimoScript(text);
    const { parsed, plain, runs, spliced } = this.parsedFor(uri, notebook?.script ?? text);
    const analyzeScript = (opts: AnalyzeOptions) => spliced ? analyzeSplicedTree(spliced, parsed.text, opts, plain, runs) : analyzeTree(parsed.tree, parsed.text, opts, plain, runs);
    const analyze = (opts: AnalyzeOptions) => (notebook ? withoutFixesNamingOtherCells(analyzeScript(opts), notebook) : analyzeScript(opts));
    if (!spec) return { findings: analyze(options) };
    // The analysed text is the newest of this file, for any module it imports that imports it back.
    this.projectFiles.setOpen(spec.path, text);
    const session = this.projectFiles.begin(spec);
    const findings = analyze({ ...options, project: session.context });
    return { findings, modules: session.finish() };
  }

  analyzeCells(cells: readonly string[], options: PlainAnalyzeOptions, spec?: ProjectSpec): AnalysisResult<CellFinding> {
    if (!spec) return { findings: analyzeNotebook(cells, options) };
    const session = this.projectFiles.begin(spec);
    const findings = analyzeNotebook(cells, { ...options, project: session.context });
    return { findings, modules: session.finish() };
  }

  filesChanged(paths: readonly string[]): void {
    this.projectFiles.changedOnDisk(paths);
  }

  /** The text the kept tree was parsed from, if any (lets tests check the incremental path). */
  parsedText(uri: string): string | undefined {
    return this.files.get(uri)?.parsed?.text;
  }

  /** How many files have a tree or buffered changes kept (0 once every file is released). */
  get size(): number {
    return this.files.size;
  }

  /** Drops the tree (a closed file, one too large to keep parsing, or one not analysed for a while). */
  release(uri: string): void {
    this.files.get(uri)?.parsed?.dispose();
    this.files.delete(uri);
    this.recent.forget(uri);
  }

  dispose(): void {
    for (const uri of [...this.files.keys()]) this.release(uri);
  }

  private syncOverlay(project: ProjectRequest | undefined): void {
    if (project) this.projectFiles.applyOverlay(this.overlay.update(project));
  }

  /**
   * The document's parsed text and, when each change lay inside one top-level statement, the
   * plain tree spliced from the last one (no whole-text parse; the tree-sitter tree catches up
   * when a later change needs it).
   */
  private parsedFor(uri: string, text: string): { parsed: ParsedDocument; plain: KeptPlainTree; runs: RunCache; spliced?: Node } {
    // Released before this analysis allocates: the memory they free is what it may use.
    for (const dropped of this.recent.use(uri, text.length)) this.release(dropped);
    const state = this.files.get(uri) ?? { pending: [], plain: new KeptPlainTree(), runs: new RunCache() };
    this.files.set(uri, state);
    const pending = state.pending.splice(0);
    if (state.parsed && pending.length > 0) {
      try {
        const edits = state.parsed.update(pending);
        const spliced = state.parsed.text === text ? state.plain.splice(edits, text) : undefined;
        if (spliced) {
          this.parses.spliced++;
          return { parsed: state.parsed, plain: state.plain, runs: state.runs, spliced };
        }
        // Parsed here, where a parser crash is handled.
        void state.parsed.tree;
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
    return { parsed: state.parsed, plain: state.plain, runs: state.runs };
  }

  private dropTree(state: FileState): void {
    state.parsed?.dispose();
    state.parsed = undefined;
  }
}
