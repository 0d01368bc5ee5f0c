// Which files of the project import a given file, so that its analysis sees how it is used
// ("facts in both directions"): model.py's classes are moved to the GPU in train.py, which
// imports it. Built when first asked from each candidate .py file's import lines (read, not
// parsed: only module names matter), resolved the way the analysis resolves them; a notebook
// (.ipynb) is a candidate by its code cells, as its kernel runs them one after another. The
// front end names the candidates: the CLI the files it lints, the editor the open documents.
import type { ModuleFile, ModuleResolver } from './project';
import { notebookCells } from './notebook';

/** At most this many importers run with a file's analysis: each adds its own interpretation. */
const MAX_IMPORTERS = 3;

const FROM_IMPORT = /^[ \t]*from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+([^#\n]*)/gm;
const PLAIN_IMPORT = /^[ \t]*import[ \t]+([^#\n;]+)/gm;
/** An importer that moves something to a device says the most about the file it imports. */
const MOVES = /\.(to|cuda)\s*\(|\bdevice\b/;

export class ImporterIndex {
  private byImported?: Map<string, string[]>;

  /**
   * `read` gives the importers' texts the analysis runs; `scan` and `resolver` the texts
   * the index is built from (an editor records what `read` read, as what the analysis used).
   */
  constructor(
    private readonly files: readonly string[],
    private readonly resolver: ModuleResolver,
    private readonly read: (file: string) => string | undefined,
    private readonly scan: (file: string) => string | undefined = read,
  ) {}

  /**
   * The linted files that import `file`, those that move to a device first, at most a few.
   * `read`: this analysis' reader, where one index serves many analyses (the editor's cache).
   */
  importersOf(file: string, read = this.read): ModuleFile[] {
    const importers = (this.byImported ??= this.build()).get(file) ?? [];
    const withText = importers.flatMap((p): ModuleFile[] => {
      const text = read(p);
      if (!p.endsWith('.ipynb')) return text === undefined ? [] : [{ path: p, source: text }];
      const notebook = this.notebook(p, text);
      return notebook ? [{ path: p, source: notebook.source, cells: notebook.cells }] : [];
    });
    return withText
      .map((f, i) => ({ f, i, moves: MOVES.test(f.source) }))
      .sort((a, b) => Number(b.moves) - Number(a.moves) || a.i - b.i)
      .slice(0, MAX_IMPORTERS)
      .map((x) => x.f);
  }

  private build(): Map<string, string[]> {
    const index = new Map<string, string[]>();
    for (const importer of this.files) {
      if (!importer.endsWith('.py') && !importer.endsWith('.ipynb')) continue;
      const scanned = this.scan(importer);
      const text = importer.endsWith('.ipynb') ? this.notebook(importer, scanned)?.source : scanned;
      if (text === undefined) continue;
      for (const imported of this.importedFiles(importer, text)) {
        if (imported === importer) continue;
        const list = index.get(imported);
        if (!list) index.set(imported, [importer]);
        else if (!list.includes(importer)) list.push(importer);
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

  private importedFiles(importer: string, text: string): Set<string> {
    const found = new Set<string>();
    const resolve = (qualified: string) => {
      const dots = /^\.*/.exec(qualified)![0].length;
      try {
        // With the importer's code, for the folders it puts on sys.path, as its own analysis resolves them.
        const file = this.resolver.resolve(importer, qualified.slice(dots), dots, text);
        if (file) found.add(file.path);
      } catch {
        // An unreadable module is one we cannot see, not a failed lint.
      }
    };
    for (const m of text.matchAll(FROM_IMPORT)) {
      const module = m[1]!;
      resolve(module);
      // `from pkg import model` may import the submodule model.py.
      for (const name of m[2]!.replace(/[()\\]/g, ' ').split(',')) {
        const bare = name.trim().split(/\s+/)[0];
        if (bare && /^\w+$/.test(bare)) resolve(module.endsWith('.') ? `${module}${bare}` : `${module}.${bare}`);
      }
    }
    for (const m of text.matchAll(PLAIN_IMPORT)) {
      for (const part of m[1]!.split(',')) {
        const name = part.trim().split(/\s+/)[0];
        if (name && /^[\w.]+$/.test(name)) resolve(name);
      }
    }
    return found;
  }
}
