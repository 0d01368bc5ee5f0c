// Where the CLI writes. Commands receive this instead of touching `process`, so
// tests run them in-process and read what they printed.

export interface CliIo {
  /** The folder paths are resolved against and shown relative to. */
  cwd: string;
  stdout(text: string): void;
  stderr(text: string): void;
  /** Colour the text output: stdout is a terminal and NO_COLOR is unset. */
  color: boolean;
}

/** The real process: colour only on a terminal, and never when NO_COLOR is set (no-color.org). */
export function processIo(): CliIo {
  const noColor = process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== '';
  return {
    cwd: process.cwd(),
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(text),
    color: process.stdout.isTTY === true && !noColor,
  };
}

/** An in-memory CliIo for tests and for callers that want the output as strings. */
export function memoryIo(cwd: string, color = false): CliIo & { out: string; err: string } {
  const io = {
    cwd,
    color,
    out: '',
    err: '',
    stdout(text: string) {
      io.out += text;
    },
    stderr(text: string) {
      io.err += text;
    },
  };
  return io;
}
