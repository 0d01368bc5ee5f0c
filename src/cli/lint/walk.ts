// Finds the files `lint` checks. Paths named on the command line are always checked;
// inside folders, only *.py and *.ipynb are, and folders that hold other people's code
// or tool output are skipped (Ruff's default excludes, plus any virtual environment).
import * as fs from 'fs';
import * as path from 'path';
import { notRegularReason } from './fileAccess';

const LINTED_EXTENSIONS = ['.py', '.ipynb'];

/** Folder names never entered (hidden folders such as .git and .venv are skipped too). */
export const SKIPPED_FOLDERS = [
  'node_modules', '__pycache__', '__pypackages__', 'site-packages', 'venv',
  'build', 'dist', '_build', 'buck-out',
];

export interface CollectedFiles {
  /** Absolute paths, sorted, without duplicates. */
  files: string[];
  /** Command-line paths that do not exist. */
  missing: string[];
  /** Folders that could not be listed, with the reason. */
  unreadable: Array<{ path: string; reason: string }>;
  /**
   * Command-line paths that are neither a folder nor a regular file (a FIFO, /dev/zero):
   * reading one would block or never end, so it is skipped, never opened, with the reason.
   */
  notRegular: Array<{ path: string; reason: string }>;
}

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
function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

class Walker {
  readonly found = new Set<string>();
  readonly unreadable: CollectedFiles['unreadable'] = [];
  private readonly visited = new Set<string>();

  walk(dir: string): void {
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
    for (const entry of entries.sort((a, b) => byCodeUnits(a.name, b.name))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!isSkippedFolder(full)) this.walk(full);
      } else if (isLintedFileName(entry.name) && (entry.isFile() || this.isLinkToFile(full))) {
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

/** Resolves command-line paths against `cwd` and collects the files to check. */
export function collectFiles(paths: readonly string[], cwd: string): CollectedFiles {
  const walker = new Walker();
  const missing: string[] = [];
  const notRegular: CollectedFiles['notRegular'] = [];
  for (const given of paths) {
    const full = path.resolve(cwd, given);
    let stat: fs.Stats;
    try {
      stat = fs.statSync(full);
    } catch {
      missing.push(given);
      continue;
    }
    if (stat.isDirectory()) walker.walk(full);
    else if (stat.isFile()) walker.found.add(full);
    else notRegular.push({ path: full, reason: notRegularReason(stat) });
  }
  return { files: [...walker.found].sort(byCodeUnits), missing, unreadable: walker.unreadable, notRegular };
}
