// Settings per resource, pulled from the client with workspace/configuration. Answers are
// cached per scope only until the next didChangeConfiguration, which clears everything.
import type { Connection } from 'vscode-languageserver';
import { SETTINGS_SECTION } from '../protocol/settings';
import { DEFAULT_SETTINGS, parseSettings, ServerSettings } from './settings';

export class SettingsProvider {
  private readonly byScope = new Map<string, Promise<ServerSettings>>();
  /** What a client without workspace/configuration pushed last (didChangeConfiguration). */
  private pushed: ServerSettings = { ...DEFAULT_SETTINGS };

  constructor(
    private readonly connection: Connection,
    private readonly canPull: () => boolean,
  ) {}

  /** `scopeUri` is a file's URI, or a notebook's for its cells. */
  get(scopeUri: string): Promise<ServerSettings> {
    if (!this.canPull()) return Promise.resolve(this.pushed);
    let settings = this.byScope.get(scopeUri);
    if (!settings) {
      settings = this.pull(scopeUri);
      this.byScope.set(scopeUri, settings);
    }
    return settings;
  }

  /** didChangeConfiguration: forget every answer; `pushedSection` is the push-model payload. */
  invalidate(pushedSection: unknown): void {
    this.byScope.clear();
    if (pushedSection !== undefined && pushedSection !== null) this.pushed = parseSettings(pushedSection);
  }

  forget(scopeUri: string): void {
    this.byScope.delete(scopeUri);
  }

  private async pull(scopeUri: string): Promise<ServerSettings> {
    try {
      const raw: unknown = await this.connection.workspace.getConfiguration({ scopeUri, section: SETTINGS_SECTION });
      return parseSettings(raw);
    } catch (error) {
      this.byScope.delete(scopeUri);
      this.connection.console.warn(`Could not read settings for ${scopeUri}; using defaults: ${String(error)}`);
      return { ...DEFAULT_SETTINGS };
    }
  }
}
