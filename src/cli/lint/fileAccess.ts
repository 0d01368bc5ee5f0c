// How `lint` opens the files it checks. Only regular files are read: a FIFO or a device
// (`lint /dev/zero`) would block or never end, so every open is non-blocking and the file
// is refused, unread, when fstat says it is anything else. --fix never follows a symbolic
// link to a file (the link may point anywhere, outside every path given: `lint --fix .` must
// not rewrite /etc/hosts through ./hosts.py), and keeps the file open until it is written,
// so that replaceFile.ts can tell whether someone saved it in between.
import * as fs from 'fs';

/** The reason --fix leaves a path alone, printed as `path: not fixed: <reason>`. */
export const SYMBOLIC_LINK = 'a symbolic link';

/** What a path is when it is not a regular file, for "not a regular file (a named pipe)". */
export function fileKind(stat: fs.Stats | fs.BigIntStats): string {
  if (stat.isDirectory()) return 'a folder';
  if (stat.isFIFO()) return 'a named pipe';
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  if (stat.isSocket()) return 'a socket';
  return 'not a file';
}

export function notRegularReason(stat: fs.Stats | fs.BigIntStats): string {
  return `not a regular file (${fileKind(stat)}); skipped`;
}

/** The path is not a regular file; nothing was read from it. */
export class NotRegularFileError extends Error {}

/**
 * Opens `file` for reading without blocking (opening a FIFO for reading waits for a writer)
 * and returns the descriptor once fstat says it is a regular file; closes it and throws
 * NotRegularFileError otherwise. `flags` adds O_NOFOLLOW for --fix.
 */
function openRegular(file: string, flags = 0): { fd: number; stat: fs.BigIntStats } {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0) | flags);
  try {
    const stat = fs.fstatSync(fd, { bigint: true });
    if (!stat.isFile()) throw new NotRegularFileError(notRegularReason(stat));
    return { fd, stat };
  } catch (err) {
    fs.closeSync(fd);
    throw err;
  }
}

/** The bytes of the regular file `file`, read through a symbolic link as `lint` always has. */
export function readRegularFile(file: string): Buffer {
  const { fd } = openRegular(file);
  try {
    return fs.readFileSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * A file opened for fixing: its bytes and fstat as read, and the descriptor, held open
 * until `close()` so that the write can compare the file with what was read.
 */
export interface OpenedForFix {
  path: string;
  fd: number;
  bytes: Buffer;
  stat: fs.BigIntStats;
}

/**
 * Opens `file` for fixing, or says why it must not be fixed. The link check is made by
 * the open itself (O_NOFOLLOW) where the platform has it, so a file swapped for a link
 * after an lstat is still refused. The caller closes `fd`.
 */
export function openForFix(file: string): OpenedForFix | { notFixed: string } {
  if (fs.lstatSync(file).isSymbolicLink()) return { notFixed: SYMBOLIC_LINK };
  let opened: { fd: number; stat: fs.BigIntStats };
  try {
    opened = openRegular(file, fs.constants.O_NOFOLLOW ?? 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOOP') return { notFixed: SYMBOLIC_LINK };
    throw err;
  }
  try {
    return { path: file, fd: opened.fd, stat: opened.stat, bytes: fs.readFileSync(opened.fd) };
  } catch (err) {
    fs.closeSync(opened.fd);
    throw err;
  }
}
