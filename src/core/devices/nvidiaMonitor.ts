// The one long-lived `nvidia-smi ... -lms <ms>` process prints a block of lines per
// interval, in chunks that may split a line anywhere; this turns chunks into samples.
import { integerOrNull, mibToBytes, numberOrNull } from './fields';

export const NVIDIA_MONITOR_FIELDS = 'index,memory.used,memory.total,utilization.gpu';

/** Arguments for the streaming monitor; nvidia-smi needs an interval of at least 1 ms. */
export function nvidiaMonitorArgs(intervalMs: number): string[] {
  const interval = Math.max(1, Math.round(intervalMs));
  return [`--query-gpu=${NVIDIA_MONITOR_FIELDS}`, '--format=csv,noheader,nounits', '-lms', String(interval)];
}

/** One GPU's line of one interval. `index` is nvidia-smi's index (map it to an accelerator id). */
export interface MemorySampleRow {
  index: number;
  usedBytes: number | null;
  totalBytes: number | null;
  utilizationPercent: number | null;
}

/** One line of the monitor's output, or null when it is not a sample (an error line, a blank). */
export function parseNvidiaMonitorLine(line: string): MemorySampleRow | null {
  const fields = line.split(',').map((field) => field.trim());
  if (fields.length !== 4) return null;
  const index = integerOrNull(fields[0]);
  if (index === null) return null;
  return {
    index,
    usedBytes: mibToBytes(numberOrNull(fields[1])),
    totalBytes: mibToBytes(numberOrNull(fields[2])),
    utilizationPercent: numberOrNull(fields[3]),
  };
}

/** A line longer than this is not nvidia-smi's: drop it rather than buffer forever. */
const MAX_PENDING_CHARS = 64 * 1024;

/** Complete lines in, samples out; a partial line waits for the rest of it. */
export class NvidiaMonitorParser {
  private pending = '';

  push(chunk: string): MemorySampleRow[] {
    const text = this.pending + chunk;
    const lastNewline = text.lastIndexOf('\n');
    if (lastNewline < 0) {
      this.pending = text.length > MAX_PENDING_CHARS ? '' : text;
      return [];
    }
    this.pending = text.slice(lastNewline + 1);
    return parseLines(text.slice(0, lastNewline));
  }

  /** The process ended: a last line without a newline still counts. */
  flush(): MemorySampleRow[] {
    const rest = this.pending;
    this.pending = '';
    return parseLines(rest);
  }
}

function parseLines(text: string): MemorySampleRow[] {
  return text
    .split('\n')
    .map((line) => parseNvidiaMonitorLine(line.replace(/\r$/, '')))
    .filter((row): row is MemorySampleRow => row !== null);
}

/** All lines of a recorded monitor output at once (tests, one-shot reads). */
export function parseNvidiaMonitorBlock(lines: string): MemorySampleRow[] {
  const parser = new NvidiaMonitorParser();
  return [...parser.push(lines), ...parser.flush()];
}
