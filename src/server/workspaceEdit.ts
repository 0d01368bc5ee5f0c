// Located edits to an LSP WorkspaceEdit. With document versions the client refuses an
// edit computed for text that has changed since, instead of applying it in the wrong place.
import type { TextDocumentEdit, TextEdit, WorkspaceEdit } from 'vscode-languageserver';
import type { LocatedEdit } from './locatedFinding';

/** The version of an open document, or undefined when unknown. */
export type VersionLookup = (uri: string) => number | undefined;

function groupByUri(edits: readonly LocatedEdit[]): Map<string, TextEdit[]> {
  const groups = new Map<string, TextEdit[]>();
  for (const { uri, range, newText } of edits) {
    const group = groups.get(uri) ?? [];
    group.push({ range, newText });
    groups.set(uri, group);
  }
  return groups;
}

export function toWorkspaceEdit(edits: readonly LocatedEdit[], versionOf?: VersionLookup): WorkspaceEdit {
  const groups = groupByUri(edits);
  const versions = versionOf ? [...groups.keys()].map((uri) => versionOf(uri)) : [];
  if (versionOf && versions.every((v) => v !== undefined)) {
    const documentChanges: TextDocumentEdit[] = [...groups].map(([uri, textEdits], i) => ({
      textDocument: { uri, version: versions[i] as number },
      edits: textEdits,
    }));
    return { documentChanges };
  }
  return { changes: Object.fromEntries(groups) };
}
