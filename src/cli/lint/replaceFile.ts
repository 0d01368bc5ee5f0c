// How --fix writes a file: the fixed bytes go to a temporary file beside the original
// (same folder, so the rename stays on one file system), given the original's owner and
// mode, flushed, then renamed over it; a crash or a full disk leaves either the old file or
// the new one. A rename replaces the name, never what a link at that name points to.
//
// Fixing a large file takes seconds, and a user may save it meanwhile. The file is kept
// open from the read (fileAccess.ts) to the rename, and right before the rename, after the
// temporary file is written, it must still be what was read: the same inode at that name,
// the same size, the same bytes. Otherwise nothing is renamed and the user's version stays.
// What is left is the rename itself: a save that lands in the old inode during it is caught
// afterwards (the inode is still open) and put back; only an editor's own rename-over in
// those microseconds could still be lost, which no rename-based writer on POSIX can rule out.
//
// --fix does not change what the file is: a read-only file is refused (as Ruff and Black
// do), and so is a file with other hard links (a new file would split them).
import * as fs from 'fs';
import * as path from 'path';
import type { OpenedForFix } from './fileAccess';

/** The fix was computed but not written; `message` says why. The file is as it was. */
export class FixNotWrittenError extends Error {
  constructor(
    message: string,
    /** 'warning' for a file --fix leaves alone by design (hard links), 'error' for one it was asked to fix and could not. */
    readonly severity: 'error' | 'warning' = 'error',
  ) {
    super(message);
    this.name = 'FixNotWrittenError';
  }
}

/** Test seams: called at the two moments a concurrent save is most likely to be missed. */
export interface ReplaceHooks {
  /** After the temporary file is written and before the file is checked again. */
  afterTemporaryWritten?: () => void;
  /** After the last check, right before the rename. */
  beforeRename?: () => void;
}

export const CHANGED_WHILE_FIXING = 'not fixed: the file changed while fixing (saved by someone else after --fix read it); your version is kept, run --fix again';

function octal(mode: number): string {
  return `0${mode.toString(8).padStart(3, '0')}`;
}

function permissionBits(opened: OpenedForFix): number {
  return Number(opened.stat.mode & 0o7777n);
}

/** Why `opened` must not be replaced at all, whatever the fix. */
function refusal(opened: OpenedForFix): FixNotWrittenError | undefined {
  const mode = permissionBits(opened);
  // The write bits decide, not access(2): root may write anything, and Ruff and Black still leave a 0444 file alone.
  if ((mode & 0o222) === 0) return new FixNotWrittenError(`not fixed: the file is read-only (mode ${octal(mode)}); make it writable to apply the fixes`);
  try {
    fs.accessSync(opened.path, fs.constants.W_OK);
  } catch {
    return new FixNotWrittenError(`not fixed: you may not write the file (mode ${octal(mode)}, owner uid ${opened.stat.uid})`);
  }
  const links = Number(opened.stat.nlink);
  if (links > 1) {
    return new FixNotWrittenError(`not fixed: the file has ${links} hard links; --fix writes a new file, which would split them, so it is left as it is (edit it in place, or break the link first)`, 'warning');
  }
  return undefined;
}

/** Everything in the open file now, read from its start (the descriptor's position is not used). */
function contentOf(fd: number): Buffer {
  const chunks: Buffer[] = [];
  let position = 0;
  for (;;) {
    const chunk = Buffer.allocUnsafe(64 * 1024);
    const read = fs.readSync(fd, chunk, 0, chunk.length, position);
    if (read === 0) return Buffer.concat(chunks);
    chunks.push(chunk.subarray(0, read));
    position += read;
  }
}

/** True when the name still leads to the inode that was read, and it holds the bytes that were read. */
function stillAsRead(opened: OpenedForFix): boolean {
  const atName = fs.lstatSync(opened.path, { bigint: true, throwIfNoEntry: false });
  if (!atName || atName.ino !== opened.stat.ino || atName.dev !== opened.stat.dev) return false;
  if (fs.fstatSync(opened.fd, { bigint: true }).size !== BigInt(opened.bytes.length)) return false;
  return contentOf(opened.fd).equals(opened.bytes);
}

interface Temporary {
  path: string;
  ino: bigint;
}

/** `bytes` in a new file beside `opened`, with its owner and mode, flushed to disk. */
function writeTemporary(opened: OpenedForFix, bytes: Buffer): Temporary {
  // Required here, not at the top: loading crypto costs `lint` 6 ms at every start, for a name only --fix needs.
  const { randomBytes } = require('crypto') as typeof import('crypto');
  const file = opened.path;
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString('hex')}.device-doctor.tmp`);
  const mode = permissionBits(opened);
  // 'wx' (O_CREAT | O_EXCL) fails rather than open anything already at that name, a link included.
  const fd = fs.openSync(temporary, 'wx', mode & 0o777);
  try {
    try {
      fs.writeFileSync(fd, bytes);
      keepOwner(fd, opened);
      fs.fchmodSync(fd, mode); // after fchown, which clears setuid/setgid; and the umask narrowed the mode given to open
      fs.fsyncSync(fd);
      return { path: temporary, ino: fs.fstatSync(fd, { bigint: true }).ino };
    } finally {
      fs.closeSync(fd);
    }
  } catch (err) {
    fs.rmSync(temporary, { force: true });
    throw err;
  }
}

/** Gives the new file the original's owner and group (root can; others can for a group of theirs). */
function keepOwner(fd: number, opened: OpenedForFix): void {
  const written = fs.fstatSync(fd, { bigint: true });
  if (written.uid === opened.stat.uid && written.gid === opened.stat.gid) return;
  try {
    fs.fchownSync(fd, Number(opened.stat.uid), Number(opened.stat.gid));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EPERM' && code !== 'EINVAL') throw err;
    throw new FixNotWrittenError(`not fixed: the file belongs to uid ${opened.stat.uid}, gid ${opened.stat.gid}, and a rewritten file could not keep that owner`);
  }
}

/**
 * The save landed in the old inode while it was being renamed away: the name now holds the
 * fix, the save is in the unlinked inode. Put the save back, unless the name has moved on.
 */
function putBackSave(opened: OpenedForFix, fixed: Temporary, saved: Buffer): never {
  const atName = fs.lstatSync(opened.path, { bigint: true, throwIfNoEntry: false });
  if (atName?.ino !== fixed.ino) throw new FixNotWrittenError(CHANGED_WHILE_FIXING);
  const restored = writeTemporary(opened, saved);
  try {
    fs.renameSync(restored.path, opened.path);
  } catch (err) {
    fs.rmSync(restored.path, { force: true });
    throw err;
  }
  throw new FixNotWrittenError(CHANGED_WHILE_FIXING);
}

/**
 * Replaces the file `opened` was read from with `bytes`, or throws FixNotWrittenError
 * (the file is then as the user left it) or a file-system error (a full disk: the same).
 */
export function replaceFile(opened: OpenedForFix, bytes: Buffer, hooks: ReplaceHooks = {}): void {
  const refused = refusal(opened);
  if (refused) throw refused;
  // Seconds of analysis lie behind us: a save in that time is found before any writing.
  if (!stillAsRead(opened)) throw new FixNotWrittenError(CHANGED_WHILE_FIXING);
  const temporary = writeTemporary(opened, bytes);
  try {
    hooks.afterTemporaryWritten?.();
    if (!stillAsRead(opened)) throw new FixNotWrittenError(CHANGED_WHILE_FIXING);
    hooks.beforeRename?.();
    fs.renameSync(temporary.path, opened.path);
  } catch (err) {
    fs.rmSync(temporary.path, { force: true });
    throw err;
  }
  const after = contentOf(opened.fd);
  if (!after.equals(opened.bytes)) putBackSave(opened, temporary, after);
}
