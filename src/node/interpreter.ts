// Which Python to ask about PyTorch. The CLI tries --python, then python3 and python on
// PATH; the extension puts the Python extension's choice and the setting first. Both
// use resolveInterpreter, which only looks at the file system and never runs anything.
import * as path from 'path';
import { findExecutable, isExecutableFile } from './pathLookup';

export interface ResolveOptions {
  /** Defaults to process.env.PATH. */
  pathEnv?: string;
  platform?: NodeJS.Platform;
}

/** A bare command name searched on PATH, or null; a name with a directory part is not searched. */
export function findOnPath(name: string, options: ResolveOptions = {}): string | null {
  const platform = options.platform ?? process.platform;
  return findExecutable(name, { PATH: options.pathEnv ?? process.env.PATH ?? '', PATHEXT: process.env.PATHEXT }, platform) ?? null;
}

function hasDirectoryPart(candidate: string): boolean {
  return candidate.includes('/') || candidate.includes('\\');
}

/**
 * The first candidate that exists and is executable, as an absolute path: a path is
 * checked as it is, a bare name (python3) is looked up on PATH. Null when none is.
 */
export function resolveInterpreter(candidates: readonly string[], options: ResolveOptions = {}): string | null {
  const platform = options.platform ?? process.platform;
  for (const candidate of candidates) {
    const trimmed = candidate.trim();
    if (trimmed === '') continue;
    if (!hasDirectoryPart(trimmed)) {
      const found = findOnPath(trimmed, options);
      if (found) return found;
      continue;
    }
    const full = path.resolve(trimmed);
    if (isExecutableFile(full, platform)) return full;
  }
  return null;
}

/**
 * The CLI's order: --python when given (even if it does not exist, so the report says so), else
 * python3/python on PATH. A relative --python (.venv/bin/python) is the user's own choice on the
 * command line: it is made absolute against the current folder here, because the process runner
 * refuses relative paths; a bare name (python3.12) is looked up on PATH when it is run.
 */
export function cliInterpreter(explicit: string | undefined, options: ResolveOptions = {}): string {
  if (explicit !== undefined && explicit !== '') return hasDirectoryPart(explicit) ? path.resolve(explicit) : explicit;
  return resolveInterpreter(['python3', 'python'], options) ?? 'python3';
}
