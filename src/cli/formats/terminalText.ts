// Text the CLI prints that came from a file or a tool: finding messages quote source code,
// paths are whatever the file system holds, device names and tool messages are what
// nvidia-smi or Python said. Printed raw, `"\x1b]0;pwned\x07\x1b[2J"` in a source string
// would retitle and clear the terminal; a bidirectional override (U+202E) would reorder
// what a reviewer reads. Every text formatter passes such text through terminalText, which
// shows those characters as visible escapes (`\x1b`, `\u202e`) instead.
//
// JSON and SARIF are escaped by JSON.stringify for C0 only; terminalJson escapes the rest.

/**
 * C0 controls except tab, DEL, C1 controls (0x9b is CSI to a terminal) and the bidi
 * embedding, override and isolate controls (Trojan Source, CVE-2021-42574).
 */
const UNSAFE = /[\x00-\x08\x0a-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

const SHORT: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r' };

function hex(char: string, digits: number): string {
  return char.charCodeAt(0).toString(16).padStart(digits, '0');
}

/** `text` safe to print on one line of a terminal: control characters as visible escapes. */
export function terminalText(text: string): string {
  return text.replace(UNSAFE, (c) => SHORT[c] ?? (c.charCodeAt(0) < 0x100 ? `\\x${hex(c, 2)}` : `\\u${hex(c, 4)}`));
}

/** Lines, each made safe, as one text with a final line break. */
export function terminalLines(lines: readonly string[]): string {
  return `${lines.map(terminalText).join('\n')}\n`;
}

const UNSAFE_IN_JSON = /[\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

/**
 * JSON text with the characters JSON.stringify leaves raw (DEL, C1, bidi controls) written
 * as `\u` escapes: the same JSON value, safe on a terminal. They can only occur inside
 * strings (JSON's own syntax is ASCII), where `\u` escapes mean the same characters.
 */
export function terminalJson(json: string): string {
  return json.replace(UNSAFE_IN_JSON, (c) => `\\u${hex(c, 4)}`);
}
