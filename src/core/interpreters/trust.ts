// Workspace Trust for discovered interpreters: in Restricted Mode an interpreter the workspace
// could have planted (one inside a workspace folder: a .venv, a conda env in the project) or
// chosen (a workspace setting) must not run, since running it runs the folder's code. Inside is
// judged by path segments (core/paths/containment.ts), on every name the file system gives both
// sides (the node layer supplies them), so neither a `..venv` folder nor a symlink, on the
// workspace's side or the interpreter's, can smuggle one out.
import { isInside } from '../paths/containment';
import type { InterpreterCandidate } from './model';

export interface TrustFacts {
  trusted: boolean;
  /** Absolute paths of the workspace folders: each as opened and as the file system resolves it. */
  workspaceFolders: readonly string[];
  /** Other names of this file: its folder's symlinks resolved, its own; none when unknown. */
  aliases?(file: string): readonly string[];
}

export function mayRun(candidate: InterpreterCandidate, facts: TrustFacts): boolean {
  if (facts.trusted) return true;
  if (candidate.namedByWorkspace) return false;
  const names = [candidate.path, ...(facts.aliases?.(candidate.path) ?? [])];
  return !names.some((name) => facts.workspaceFolders.some((folder) => isInside(name, folder)));
}
