// The files cross-file analysis reads, on the side that analyses (the worker thread; the
// main thread in unit tests): open documents' current text first (an unsaved edit counts),
// then the disk, each file cached by (mtimeMs, size). Nothing is indexed up front: a module
// is looked for only when an analysed file imports it, and the workspace folder that holds
// a file is walked for the files that import it only when its analysis asks for them, so a
// workspace of thousands of files costs nothing until then. Reading is allowed in untrusted
// workspaces: nothing is executed.
import * as fs from 'fs';
import { createModuleResolver, ImporterIndex, ImportScans, MAX_IMPORTER_CANDIDATES, ModuleTrees, type ProjectContext } from '../core/analysis';
import { ModuleFileReader } from '../node/moduleFileReader';
import { isInsideFolder, pythonFilesUnder } from '../node/pythonFiles';
import type { ModuleUse, OverlayUpdate, ProjectSpec } from './analysisMessages';

/** One analysis' project, and what it read once the analysis is over. */
export interface ProjectSession {
  context: ProjectContext;
  /** The files this analysis looked for (found or not) and how long looking took. */
  finish(): ModuleUse;
}

/** Importer indexes kept at most: one per recently analysed file. */
const MAX_KEPT_INDEXES = 32;

/**
 * Source bytes of imported modules kept parsed, in each analysis worker (the server runs two):
 * some 21 MB of plain trees. 30 of timm's and yolov5's largest files import 200-800 KB each,
 * 1.9 MB together; with this budget their first analyses took 18% longer than with 4 MB (the
 * CLI's), a second analysis of each (a keystroke) parsed none again, and one analysis never
 * evicts what it uses itself (ModuleTrees.beginAnalysis). At 512 KB the second analyses of
 * two files parsed 37 and 53 modules again.
 */
const MODULE_TREES_BUDGET_BYTES = 1024 * 1024;

interface KeptIndex {
  /** The other open documents' paths and versions, and the spec, the index was built from. */
  key: string;
  index: ImporterIndex;
}

export class ProjectFiles {
  /** Absolute path → text of each open document, which overrides the file on disk. */
  private readonly open = new Map<string, string>();
  /** Absolute path → a number that changes whenever that open document's text does. */
  private readonly versions = new Map<string, number>();
  private nextVersion = 0;
  private readonly disk = new ModuleFileReader({ revalidate: true });
  /** Imported modules parsed once for every analysis while their text stays the same. */
  private readonly trees = new ModuleTrees(MODULE_TREES_BUDGET_BYTES);
  /**
   * Analysed path → the index of the open documents that may import it. Typing in a file
   * changes only its own text, which says nothing about who imports it: its index is reused.
   */
  private readonly importerIndexes = new Map<string, KeptIndex>();
  /** How many importer indexes were built (for tests). */
  importerIndexBuilds = 0;
  /** The Python files of each workspace folder walked, until a file is created or deleted there. */
  private readonly folderFiles = new Map<string, string[]>();
  /** What each candidate imports, shared by the indexes: a rebuilt index reads only changed files. */
  private readonly importScans = new ImportScans();

  setOpen(path: string, text: string): void {
    if (this.open.get(path) === text) return;
    this.open.set(path, text);
    this.versions.set(path, this.nextVersion++);
  }

  applyOverlay(update: OverlayUpdate | undefined): void {
    if (!update) return;
    for (const path of update.drop) {
      this.open.delete(path);
      this.versions.delete(path);
      this.importerIndexes.delete(path);
    }
    for (const { path, text } of update.set) this.setOpen(path, text);
  }

  /** A watcher saw these files change on disk: their next read goes to the disk. */
  changedOnDisk(paths: readonly string[]): void {
    for (const path of paths) this.disk.forget(path);
    // A module created or deleted may change what an open document's import resolves to;
    // a file's new text, whom it imports.
    if (paths.length > 0) this.importerIndexes.clear();
    // A folder is walked again only when a file was created or deleted in it, not at every
    // save; where any import resolves may change then, wherever the file is.
    const listed = new Set([...this.folderFiles.values()].flat());
    const createdOrDeleted = paths.filter((p) => listed.has(p) !== fs.existsSync(p));
    if (createdOrDeleted.length === 0) return;
    this.importScans.clear();
    for (const root of [...this.folderFiles.keys()]) {
      if (createdOrDeleted.some((p) => isInsideFolder(p, root))) this.folderFiles.delete(root);
    }
  }

  /** How many open documents' texts are held (for tests). */
  get openCount(): number {
    return this.open.size;
  }

  begin(spec: ProjectSpec): ProjectSession {
    const found: string[] = [];
    const missing: string[] = [];
    let ms = 0;
    const read = (file: string): string | undefined => {
      const started = performance.now();
      const text = this.read(file, spec.maxModuleBytes);
      ms += performance.now() - started;
      (text === undefined ? missing : found).push(file);
      return text;
    };
    const modules = createModuleResolver(spec.roots, read);
    this.trees.beginAnalysis();
    // The open documents that import this one run with its analysis; read through `read`, so
    // an edit of one re-analyses this file as an edit of an imported module does.
    const importers = this.importerIndex(spec);
    return {
      context: { path: spec.path, modules, trees: this.trees, importers: () => importers.importersOf(spec.path, read) },
      finish: () => ({ found: [...new Set(found)], missing: [...new Set(missing)], ms: Math.round(ms) }),
    };
  }

  /**
   * The open documents other than `spec.path`, and the Python files of the workspace folder
   * that holds it, indexed by what they import: built again only when an open document, or
   * the set of them, changed (or the disk did, changedOnDisk).
   */
  private importerIndex(spec: ProjectSpec): ImporterIndex {
    const others = [...this.versions].filter(([p]) => p !== spec.path);
    const key = JSON.stringify([spec.roots, spec.maxModuleBytes, others]);
    const kept = this.importerIndexes.get(spec.path);
    if (kept?.key === key) return kept.index;
    // Built from the texts without recording them: only the importers an analysis runs count as read.
    const quiet = (file: string) => this.read(file, spec.maxModuleBytes);
    const candidates = () => [...new Set([...others.map(([p]) => p), ...this.filesBeside(spec)])].filter((p) => p !== spec.path);
    const resolving = JSON.stringify([spec.roots, spec.maxModuleBytes]);
    const index = new ImporterIndex(candidates, createModuleResolver(spec.roots, quiet), quiet, quiet, this.importScans, resolving);
    this.importerIndexBuilds++;
    this.importerIndexes.delete(spec.path);
    this.importerIndexes.set(spec.path, { key, index });
    if (this.importerIndexes.size > MAX_KEPT_INDEXES) this.importerIndexes.delete(this.importerIndexes.keys().next().value!);
    return index;
  }

  /** The Python files of the workspace folders that hold `spec.path` (walked once until the disk changes). */
  private filesBeside(spec: ProjectSpec): string[] {
    return spec.roots.filter((root) => isInsideFolder(spec.path, root)).flatMap((root) => {
      let files = this.folderFiles.get(root);
      if (!files) this.folderFiles.set(root, (files = pythonFilesUnder([root], MAX_IMPORTER_CANDIDATES)));
      return files;
    });
  }

  private read(file: string, maxBytes: number): string | undefined {
    const open = this.open.get(file);
    if (open === undefined) return this.disk.read(file, maxBytes);
    // The same limit as for the file on disk: a huge open document is not analysed as a module either.
    if (maxBytes && open.length > maxBytes / 3 && Buffer.byteLength(open, 'utf8') > maxBytes) return undefined;
    return open;
  }
}
