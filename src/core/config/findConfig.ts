// Finds the pyproject.toml that configures a file. As with Ruff, the nearest
// pyproject.toml that has a `[tool.device-doctor]` table wins; pyproject files
// without the table are passed over.
import * as fs from 'fs';
import * as path from 'path';
import { extractConfigTable, readConfigTable, type ProjectConfig } from './projectConfig';

export interface FoundConfig {
  /** The folder holding the pyproject.toml; per-file-ignores globs are relative to it. */
  root: string;
  config: ProjectConfig;
  /** Problems in that file, each prefixed with its path. */
  errors: string[];
}

interface CacheEntry {
  mtimeMs: number;
  size: number;
  /** undefined: the file has no `[tool.device-doctor]` table (and is valid TOML). */
  parsed: { config: ProjectConfig; errors: string[] } | undefined;
}

// Keyed by pyproject path; an entry is reused only while the file's mtime and size hold.
const cache = new Map<string, CacheEntry>();

function readPyproject(file: string): CacheEntry['parsed'] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    return { config: {}, errors: [`${file}: cannot read: ${(err as Error).message}`] };
  }
  const { table, error } = extractConfigTable(text);
  // A broken pyproject.toml is reported rather than skipped: it may be the one meant to apply.
  if (error) return { config: {}, errors: [`${file}: ${error}`] };
  if (!table) return undefined;
  const { config, errors } = readConfigTable(table);
  return { config, errors: errors.map((e) => `${file}: ${e}`) };
}

function configIn(dir: string): CacheEntry['parsed'] {
  const file = path.join(dir, 'pyproject.toml');
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    return undefined;
  }
  if (!stat.isFile()) return undefined;
  const cached = cache.get(file);
  if (cached && cached.mtimeMs === stat.mtimeMs && cached.size === stat.size) return cached.parsed;
  const parsed = readPyproject(file);
  cache.set(file, { mtimeMs: stat.mtimeMs, size: stat.size, parsed });
  return parsed;
}

/** Walks up from `filePath`'s folder; undefined when no pyproject.toml configures it. */
export function findProjectConfig(filePath: string): FoundConfig | undefined {
  let dir = path.dirname(path.resolve(filePath));
  for (;;) {
    const parsed = configIn(dir);
    if (parsed) return { root: dir, config: parsed.config, errors: parsed.errors };
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** Forgets cached pyproject files (tests, or a server told that files changed). */
export function clearProjectConfigCache(): void {
  cache.clear();
}
