// The linter's cross-file bookkeeping: the project each document is analysed in (its path,
// the workspace folders, the open documents whose texts override the disk) and, from what
// each analysis read, which open documents to analyse again when a file changes.
import type { TextDocuments } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { ModuleUse } from './analysisMessages';
import { documentPath } from './documentPath';
import { ModuleDependents } from './moduleDependents';
import type { OpenText, ProjectRequest } from './projectRequest';
import type { ServerLog } from './serverLog';
import type { ServerSettings } from './settings';

export interface DocumentProjectsDeps {
  documents: Pick<TextDocuments<TextDocument>, 'all'>;
  log: ServerLog;
  /** The workspace folders as paths. */
  workspaceRoots: () => readonly string[];
  /** Whether `uri` is still open (a result for a closed document is not recorded). */
  isOpen: (uri: string) => boolean;
  languageId: string;
  /**
   * A document's first analysis read these open documents (it imports them): they now have
   * an importer open, whose code their analysis runs, so they are analysed again.
   */
  importedByNewDocument?: (uris: readonly string[]) => void;
}

export class DocumentProjects {
  private readonly dependents = new ModuleDependents();

  constructor(private readonly deps: DocumentProjectsDeps) {}

  /** The document's project; none for a document without a path (untitled, virtual). */
  requestFor(uri: string, settings: ServerSettings, version?: number): ProjectRequest | undefined {
    const path = documentPath(uri);
    if (!path) return undefined;
    return {
      path,
      version,
      roots: [...this.deps.workspaceRoots()],
      maxModuleBytes: settings.maxFileBytes,
      openDocuments: () => this.openTexts(),
      resolved: (use) => this.resolved(uri, use),
    };
  }

  /** Open documents whose last analysis read the file of `uri` (not `uri` itself). */
  dependentsOf(uri: string): string[] {
    const path = documentPath(uri);
    return path ? this.dependents.dependentsOf([path], uri) : [];
  }

  /** Open documents whose last analysis read any of `paths`. */
  dependentsOfFiles(paths: readonly string[]): string[] {
    return this.dependents.dependentsOf(paths);
  }

  /** The document was closed. */
  forget(uri: string): void {
    this.dependents.forget(uri);
  }

  /** How many files some open document depends on (for tests). */
  get size(): number {
    return this.dependents.size;
  }

  /** Open Python documents with a path: their texts override the disk. */
  private openTexts(): OpenText[] {
    const texts: OpenText[] = [];
    for (const document of this.deps.documents.all()) {
      const path = document.languageId === this.deps.languageId ? documentPath(document.uri) : undefined;
      if (path) texts.push({ path, version: document.version, text: () => document.getText() });
    }
    return texts;
  }

  private resolved(uri: string, use: ModuleUse): void {
    if (!this.deps.isOpen(uri)) return;
    const first = !this.dependents.has(uri);
    this.dependents.record(uri, [...use.found, ...use.missing]);
    if (first && use.found.length > 0 && this.deps.importedByNewDocument) {
      const read = new Set(use.found);
      const imported = this.deps.documents.all()
        .filter((d) => d.uri !== uri && d.languageId === this.deps.languageId && read.has(documentPath(d.uri) ?? ''))
        .map((d) => d.uri);
      if (imported.length > 0) this.deps.importedByNewDocument(imported);
    }
    // Debug level: one line per analysis would drown the output at info.
    if (use.found.length > 0) this.deps.log.debug(`${uri}: ${use.found.length} module file${use.found.length === 1 ? '' : 's'} resolved in ${use.ms} ms`);
  }
}
