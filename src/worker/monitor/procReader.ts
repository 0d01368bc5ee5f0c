// Reads who a process is from /proc (its status and cmdline), following PPid up so the core can
// tell whether it descends from one of this window's processes, and user names from /etc/passwd.
// A pid that is not there (it exited, or lives in another container's PID namespace) is simply
// absent from the answer. The root paths are options so tests can use a fake tree.
import { promises as fsp } from 'fs';
import * as path from 'path';
import type { ProcEntry } from '../../core/devices/gpuProcesses';
import { parseCmdline, parsePasswd, parseProcStatus } from '../../core/devices/procFiles';

export const PROC_ROOT = '/proc';
export const PASSWD_PATH = '/etc/passwd';

/** A command line longer than this is cut before it is parsed: it is only shown. */
const MAX_CMDLINE_BYTES = 16 * 1024;
const MAX_ANCESTORS = 64;

async function readText(file: string, maxBytes = 64 * 1024): Promise<string | undefined> {
  try {
    const handle = await fsp.open(file, 'r');
    try {
      const buffer = Buffer.alloc(maxBytes);
      const { bytesRead } = await handle.read(buffer, 0, maxBytes, 0);
      return buffer.subarray(0, bytesRead).toString('utf8');
    } finally {
      await handle.close();
    }
  } catch {
    return undefined;
  }
}

export async function readProcEntry(procRoot: string, pid: number): Promise<ProcEntry | undefined> {
  const dir = path.join(procRoot, String(pid));
  const status = await readText(path.join(dir, 'status'));
  if (status === undefined) return undefined;
  const { name, ppid, uid } = parseProcStatus(status);
  const cmdline = await readText(path.join(dir, 'cmdline'), MAX_CMDLINE_BYTES);
  return { pid, ppid, uid, name, args: cmdline === undefined ? [] : parseCmdline(cmdline) };
}

/** The entries of `pids` and of every ancestor of theirs, up to pid 1. */
export async function readProcTree(procRoot: string, pids: readonly number[]): Promise<Map<number, ProcEntry>> {
  const entries = new Map<number, ProcEntry>();
  let wanted = [...new Set(pids)];
  for (let depth = 0; wanted.length > 0 && depth < MAX_ANCESTORS; depth++) {
    const found = await Promise.all(wanted.map((pid) => readProcEntry(procRoot, pid)));
    const parents: number[] = [];
    for (const entry of found) {
      if (!entry) continue;
      entries.set(entry.pid, entry);
      if (entry.ppid !== null && entry.ppid > 1 && !entries.has(entry.ppid)) parents.push(entry.ppid);
    }
    wanted = [...new Set(parents)];
  }
  return entries;
}

export async function readUsers(passwdPath: string): Promise<Map<number, string>> {
  const text = await readText(passwdPath, 1024 * 1024);
  return text === undefined ? new Map() : parsePasswd(text);
}

/** The aggregate CPU line of /proc/stat, for host utilization. */
export async function readProcStat(procRoot: string): Promise<string | undefined> {
  return readText(path.join(procRoot, 'stat'), 4096);
}
