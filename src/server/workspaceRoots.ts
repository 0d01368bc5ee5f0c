// The workspace folders as paths, from the initialize request and later folder changes:
// cross-file analysis searches them for imports after a file's own folder and package root.
import type { InitializeParams, WorkspaceFolder, WorkspaceFoldersChangeEvent } from 'vscode-languageserver';
import { documentPath } from './documentPath';

export class WorkspaceRoots {
  private folders: string[] = [];

  /** From `workspaceFolders`, else the deprecated `rootUri`/`rootPath` older clients send. */
  initialize(params: InitializeParams): void {
    const uris = params.workspaceFolders?.map((folder) => folder.uri) ?? (params.rootUri ? [params.rootUri] : []);
    this.folders = paths(uris);
    if (this.folders.length === 0 && params.rootPath) this.folders = [params.rootPath];
  }

  change(event: WorkspaceFoldersChangeEvent): void {
    const removed = new Set(paths(event.removed.map((folder: WorkspaceFolder) => folder.uri)));
    const kept = this.folders.filter((folder) => !removed.has(folder));
    this.folders = [...new Set([...kept, ...paths(event.added.map((folder) => folder.uri))])];
  }

  get paths(): readonly string[] {
    return this.folders;
  }
}

function paths(uris: readonly string[]): string[] {
  return uris.map(documentPath).filter((p): p is string => p !== undefined);
}
