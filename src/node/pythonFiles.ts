// Walks folders for the Python files and notebooks a project holds, as `lint` finds them:
// only *.py and *.ipynb, and never into folders that hold other people's code or tool
// output (Ruff's default excludes, plus any virtual environment). The CLI walks what it is
// given; the CLI and the editor walk a project for the files that may import a file.
import * as fs from 'fs';
import * as path from 'path';

const LINTED_EXTENSIONS = ['.py', '.ipynb'];

/** Folder names never entered (hidden folders such as .git and .venv are skipped too). */
export const SKIPPED_FOLDERS = [
  'node_modules', '__pycache__', '__pypackages__', 'site-packages', 'venv',
  'build', 'dist', '_build', 'buck-out',
];

export function isLintedFileName(name: string): boolean {
  return LINTED_EXTENSIONS.includes(path.extname(name).toLowerCase());
}

/** A virtual environment or conda environment, whatever its name. */
function isEnvironment(dir: string): boolean {
  return fs.existsSync(path.join(dir, 'pyvenv.cfg')) || fs.existsSync(path.join(dir, 'conda-meta'));
}

export function isSkippedFolder(dir: string): boolean {
  const name = path.basename(dir);
  return name.startsWith('.') || SKIPPED_FOLDERS.includes(name) || isEnvironment(dir);
}

/** Compares by UTF-16 code units, so the order never depends on the locale. */
export function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export class Walker {
  readonly found = new Set<string>();
  /** Folders that could not be listed, with the reason. */
  readonly unreadable: Array<{ path: string; reason: string }> = [];
  private readonly visited = new Set<string>();

  /** Directory entries read so far (a folder of a million images costs its listing). */
  private entries = 0;

  /** `limit`: the walk stops once it has found this many files, or read `maxEntries` directory entries. */
  constructor(private readonly limit = Infinity, private readonly maxEntries = Infinity) {}

  walk(dir: string): void {
    if (this.found.size >= this.limit || this.entries >= this.maxEntries) return;
    let real: string;
    let entries: fs.Dirent[];
    try {
      real = fs.realpathSync(dir);
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch (err) {
      this.unreadable.push({ path: dir, reason: (err as NodeJS.ErrnoException).code ?? (err as Error).message });
      return;
    }
    if (this.visited.has(real)) return; // the same folder reached twice (overlapping arguments)
    this.visited.add(real);
    this.entries += entries.length;
    for (const entry of entries.sort((a, b) => byCodeUnits(a.name, b.name))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!isSkippedFolder(full)) this.walk(full);
      } else if (isLintedFileName(entry.name) && (entry.isFile() || this.isLinkToFile(full))) {
        if (this.found.size >= this.limit) return;
        this.found.add(full);
      }
      // Symbolic links to folders are not followed: they are how walks loop forever.
    }
  }

  private isLinkToFile(full: string): boolean {
    try {
      return fs.statSync(full).isFile();
    } catch {
      return false; // a dangling link
    }
  }
}

/** Directory entries a project walk reads at most: a data folder beside the code must not stall it. */
const MAX_PROJECT_ENTRIES = 200_000;

/**
 * The Python files and notebooks under `folders`, as `lint` would find them there, the first
 * `limit` of a sorted walk (within MAX_PROJECT_ENTRIES): the files whose imports may name a
 * linted file.
 */
export function pythonFilesUnder(folders: readonly string[], limit: number): string[] {
  const walker = new Walker(limit, MAX_PROJECT_ENTRIES);
  for (const folder of folders) walker.walk(folder);
  return [...walker.found].sort(byCodeUnits);
}

/** `file` lies under `folder` (at any depth). */
export function isInsideFolder(file: string, folder: string): boolean {
  const relative = path.relative(folder, file);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
}
