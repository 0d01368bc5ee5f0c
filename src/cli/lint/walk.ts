// Finds the files `lint` checks. Paths named on the command line are always checked;
// inside folders, what the project walk finds (../../node/pythonFiles.ts).
import * as fs from 'fs';
import * as path from 'path';
import { byCodeUnits, Walker } from '../../node/pythonFiles';
import { notRegularReason } from './fileAccess';

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

