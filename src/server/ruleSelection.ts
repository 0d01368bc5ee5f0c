// Which rules run on a document: pyproject.toml's `[tool.device-doctor]` first, then the
// editor settings as one more layer on top (the same precedence as the CLI's --select and
// --ignore), then pyproject's per-file-ignores.
import * as path from 'path';
import { fileURLToPath } from 'url';
import type { RuleSelection } from '../core/analysis';
import { findProjectConfig, selectionForFile } from '../core/config';
import type { SelectionLayer } from '../core/config';
import type { ServerSettings } from './settings';

export interface DocumentSelection {
  selection: RuleSelection;
  /** Problems found in the pyproject.toml that applies, for the log. */
  problems: string[];
}

/** The file system path behind a `file:` URI; undefined for untitled and virtual documents. */
export function filePathOf(uri: string): string | undefined {
  if (!uri.startsWith('file:')) return undefined;
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}

export function settingsLayer(settings: Pick<ServerSettings, 'select' | 'ignore'>): SelectionLayer {
  const layer: SelectionLayer = {};
  if (settings.select.length > 0) layer.select = settings.select;
  if (settings.ignore.length > 0) layer.ignore = settings.ignore;
  return layer;
}

/** `uri` is the file's, or for a notebook the notebook's (per-file-ignores match its path). */
export function selectionForDocument(uri: string, settings: Pick<ServerSettings, 'select' | 'ignore'>): DocumentSelection {
  const filePath = filePathOf(uri);
  const found = filePath === undefined ? undefined : findProjectConfig(filePath);
  if (!found) {
    // No pyproject: settings alone, resolved the same way (paths do not matter without per-file-ignores).
    const anyPath = filePath ?? path.resolve('untitled.py');
    return { selection: selectionForFile({}, path.dirname(anyPath), anyPath, settingsLayer(settings)), problems: [] };
  }
  return {
    selection: selectionForFile(found.config, found.root, filePath as string, settingsLayer(settings)),
    problems: found.errors,
  };
}
