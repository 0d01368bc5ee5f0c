// File URIs as the paths cross-file analysis works with. Only `file:` documents have one:
// an untitled buffer or a virtual file system's document has no folder to import from.
import { fileURLToPath } from 'url';

export function documentPath(uri: string): string | undefined {
  if (!uri.startsWith('file:')) return undefined;
  try {
    return fileURLToPath(uri);
  } catch {
    // A malformed or foreign-host file URI: no path, so no project, never an error.
    return undefined;
  }
}
