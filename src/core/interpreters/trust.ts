// Workspace Trust for discovered interpreters: in Restricted Mode an interpreter the workspace
// could have planted (one inside a workspace folder: a .venv, a conda env in the project) or
// chosen (a workspace setting) must not run, since running it runs the folder's code. Paths are
// compared as given and as the file system resolves them, so a symlink cannot smuggle one out.
import * as path from 'path';
import type { InterpreterCandidate } from './model';

export interface TrustFacts {
  trusted: boolean;
  /** Absolute paths of the workspace folders. */
  workspaceFolders: readonly string[];
  /** The path with its symlinks resolved; identity when unknown. */
  realPath?(file: string): string;
}

export function isInside(file: string, folder: string): boolean {
  const relative = path.relative(folder, file);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

export function mayRun(candidate: InterpreterCandidate, facts: TrustFacts): boolean {
  if (facts.trusted) return true;
  if (candidate.namedByWorkspace) return false;
  const real = facts.realPath?.(candidate.path) ?? candidate.path;
  return !facts.workspaceFolders.some((folder) => isInside(candidate.path, folder) || isInside(real, folder));
}
