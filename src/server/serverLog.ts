// The server's log, shown in the client's "Device Doctor" output channel. Warnings that
// would repeat on every keystroke (a file too large, a broken pyproject.toml) are said once.
import type { RemoteConsole } from 'vscode-languageserver';

export class ServerLog {
  private readonly said = new Set<string>();

  constructor(private readonly console: RemoteConsole) {}

  /** Hidden unless the user raises the output's log level: per-analysis details (modules resolved). */
  debug(message: string): void {
    this.console.debug(message);
  }

  info(message: string): void {
    this.console.info(message);
  }

  warn(message: string): void {
    this.console.warn(message);
  }

  /** Logs `message` unless the same `key` was already warned about since it was last forgotten. */
  warnOnce(key: string, message: string): void {
    if (this.said.has(key)) return;
    this.said.add(key);
    this.console.warn(message);
  }

  /** Allows warnOnce(key) to speak again (the file was closed, the config changed). */
  forget(keyPrefix: string): void {
    for (const key of [...this.said]) if (key.startsWith(keyPrefix)) this.said.delete(key);
  }

  /** The stack goes to the log only, for bug reports; users never see it in a popup. */
  error(context: string, error: unknown): void {
    const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
    this.console.error(`${context}: ${detail}`);
  }
}
