// deviceDoctor.pythonPath as a workspace's own files write it. In Restricted Mode VS Code hides
// the workspace values of a restricted setting from the configuration API (package.json lists
// deviceDoctor.pythonPath in restrictedConfigurations), so Choose Interpreter could not list the
// interpreter a workspace names as "not probed: untrusted", as the docs promise (issue 28 item
// 11). The files are read as text and parsed as JSONC, as VS Code parses them; nothing they name
// is run here.
import { parse, type ParseError } from 'jsonc-parser';

const KEY = 'deviceDoctor.pythonPath';

/** Which file: a folder's `.vscode/settings.json`, or a `.code-workspace` file (its "settings" object). */
export type SettingsFileKind = 'folderSettings' | 'workspaceFile';

/** The non-empty pythonPath the file sets, or undefined (none, not a string, or not a JSON object). */
export function pythonPathInSettingsFile(text: string, kind: SettingsFileKind): string | undefined {
  const errors: ParseError[] = [];
  const root: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  const settings = kind === 'workspaceFile' ? objectOr(root)?.settings : root;
  const value = objectOr(settings)?.[KEY];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function objectOr(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : undefined;
}
