// The files cross-file analysis reads, on the side that analyses (the worker thread; the
// main thread in unit tests): open documents' current text first (an unsaved edit counts),
// then the disk, each file cached by (mtimeMs, size). Nothing is indexed up front: a module
// is looked for only when an analysed file imports it, so a workspace of thousands of files
// costs nothing until then. Reading is allowed in untrusted workspaces: nothing is executed.
import { createModuleResolver, ImporterIndex, ModuleTrees, type ProjectContext } from '../core/analysis';
import { ModuleFileReader } from '../node/moduleFileReader';
import type { ModuleUse, OverlayUpdate, ProjectSpec } from './analysisMessages';

/** One analysis' project, and what it read once the analysis is over. */
export interface ProjectSession {
  context: ProjectContext;
  /** The files this analysis looked for (found or not) and how long looking took. */
  finish(): ModuleUse;
}

export class ProjectFiles {
  /** Absolute path → text of each open document, which overrides the file on disk. */
  private readonly open = new Map<string, string>();
  private readonly disk = new ModuleFileReader({ revalidate: true });
  /** Imported modules parsed once for every analysis while their text stays the same. */
  private readonly trees = new ModuleTrees();

  setOpen(path: string, text: string): void {
    this.open.set(path, text);
  }

  applyOverlay(update: OverlayUpdate | undefined): void {
    if (!update) return;
    for (const path of update.drop) this.open.delete(path);
    for (const { path, text } of update.set) this.open.set(path, text);
  }

  /** A watcher saw these files change on disk: their next read goes to the disk. */
  changedOnDisk(paths: readonly string[]): void {
    for (const path of paths) this.disk.forget(path);
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
    // The open documents that import this one run with its analysis; read through `read`, so
    // an edit of one re-analyses this file as an edit of an imported module does.
    const quiet = (file: string) => this.read(file, spec.maxModuleBytes);
    const importers = new ImporterIndex([...this.open.keys()].filter((p) => p !== spec.path), createModuleResolver(spec.roots, quiet), read, quiet);
    return {
      context: { path: spec.path, modules, trees: this.trees, importers: () => importers.importersOf(spec.path) },
      finish: () => ({ found: [...new Set(found)], missing: [...new Set(missing)], ms: Math.round(ms) }),
    };
  }

  private read(file: string, maxBytes: number): string | undefined {
    const open = this.open.get(file);
    if (open === undefined) return this.disk.read(file, maxBytes);
    // The same limit as for the file on disk: a huge open document is not analysed as a module either.
    if (maxBytes && open.length > maxBytes / 3 && Buffer.byteLength(open, 'utf8') > maxBytes) return undefined;
    return open;
  }
}
