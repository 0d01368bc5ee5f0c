// The few /proc and /etc files that say who a process is: /proc/<pid>/status (its name, parent
// and user), /proc/<pid>/cmdline (its arguments, NUL-separated), /etc/passwd (user names) and the
// first line of /proc/stat (CPU time, for host utilization). Pure: the worker reads the files.

export interface ProcStatus {
  name: string;
  ppid: number | null;
  /** The real user id. */
  uid: number | null;
}

/** `/proc/<pid>/status`: "Name:\tpython3", "PPid:\t1", "Uid:\t1000\t1000\t1000\t1000". */
export function parseProcStatus(text: string): ProcStatus {
  const fields = new Map<string, string>();
  for (const line of text.split('\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) fields.set(line.slice(0, colon), line.slice(colon + 1).trim());
  }
  const firstInteger = (raw: string | undefined): number | null => {
    const match = /^\d+/.exec(raw ?? '');
    return match ? Number(match[0]) : null;
  };
  return { name: fields.get('Name') ?? '', ppid: firstInteger(fields.get('PPid')), uid: firstInteger(fields.get('Uid')) };
}

/** `/proc/<pid>/cmdline`: arguments separated (and ended) by NUL; empty for a kernel thread or a zombie. */
export function parseCmdline(raw: string): string[] {
  const args = raw.split('\0');
  if (args[args.length - 1] === '') args.pop();
  return args;
}

/** Characters a terminal or a table would act on, shown as \xNN instead. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** One line a person can read: arguments with spaces quoted, control characters escaped, at most maxChars. */
export function formatCommandLine(args: readonly string[], maxChars = 400): string {
  const text = args
    .map((arg) => (arg === '' || /\s/.test(arg) ? `'${arg}'` : arg))
    .join(' ')
    .replace(CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  return text.length > maxChars ? `${text.slice(0, maxChars - 1)}…` : text;
}

/** `/etc/passwd`: user id → name (the first name for an id wins, as `ls -l` shows it). */
export function parsePasswd(text: string): Map<number, string> {
  const users = new Map<number, string>();
  for (const line of text.split('\n')) {
    const [name, , uid] = line.split(':');
    if (!name || uid === undefined || !/^\d+$/.test(uid) || line.startsWith('#')) continue;
    if (!users.has(Number(uid))) users.set(Number(uid), name);
  }
  return users;
}

/** Jiffies from the aggregate "cpu" line of /proc/stat. */
export interface CpuTimes {
  busy: number;
  total: number;
}

/** "cpu  user nice system idle iowait irq softirq steal guest guest_nice": idle and iowait are not busy; guest time is already in user. */
export function parseProcStatCpu(text: string): CpuTimes | null {
  const line = text.split('\n').find((l) => /^cpu\s/.test(l));
  if (!line) return null;
  const values = line.trim().split(/\s+/).slice(1, 9).map(Number);
  if (values.length < 4 || values.some((v) => !Number.isFinite(v) || v < 0)) return null;
  const total = values.reduce((a, b) => a + b, 0);
  const idle = values[3] + (values[4] ?? 0);
  return { busy: total - idle, total };
}

/** Busy share between two readings in percent (rounded), or null when no time passed or the counters went back. */
export function cpuUtilizationPercent(before: CpuTimes, after: CpuTimes): number | null {
  const total = after.total - before.total;
  const busy = after.busy - before.busy;
  if (total <= 0 || busy < 0) return null;
  return Math.round(Math.min(100, (busy / total) * 100));
}
