// Decides when and what to analyse: debounced per file or notebook, settings per resource,
// results stored for code actions and published. The analysis itself runs in worker threads
// (AnalysisLanes); a result that an edit made stale is dropped, the edit's own run
// publishes. Never lets an analysis error escape.
import type { Connection, NotebookDocument, NotebookDocuments, TextDocuments } from 'vscode-languageserver';
import { NotebookCellKind } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { AnalyzeOptions } from '../core/analysis';
import { sizeLimitProblem } from '../core/python/limits';
import { initPythonParser, ParserCrashedError } from '../core/python/parser';
import { Debouncer } from './debouncer';
import { documentPath } from './documentPath';
import { DocumentProjects } from './documentProjects';
import type { DocumentAnalyzer } from './fileAnalyzer';
import type { FindingStore } from './findingStore';
import { groupByUri, LocatedFinding, locateCellFindings, locateFileFindings } from './locatedFinding';
import { selectionForDocument } from './ruleSelection';
import type { ServerLog } from './serverLog';
import { DEFAULT_SETTINGS, ServerSettings } from './settings';
import type { SettingsProvider } from './settingsProvider';
import { AnalysisCancelledError, AnalysisStoppedError, AnalysisWorkerCrashedError } from './workerAnalyzer';

export interface LinterDeps {
  connection: Connection;
  documents: TextDocuments<TextDocument>;
  notebooks: NotebookDocuments<TextDocument>;
  /** In the server a WorkerAnalyzer (another thread); in the unit tests a FileAnalyzer. */
  files: DocumentAnalyzer;
  settings: SettingsProvider;
  store: FindingStore;
  log: ServerLog;
  /** The workspace folders as paths: imports are searched there too. Absent: none. */
  workspaceRoots?: () => readonly string[];
}

interface CodeCell {
  uri: string;
  document: TextDocument;
  /** Its position in the notebook, 1-based, markdown cells counted. */
  number: number;
}

export const PYTHON_LANGUAGE = 'python';
const SLOW_ANALYSIS_MS = 1000;

export class Linter {
  private readonly debouncer: Debouncer;
  /** The debounce each document's settings asked for last time (scheduling must not wait). */
  private readonly debounceMs = new Map<string, number>();
  /** Open notebooks and the cell URIs diagnostics were last published for. */
  private readonly notebookCells = new Map<string, string[]>();
  /** Documents whose first analysis is queued; it will read their latest text anyway. */
  private readonly opening = new Set<string>();
  /** Documents the parser crashed on: not analysed again until they are closed and reopened. */
  private readonly crashedParser = new Set<string>();
  /** Each document's project, and which open documents read which files while following imports. */
  private readonly projects: DocumentProjects;
  private disposed = false;

  constructor(private readonly deps: LinterDeps) {
    this.debouncer = new Debouncer(
      (key, error) => deps.log.error(`Analysis of ${key} failed`, error),
      // A newer run is due: the analyzer may stop the stale one rather than make it wait.
      (key) => deps.files.supersede?.(key),
    );
    this.projects = new DocumentProjects({
      documents: deps.documents,
      log: deps.log,
      workspaceRoots: deps.workspaceRoots ?? (() => []),
      isOpen: (uri) => deps.documents.get(uri) !== undefined || this.notebookCells.has(uri),
      languageId: PYTHON_LANGUAGE,
      importedByNewDocument: (uris) => {
        for (const uri of uris) this.relint(uri);
      },
    });
  }

  /** A newly opened document is analysed at once; typing waits for a pause. */
  fileOpened(uri: string): void {
    this.opening.add(uri);
    this.schedule(uri, true, () => this.lintFile(uri));
    // Its text now overrides the disk for the documents that import it (it may be unsaved).
    this.relintDependents(uri);
  }

  fileChanged(uri: string): void {
    // The open event is followed by a change event for the same text: keep the prompt run.
    if (this.opening.has(uri)) return;
    // A run of the older text that has not started yet is dropped at once: this one replaces it.
    this.deps.files.cancelQueued?.(uri);
    this.schedule(uri, false, () => this.lintFile(uri));
    // Scheduled after its own run, with the same debounce: the worker analyses it first, and
    // each dependent's request carries this document's new text.
    this.relintDependents(uri);
  }

  fileClosed(uri: string): void {
    this.debouncer.cancel(uri);
    this.deps.files.cancelQueued?.(uri);
    this.debounceMs.delete(uri);
    this.opening.delete(uri);
    this.crashedParser.delete(uri);
    this.deps.files.release(uri);
    this.deps.settings.forget(uri);
    this.deps.log.forget(uri);
    this.clear(uri);
    this.projects.forget(uri);
    // Those that import it now read the file on disk, without its unsaved edits.
    this.relintDependents(uri);
  }

  notebookOpened(uri: string): void {
    this.notebookCells.set(uri, []);
    this.opening.add(uri);
    this.schedule(uri, true, () => this.lintNotebook(uri));
  }

  notebookChanged(uri: string): void {
    if (this.opening.has(uri) || !this.notebookCells.has(uri)) return;
    this.deps.files.cancelQueued?.(uri);
    this.schedule(uri, false, () => this.lintNotebook(uri));
  }

  notebookClosed(uri: string): void {
    this.debouncer.cancel(uri);
    this.deps.files.cancelQueued?.(uri);
    this.debounceMs.delete(uri);
    this.opening.delete(uri);
    this.crashedParser.delete(uri);
    this.deps.settings.forget(uri);
    this.deps.log.forget(uri);
    for (const cellUri of this.notebookCells.get(uri) ?? []) this.clear(cellUri);
    this.notebookCells.delete(uri);
    this.projects.forget(uri);
  }

  /** Files changed on disk (the client's file watcher): what was cached of them goes, their dependents are analysed again. */
  filesChangedOnDisk(uris: readonly string[]): void {
    const paths = uris.map(documentPath).filter((p): p is string => p !== undefined);
    if (paths.length === 0) return;
    this.deps.files.filesChanged(paths);
    for (const dependent of this.projects.dependentsOfFiles(paths)) this.relint(dependent);
  }

  /** Settings or pyproject.toml changed: everything open is analysed again. */
  lintAllOpen(): void {
    for (const document of this.deps.documents.all()) this.fileChanged(document.uri);
    for (const uri of this.notebookCells.keys()) this.notebookChanged(uri);
  }

  /**
   * Brings the stored findings of a file or cell up to date with the text the client has
   * (waits for the analysis: code actions do not call it, they answer from the store).
   */
  async flushFor(documentUri: string): Promise<void> {
    const notebook = this.deps.notebooks.findNotebookDocumentForCell(documentUri);
    await this.debouncer.flush(notebook ? notebook.uri : documentUri);
  }

  dispose(): void {
    this.disposed = true;
    this.debouncer.dispose();
  }

  private relintDependents(uri: string): void {
    for (const dependent of this.projects.dependentsOf(uri)) this.relint(dependent);
  }

  /** Analyses an open document again because a file it imports changed; its dependents are not (no cascade, no cycle). */
  private relint(uri: string): void {
    // A first analysis is on its way and will read the latest texts.
    if (this.opening.has(uri)) return;
    if (this.notebookCells.has(uri)) this.schedule(uri, false, () => this.lintNotebook(uri));
    else if (this.deps.documents.get(uri)) this.schedule(uri, false, () => this.lintFile(uri));
  }

  /**
   * Waits the debounce only: the analysis runs in the worker thread, so a slow one no longer
   * keeps the server from answering, and its next run need not wait for its last one's length.
   */
  private schedule(key: string, immediately: boolean, task: () => Promise<void>): void {
    const debounce = this.debounceMs.get(key) ?? DEFAULT_SETTINGS.debounceMs;
    this.debouncer.schedule(key, immediately ? 0 : debounce, task);
  }

  /**
   * Runs an analysis (in the worker thread; in this one in unit tests). Errors are logged and
   * give no findings; undefined when the server is stopping (nothing is published then).
   */
  private async timed<T>(key: string, analyse: () => T[] | Promise<T[]>): Promise<T[] | undefined> {
    const started = Date.now();
    try {
      const findings = await analyse();
      const duration = Date.now() - started;
      if (duration >= SLOW_ANALYSIS_MS) this.deps.log.warnOnce(`${key}#slow`, `Analysing ${key} took ${duration} ms.`);
      return findings;
    } catch (error) {
      if (this.disposed || error instanceof AnalysisStoppedError || error instanceof AnalysisCancelledError) return undefined;
      if (error instanceof ParserCrashedError) this.parserCrashed(key, error);
      else if (error instanceof AnalysisWorkerCrashedError) this.workerCrashed(key, error);
      else this.deps.log.error(`Analysis of ${key} failed`, error);
      return [];
    }
  }

  /** The worker thread died analysing this document: like a parser crash, it is left alone until reopened. */
  private workerCrashed(key: string, error: AnalysisWorkerCrashedError): void {
    this.crashedParser.add(key);
    this.deps.log.warnOnce(`${key}#workerCrashed`, `${error.message} ${key} is not analysed again until it is closed and reopened; `
      + 'other documents are analysed as before.');
  }

  /**
   * Tree-sitter's wasm aborted on this document (parser.ts reloads it): every other document
   * is analysed as before, this one is left alone while it stays open.
   */
  private parserCrashed(key: string, error: ParserCrashedError): void {
    this.crashedParser.add(key);
    this.deps.log.warnOnce(`${key}#parserCrashed`, `${key}: ${error.message} This document is not analysed again `
      + 'until it is closed and reopened; other documents are analysed as before. Lower deviceDoctor.maxFileBytes to skip such files.');
    error.reloaded.then(
      (reload) => this.deps.log.info(`The Python parser was reloaded in ${reload.ms} ms (reload ${reload.reloads} in this process).`),
      (reloadError: unknown) => this.deps.log.error('The Python parser could not be reloaded after a crash; no analysis will run', reloadError),
    );
  }

  private async settingsFor(key: string): Promise<ServerSettings> {
    const settings = await this.deps.settings.get(key);
    this.debounceMs.set(key, settings.debounceMs);
    return settings;
  }

  /** Waits for the parser if it is loading or being reloaded after a crash; a failed load shows as the analysis' error. */
  private async parserReady(): Promise<void> {
    try {
      await initPythonParser();
    } catch {
      // Logged where it failed (server start-up, or the crash's reload); the analysis reports it again.
    }
  }

  private async lintFile(uri: string): Promise<void> {
    this.opening.delete(uri);
    if (this.deps.documents.get(uri)?.languageId !== PYTHON_LANGUAGE) return;
    const settings = await this.settingsFor(uri);
    await this.parserReady();
    const document = this.deps.documents.get(uri);
    if (!document) return; // closed while the settings were on their way
    const text = document.getText();
    const version = document.version;
    let located: LocatedFinding[] | undefined = [];
    if (this.shouldAnalyse(uri, text, settings)) {
      located = await this.timed(uri, async () => {
        const findings = await this.deps.files.analyze(uri, text, this.optionsFor(uri, settings), this.projects.requestFor(uri, settings, version));
        return locateFileFindings(uri, findings, settings);
      });
      // Edited, closed or reopened meanwhile: this result is stale and dropped; the edit scheduled a newer run.
      if (!located || this.deps.documents.get(uri) !== document || document.version !== version) return;
    } else {
      this.deps.files.release(uri);
    }
    this.publish(uri, located, version);
  }

  private async lintNotebook(uri: string): Promise<void> {
    this.opening.delete(uri);
    const settings = await this.settingsFor(uri);
    await this.parserReady();
    const notebook = this.deps.notebooks.getNotebookDocument(uri);
    if (!notebook || !this.notebookCells.has(uri)) return;
    const cells = this.codeCells(notebook);
    const cellUris = cells.map((cell) => cell.uri);
    const texts = cells.map((cell) => cell.document.getText());
    const versions = cells.map((cell) => cell.document.version);
    let located: LocatedFinding[] | undefined = [];
    if (this.shouldAnalyse(uri, texts, settings)) {
      located = await this.timed(uri, async () => {
        const results = await this.deps.files.analyzeNotebook(texts, this.optionsFor(uri, settings), uri, this.projects.requestFor(uri, settings));
        return locateCellFindings(cellUris, results, settings, cells.map((cell) => cell.number));
      });
      if (!located || !this.sameCells(uri, notebook, cellUris, versions)) return; // stale: a newer run is scheduled
    }
    const groups = groupByUri(cellUris, located);
    cells.forEach((cell, i) => this.publish(cell.uri, groups.get(cell.uri) ?? [], versions[i]));
    for (const gone of this.notebookCells.get(uri) ?? []) if (!groups.has(gone)) this.clear(gone);
    this.notebookCells.set(uri, cellUris);
  }

  /** True while the notebook is open with the same code cells, at the same versions, as when its analysis began. */
  private sameCells(uri: string, notebook: NotebookDocument, cellUris: readonly string[], versions: readonly number[]): boolean {
    if (!this.notebookCells.has(uri) || this.deps.notebooks.getNotebookDocument(uri) !== notebook) return false;
    const now = this.codeCells(notebook);
    return now.length === cellUris.length && now.every((cell, i) => cell.uri === cellUris[i] && cell.document.version === versions[i]);
  }

  /** The notebook's Python code cells in order: together they are one program. */
  private codeCells(notebook: NotebookDocument): CodeCell[] {
    const cells: CodeCell[] = [];
    notebook.cells.forEach((cell, i) => {
      if (cell.kind !== NotebookCellKind.Code) return;
      const document = this.deps.notebooks.getCellTextDocument(cell);
      if (document?.languageId === PYTHON_LANGUAGE) cells.push({ uri: cell.document, document, number: i + 1 });
    });
    return cells;
  }

  /**
   * Checked before anything is parsed: a text over a size limit never reaches tree-sitter.
   * A skipped document's next run does not wait for its last analysis' duration.
   */
  private shouldAnalyse(uri: string, text: string | readonly string[], settings: ServerSettings): boolean {
    const analyse = settings.enable && !this.crashedParser.has(uri) && this.withinLimits(uri, text, settings);
    return analyse;
  }

  private withinLimits(uri: string, text: string | readonly string[], settings: ServerSettings): boolean {
    const problem = sizeLimitProblem(text, { maxLines: settings.maxFileLines, maxBytes: settings.maxFileBytes });
    if (!problem) return true;
    const setting = problem.limit === 'maxLines' ? 'deviceDoctor.maxFileLines' : 'deviceDoctor.maxFileBytes';
    this.deps.log.warnOnce(`${uri}#${setting}`, `${uri} has ${problem.message} (${setting}); it is not analysed. `
      + 'Raise the setting (0 = no limit) to analyse it.');
    return false;
  }

  private optionsFor(uri: string, settings: ServerSettings): AnalyzeOptions {
    const { selection, problems } = selectionForDocument(uri, settings);
    for (const problem of problems) this.deps.log.warnOnce(`pyproject:${problem}`, problem);
    return { ...selection, noqa: true };
  }

  private publish(uri: string, located: readonly LocatedFinding[], version: number): void {
    this.deps.store.set(uri, located, version);
    void this.deps.connection.sendDiagnostics({ uri, version, diagnostics: located.map((f) => f.diagnostic) });
  }

  private clear(uri: string): void {
    this.deps.store.delete(uri);
    void this.deps.connection.sendDiagnostics({ uri, diagnostics: [] });
  }
}
