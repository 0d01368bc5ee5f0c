// Reading and writing a .py file's text: UTF-8 (PEP 3120), with its byte-order mark
// kept if it had one. Anything else (binary data, another encoding) is refused with a reason.

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

export interface PythonText {
  text: string;
  /** Written back on --fix so the bytes stay as the author had them. */
  hasBom: boolean;
}

export class UnreadableFileError extends Error {}

export function decodePythonSource(bytes: Buffer): PythonText {
  const hasBom = bytes.subarray(0, 3).equals(BOM);
  const body = hasBom ? bytes.subarray(3) : bytes;
  // CPython refuses source with NUL bytes; it is a binary file with a .py name.
  if (body.includes(0)) throw new UnreadableFileError('binary file (contains NUL bytes), not Python source');
  try {
    return { text: new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(body), hasBom };
  } catch {
    throw new UnreadableFileError('not valid UTF-8 (only UTF-8 source files are supported)');
  }
}

export function encodePythonSource(source: PythonText): Buffer {
  const body = Buffer.from(source.text, 'utf8');
  return source.hasBom ? Buffer.concat([BOM, body]) : body;
}
