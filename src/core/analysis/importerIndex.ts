// Which files of the project import a given file, so that its analysis sees how it is used
// ("facts in both directions"): model.py's classes are moved to the GPU in train.py, which
// imports it. Built when first asked from each candidate .py file's import lines (read, not
// parsed: only module names matter), resolved the way the analysis resolves them; a notebook
// (.ipynb) is a candidate by its code cells, as its kernel runs them one after another. The
// front end names the candidates: the CLI the files it lints and the Python files of the
// folders that hold them, the editor the open documents.
import type { ModuleFile, ModuleResolver } from './project';
import { notebookCells } from './notebook';

/** At most this many importers run with a file's analysis: each adds its own interpretation. */
const MAX_IMPORTERS = 3;

/**
 * At most this many files of a project are read for their imports (a front end walks the
 * project for them): a run or an editor that has one file of it still sees how the rest of
 * the project uses that file, as a run over the whole folder does.
 */
export const MAX_IMPORTER_CANDIDATES = 5000;

const FROM_IMPORT = /^[ \t]*from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+([^#\n]*)/gm;
const PLAIN_IMPORT = /^[ \t]*import[ \t]+([^#\n;]+)/gm;
/** An importer that moves something to a device says more about the file it imports. */
const MOVES = /\.(to|cuda)\s*\(|\bdevice\b/;

/**
 * What each candidate file imports from the project, by its text: kept by a front end whose
 * indexes are rebuilt often (the editor's, one per analysed file, again after each save), so
 * only a file whose text changed is read for its imports again. Clear it when a file is
 * created or deleted: an import may then resolve elsewhere.
 */
export class ImportScans {
  private readonly byFile = new Map<string, { text: string; resolving: string; imported: Map<string, Set<string>> }>();

  /** `resolving`: what else decides where an import resolves (the search roots, the size limit). */
  scanned(file: string, text: string, resolving: string, scan: () => Map<string, Set<string>>): Map<string, Set<string>> {
    const kept = this.byFile.get(file);
    if (kept?.text === text && kept.resolving === resolving) return kept.imported;
    const imported = scan();
    this.byFile.set(file, { text, resolving, imported });
    return imported;
  }

  clear(): void {
    this.byFile.clear();
  }
}

export class ImporterIndex {
  /** Per imported file, its importers, each with how many of its names the importer takes. */
  private byImported?: Map<string, Array<{ importer: string; names: number }>>;

  /**
   * `read` gives the importers' texts the analysis runs; `scan` and `resolver` the texts
   * the index is built from (an editor records what `read` read, as what the analysis used).
   */
  /** `files`: the candidates, or how to list them (called once, when first asked). */
  constructor(
    private readonly files: readonly string[] | (() => readonly string[]),
    private readonly resolver: ModuleResolver,
    private readonly read: (file: string) => string | undefined,
    private readonly scan: (file: string) => string | undefined = read,
    private readonly scans = new ImportScans(),
    private readonly resolving = '',
  ) {}

  /**
   * The candidate files that import `file`, at most a few: those that take the most of its
   * names first (a trainer that calls its `to_device`, `log` and `synth_one_sample` says more
   * than a model file that takes one helper), then those that move to a device, then by order.
   * `read`: this analysis' reader, where one index serves many analyses (the editor's cache).
   */
  importersOf(file: string, read = this.read): ModuleFile[] {
    const importers = (this.byImported ??= this.build()).get(file) ?? [];
    const withText = importers.flatMap(({ importer: p, names }) => {
      const text = read(p);
      if (!p.endsWith('.ipynb')) return text === undefined ? [] : [{ f: { path: p, source: text } as ModuleFile, names }];
      const notebook = this.notebook(p, text);
      return notebook ? [{ f: { path: p, source: notebook.source, cells: notebook.cells } as ModuleFile, names }] : [];
    });
    return withText
      .map((x, i) => ({ ...x, i, moves: MOVES.test(x.f.source) }))
      .sort((a, b) => b.names - a.names || Number(b.moves) - Number(a.moves) || a.i - b.i)
      .slice(0, MAX_IMPORTERS)
      .map((x) => x.f);
  }

  private build(): Map<string, Array<{ importer: string; names: number }>> {
    const index = new Map<string, Array<{ importer: string; names: number }>>();
    for (const importer of typeof this.files === 'function' ? this.files() : this.files) {
      if (!importer.endsWith('.py') && !importer.endsWith('.ipynb')) continue;
      const scanned = this.scan(importer);
      const text = importer.endsWith('.ipynb') ? this.notebook(importer, scanned)?.source : scanned;
      if (text === undefined) continue;
      for (const [imported, names] of this.scans.scanned(importer, text, this.resolving, () => this.importedFiles(importer, text))) {
        if (imported === importer) continue;
        const list = index.get(imported);
        if (!list) index.set(imported, [{ importer, names: names.size }]);
        else if (!list.some((e) => e.importer === importer)) list.push({ importer, names: names.size });
      }
    }
    return index;
  }

  /** The last notebook read, per path: each analysis asks for its importers again. */
  private readonly notebooks = new Map<string, { json: string; code?: { source: string; cells: string[] } }>();

  /** A notebook's code cells and their joined text; undefined when it is not nbformat JSON. */
  private notebook(file: string, json: string | undefined): { source: string; cells: string[] } | undefined {
    if (json === undefined) return undefined;
    let read = this.notebooks.get(file);
    if (read?.json !== json) {
      const cells = notebookCells(json);
      this.notebooks.set(file, (read = { json, code: cells && { source: cells.join('\n'), cells } }));
    }
    return read.code;
  }

  /** The project files `importer` imports, each with the names it takes from it (`from m import a, b`; `m.a`, `m.b` of `import m`). */
  private importedFiles(importer: string, text: string): Map<string, Set<string>> {
    const found = new Map<string, Set<string>>();
    const resolve = (qualified: string, names: () => Iterable<string>) => {
      const dots = /^\.*/.exec(qualified)![0].length;
      try {
        // With the importer's code, for the folders it puts on sys.path, as its own analysis resolves them.
        const file = this.resolver.resolve(importer, qualified.slice(dots), dots, text);
        if (!file) return;
        const taken = found.get(file.path) ?? new Set<string>();
        for (const name of names()) taken.add(name);
        found.set(file.path, taken);
      } catch {
        // An unreadable module is one we cannot see, not a failed lint.
      }
    };
    for (const m of text.matchAll(FROM_IMPORT)) {
      const module = m[1]!;
      const bares = m[2]!.replace(/[()\\]/g, ' ').split(',').map((name) => name.trim().split(/\s+/)[0]).filter((b): b is string => !!b && /^(\w+|\*)$/.test(b));
      resolve(module, () => bares);
      // `from pkg import model` may import the submodule model.py: what is used of it is `model.x`.
      for (const bare of bares) if (bare !== '*') resolve(module.endsWith('.') ? `${module}${bare}` : `${module}.${bare}`, () => attributesUsed(text, bare));
    }
    for (const m of text.matchAll(PLAIN_IMPORT)) {
      for (const part of m[1]!.split(',')) {
        const [name, as, alias] = part.trim().split(/\s+/);
        if (name && /^[\w.]+$/.test(name)) resolve(name, () => attributesUsed(text, as === 'as' && alias ? alias : name));
      }
    }
    return found;
  }
}

/** The distinct attributes `text` reads of `name` (`tools.log(...)`, `tools.to_device(...)`: log, to_device). */
function attributesUsed(text: string, name: string): Set<string> {
  const escaped = name.replace(/\./g, '\\.');
  return new Set([...text.matchAll(new RegExp(`\\b${escaped}\\.(\\w+)`, 'g'))].map((m) => m[1]!));
}
