// What the fuzzer mutates: every Python file of the rule corpus (test/fixtures/rules/**)
// and the code cells of the notebook fixtures.
import * as fs from 'fs';
import * as path from 'path';

const FIXTURES = path.resolve(__dirname, '..', 'fixtures');
const REPO_ROOT = path.resolve(FIXTURES, '..', '..');

export interface CorpusFile {
  /** Relative to the repository root. */
  relPath: string;
  source: string;
}

export interface Corpus {
  files: CorpusFile[];
  /** Code cells of each notebook fixture, in order. */
  notebooks: Array<{ relPath: string; cells: string[] }>;
  /** Every code cell of every notebook, for building random notebooks. */
  cells: string[];
}

function walk(dir: string, ext: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .flatMap((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return walk(full, ext);
      return entry.isFile() && entry.name.endsWith(ext) ? [full] : [];
    });
}

interface NotebookJson {
  cells?: Array<{ cell_type?: string; source?: string | string[] }>;
}

let cached: Corpus | undefined;

export function loadCorpus(): Corpus {
  if (cached) return cached;
  const files = walk(path.join(FIXTURES, 'rules'), '.py').map((file) => ({ relPath: path.relative(REPO_ROOT, file), source: fs.readFileSync(file, 'utf8') }));
  const notebooks = walk(path.join(FIXTURES, 'notebooks'), '.ipynb').map((file) => {
    const json = JSON.parse(fs.readFileSync(file, 'utf8')) as NotebookJson;
    const cells = (json.cells ?? [])
      .filter((c) => c.cell_type === 'code')
      .map((c) => (Array.isArray(c.source) ? c.source.join('') : c.source ?? ''));
    return { relPath: path.relative(REPO_ROOT, file), cells };
  });
  if (files.length === 0) throw new Error(`no rule corpus under ${path.join(FIXTURES, 'rules')}`);
  cached = { files, notebooks, cells: notebooks.flatMap((n) => n.cells) };
  return cached;
}
