// The `--stdio` transport, built here rather than by vscode-languageserver so that a broken
// stream ends the process: the library's own reader reports a malformed header as an error
// nobody hears, and the server would stay alive and silent for good, so the client's restart
// policy (which reacts to an exit) would never fire. Anything the reader cannot frame or
// decode ends the process with exit code 1 and one line on stderr; the client restarts the
// server and sends it every open document again.
import { constants } from 'buffer';
import { StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node';
import type { DataCallback, Disposable, MessageReader, MessageWriter } from 'vscode-jsonrpc/node';

/**
 * No message can be longer than the longest string V8 holds (its JSON is decoded into one):
 * a larger Content-Length is a broken header, and waiting for its body would buffer the
 * stream until memory runs out.
 */
export const MAX_MESSAGE_BYTES = constants.MAX_STRING_LENGTH;

export interface StdioTransportHooks {
  /** The stream is broken: say `reason` and end the process (the server passes brokenStream). */
  broken: (reason: string) => void;
  /** stdin ended: the client went away. */
  closed: () => void;
}

/**
 * vscode-jsonrpc keeps the Content-Length of the message it is reading in this field (-1
 * between messages); it does not check it for size or sign. Read after each chunk, so that a
 * huge length ends the server at once instead of when memory runs out.
 */
interface DeclaredLength {
  nextMessageLength?: unknown;
}

class CheckedStreamReader extends StreamMessageReader {
  constructor(private readonly input: NodeJS.ReadableStream, private readonly tooLong: (length: number) => void) {
    super(input, 'utf-8');
  }

  override listen(callback: DataCallback): Disposable {
    const listening = super.listen(callback);
    // Added after the reader's own listener, so it sees the header of each chunk it read.
    this.input.on('data', () => {
      const length = (this as unknown as DeclaredLength).nextMessageLength;
      if (typeof length === 'number' && length > MAX_MESSAGE_BYTES) this.tooLong(length);
    });
    return listening;
  }
}

export function stdioTransport(hooks: StdioTransportHooks): [MessageReader, MessageWriter] {
  const reader = new CheckedStreamReader(process.stdin, (length) =>
    hooks.broken(`the client sent Content-Length: ${length}, more than any message can hold (${MAX_MESSAGE_BYTES} bytes)`));
  reader.onError((error) => hooks.broken(`could not read the client's messages (${firstLine(error)})`));
  reader.onClose(() => hooks.closed());
  redirectConsoleToStderr();
  return [reader, new StreamMessageWriter(process.stdout, 'utf-8')];
}

/** Says why on stderr (the client shows it in the server's output) and exits non-zero, once. */
export function brokenStream(reason: string): never {
  process.stderr.write(`Device Doctor language server: ${reason}; exiting so that the client restarts it.\n`);
  process.exit(1);
}

/** The library's error messages may append the headers on further lines; one line is enough. */
function firstLine(error: Error): string {
  return error.message.split('\n')[0].trim() || error.name;
}

/** stdout carries the protocol: console output goes to stderr (the library does this for its own stdio transport). */
function redirectConsoleToStderr(): void {
  const toStderr = (...args: unknown[]): void => void process.stderr.write(`${args.map(String).join(' ')}\n`);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
}
