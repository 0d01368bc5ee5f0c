// Size limits checked before a text reaches the parser. Tree-sitter's wasm has a 2 GB heap:
// about 20 MB of dense input (`(((…` or `1+1+…`) exhausts it and aborts the module, and long
// before that a dense file costs seconds per analysis. The language server and the CLI both
// ask `sizeLimitProblem` first and skip a text it objects to.

/**
 * The editor's deviceDoctor.maxFileLines default. Ordinary code up to this length is
 * analysed: 50,000 lines of public PyTorch code took 3.0-3.5 s on a 2-core machine.
 */
export const DEFAULT_MAX_LINES = 50_000;

/**
 * The editor's deviceDoctor.maxFileBytes default and the CLI's --max-bytes default (2 MiB):
 * 50,000 lines of real PyTorch code are 1.8 MB (37 bytes a line), so they pass; dense code
 * of that size costs more (a 2 MiB one-line sum: parse 1.5-2.4 s, analysis 9-12 s), and
 * the parser's wasm runs out of memory at about 20 MB.
 */
export const DEFAULT_MAX_BYTES = 2 * 1024 * 1024;

export interface SizeLimits {
  /** More lines than this are refused; 0 or absent: no limit. */
  maxLines?: number;
  /** More UTF-8 bytes than this are refused; 0 or absent: no limit. */
  maxBytes?: number;
}

export interface SizeLimitProblem {
  /** Which limit the text is over (lines are checked first). */
  limit: 'maxLines' | 'maxBytes';
  /** The text's lines or bytes. */
  actual: number;
  /** The limit it is over. */
  max: number;
  /** E.g. "10,001 lines, more than the limit of 10,000". */
  message: string;
}

/**
 * Lines as an editor shows them, without the empty one after a final line break:
 * `\n`, `\r\n` and a lone `\r` each end a line (lines.ts), so "a\nb\n" and "a\nb" are both
 * 2 lines and "" is 0.
 */
export function countLines(text: string): number {
  let breaks = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 10 /* \n */) breaks++;
    else if (ch === 13 /* \r */) {
      breaks++;
      if (text.charCodeAt(i + 1) === 10) i++;
    }
  }
  if (text.length === 0) return 0;
  const last = text.charCodeAt(text.length - 1);
  return last === 10 || last === 13 ? breaks : breaks + 1;
}

/** The length of `text` in UTF-8, as it is on disk; a lone surrogate counts as U+FFFD (3 bytes), as Node encodes it. */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

/**
 * Why `text` must not be parsed, or undefined when it is within `limits`. A notebook passes
 * its code cells: their lines and bytes are added up. Linear in the text and allocation-free,
 * so it can run before every analysis.
 */
export function sizeLimitProblem(text: string | readonly string[], limits: SizeLimits): SizeLimitProblem | undefined {
  const parts = typeof text === 'string' ? [text] : text;
  const maxLines = limits.maxLines ?? 0;
  const maxBytes = limits.maxBytes ?? 0;
  if (maxLines > 0) {
    let lines = 0;
    for (const part of parts) lines += countLines(part);
    if (lines > maxLines) return problem('maxLines', lines, maxLines, 'lines');
  }
  if (maxBytes > 0) {
    let units = 0;
    for (const part of parts) units += part.length;
    // A UTF-16 unit is at most 3 bytes: most texts are within the limit without counting.
    if (units * 3 > maxBytes) {
      let bytes = 0;
      for (const part of parts) bytes += utf8Length(part);
      if (bytes > maxBytes) return problem('maxBytes', bytes, maxBytes, 'bytes');
    }
  }
  return undefined;
}

function problem(limit: SizeLimitProblem['limit'], actual: number, max: number, unit: string): SizeLimitProblem {
  return { limit, actual, max, message: `${formatCount(actual)} ${unit}, more than the limit of ${formatCount(max)}` };
}
