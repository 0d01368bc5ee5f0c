// Whether a path lies inside a folder, by path segments: `..venv/bin/python` is a folder named
// `..venv` inside it, only `..` itself or `../…` (or another drive, on Windows) is outside. The one
// place this is decided (Workspace Trust, lint's display paths, SARIF locations, per-file-ignores),
// because a test on the text (`relative.startsWith('..')`) takes any name that starts with two
// dots for a way out. Pure: the paths are compared as given; resolving symlinks is the caller's.
import * as path from 'path';

/** path, path.posix or path.win32: tests judge Windows paths on any machine. */
export type PathApi = Pick<typeof path, 'relative' | 'isAbsolute' | 'sep'>;

/** `file` relative to `folder` when inside it ('' for the folder itself), else null. */
export function relativeInside(folder: string, file: string, paths: PathApi = path): string | null {
  const relative = paths.relative(folder, file);
  const leaves = relative === '..' || relative.startsWith(`..${paths.sep}`) || paths.isAbsolute(relative);
  return leaves ? null : relative;
}

/** True when `file` is `folder` or lies below it. */
export function isInside(file: string, folder: string, paths: PathApi = path): boolean {
  return relativeInside(folder, file, paths) !== null;
}
