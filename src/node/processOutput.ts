// What the process runner and the worker fork do with a child's output: split it into lines,
// keep only its end, or keep it whole up to a byte cap. Shared by both, so that every child in
// the product frames and bounds its output the same way; it starts nothing itself.

/**
 * Whole lines from text that arrives in arbitrary pieces: no newline, no trailing \r, blank
 * lines skipped, a last line without a newline handed over at end(). A partial line longer
 * than maxLineChars (a runaway print) is dropped and reported, so one line cannot grow without
 * end in memory.
 */
export class LineSplitter {
  private pending = '';
  private closed = false;

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly maxLineChars = Infinity,
    private readonly onTooLong?: () => void,
  ) {}

  push(text: string): void {
    this.pending += text;
    let newline: number;
    // Checked per line: a caller that stops the process from onLine gets no further lines.
    while (!this.closed && (newline = this.pending.indexOf('\n')) >= 0) {
      const line = this.pending.slice(0, newline).replace(/\r$/, '');
      this.pending = this.pending.slice(newline + 1);
      if (line.trim() !== '') this.onLine(line);
    }
    if (!this.closed && this.pending.length > this.maxLineChars) {
      this.pending = '';
      this.onTooLong?.();
    }
  }

  /** The stream ended: its last line counts even without a newline. */
  end(): void {
    if (!this.closed && this.pending.trim() !== '') this.onLine(this.pending);
    this.close();
  }

  /** The process is being stopped: nothing more is handed over. */
  close(): void {
    this.closed = true;
    this.pending = '';
  }
}

/** The last `maxChars` of a text, for the message when a process fails. */
export class TextTail {
  text = '';

  constructor(private readonly maxChars: number) {}

  add(chunk: string): void {
    this.text = (this.text + chunk).slice(-this.maxChars);
  }
}

/** A stream's bytes up to a limit; past it the rest is dropped and the capture marked truncated. */
export class ByteCapture {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  truncated = false;

  constructor(private readonly limit: number) {}

  /** Returns false once the limit is passed. */
  add(chunk: Buffer): boolean {
    const room = this.limit - this.size;
    if (chunk.length > room) {
      if (room > 0) this.chunks.push(chunk.subarray(0, room));
      this.size = this.limit;
      this.truncated = true;
      return false;
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
    return true;
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}
