// Small helpers shared by the tool parsers: every tool spells "unknown" its own way,
// and every byte count must end up an integer.

const MIB = 1024 * 1024;

/** nvidia-smi's, rocm-smi's and amd-smi's spellings of "no value here". */
const UNKNOWN_VALUE = /^(\[.*\]|N\/A.*|n\/a|none|unknown|not supported|)$/i;

/** A number from a tool's text field, or null for `[N/A]`, `[Not Supported]`, `N/A (Secondary die)`, "" or garbage. */
export function numberOrNull(raw: unknown): number | null {
  if (typeof raw === 'number') return Number.isFinite(raw) ? raw : null;
  if (typeof raw !== 'string') return null;
  const text = raw.trim();
  if (UNKNOWN_VALUE.test(text)) return null;
  const value = Number(text);
  return Number.isFinite(value) ? value : null;
}

/** A non-negative integer (an index, a pid), or null. */
export function integerOrNull(raw: unknown): number | null {
  const value = numberOrNull(raw);
  return value !== null && Number.isInteger(value) && value >= 0 ? value : null;
}

/** A text field, or null when the tool says it does not know. */
export function textOrNull(raw: unknown): string | null {
  if (typeof raw !== 'string') return null;
  const text = raw.trim();
  return UNKNOWN_VALUE.test(text) ? null : text;
}

export function mibToBytes(mib: number | null): number | null {
  return mib === null ? null : Math.round(mib * MIB);
}

export function bytesOrNull(raw: unknown): number | null {
  const value = numberOrNull(raw);
  return value === null || value < 0 ? null : Math.round(value);
}

/** Free memory from total and used when the tool does not report it. */
export function freeFrom(total: number | null, used: number | null): number | null {
  return total !== null && used !== null && total >= used ? total - used : null;
}

/** Lines of a tool's output without trailing CR, blank lines dropped. */
export function nonBlankLines(text: string): string[] {
  return text.split(/\r?\n/).map((line) => line.replace(/\r$/, '')).filter((line) => line.trim() !== '');
}

/** JSON.parse that answers undefined instead of throwing. */
export function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
