// How --fix touches files. It never follows a symbolic link to a file (the link may point
// anywhere, outside every path given: `lint --fix .` must not rewrite /etc/hosts through
// ./hosts.py), and it writes atomically: a temporary file beside the original, with its
// mode, renamed over it, so a crash or a full disk leaves either the old file or the new one.
import * as fs from 'fs';
import * as path from 'path';

/** A file read for fixing: its bytes and the permission bits to give the rewritten file. */
export interface FixableFile {
  bytes: Buffer;
  mode: number;
}

/** The reason --fix leaves a path alone, printed as `path: not fixed: <reason>`. */
export const SYMBOLIC_LINK = 'a symbolic link';

/**
 * Reads `file` for fixing, or says why it must not be fixed. The link check is made by
 * the open itself (O_NOFOLLOW) where the platform has it, so a file swapped for a link
 * after an lstat is still refused.
 */
export function readForFix(file: string): FixableFile | { notFixed: string } {
  if (fs.lstatSync(file).isSymbolicLink()) return { notFixed: SYMBOLIC_LINK };
  const noFollow = fs.constants.O_NOFOLLOW ?? 0;
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | noFollow);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOOP') return { notFixed: SYMBOLIC_LINK };
    throw err;
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) return { notFixed: 'not a regular file' };
    return { bytes: fs.readFileSync(fd), mode: stat.mode & 0o7777 };
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Replaces `file` with `bytes`: written to a new temporary file in the same folder (so the
 * rename stays on one file system), given `mode`, flushed, then renamed over `file`. A
 * rename replaces the name, never what a link at that name points to.
 */
export function writeFileAtomic(file: string, bytes: Buffer, mode: number): void {
  // Required here, not at the top: loading crypto costs `lint` 6 ms at every start, for a name only --fix needs.
  const { randomBytes } = require('crypto') as typeof import('crypto');
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString('hex')}.device-doctor.tmp`);
  // 'wx' (O_CREAT | O_EXCL) fails rather than open anything already at that name, a link included.
  const fd = fs.openSync(temporary, 'wx', mode);
  try {
    try {
      fs.writeFileSync(fd, bytes);
      fs.fchmodSync(fd, mode); // the umask narrowed the mode given to open
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temporary, file);
  } catch (err) {
    fs.rmSync(temporary, { force: true });
    throw err;
  }
}
