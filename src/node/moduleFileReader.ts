// Reads the project's own Python modules for cross-file analysis (core/analysis/project.ts).
// The analyzer calls this synchronously for every import of a local module, so it must never
// throw: a missing, unreadable, binary or oversized file is simply "no such module". Texts are
// cached; the language server revalidates each one by (mtimeMs, size) so that an edit on disk
// is seen, the CLI reads each file once per run.
import * as fs from 'fs';
import * as path from 'path';

interface CachedFile {
  mtimeMs: number;
  size: number;
  /** Undefined: the file exists but is not readable as Python source. */
  text: string | undefined;
}

export interface ModuleFileReaderOptions {
  /** Stat each cached file again before it is used (the server), or trust the cache (a CLI run). */
  revalidate: boolean;
}

const BOM = '\uFEFF';

/** UTF-8 source as CPython accepts it; undefined for binary data or another encoding. */
function decodeSource(bytes: Buffer): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
    return text.startsWith(BOM) ? text.slice(1) : text;
  } catch {
    return undefined;
  }
}

export class ModuleFileReader {
  private readonly cache = new Map<string, CachedFile | null>();
  /** How many files were read from disk (not answered from the cache); for tests and logs. */
  reads = 0;

  constructor(private readonly options: ModuleFileReaderOptions) {}

  /**
   * The text of the `.py` file (or notebook, whose imports make it an importer) at `file`
   * (absolute), or undefined: another name, missing, a folder, unreadable, not UTF-8, or
   * more than `maxBytes` bytes (0 or absent: no limit).
   */
  read(file: string, maxBytes?: number): string | undefined {
    const extension = path.extname(file);
    if (extension !== '.py' && extension !== '.ipynb') return undefined;
    const cached = this.cache.get(file);
    if (cached !== undefined && !this.options.revalidate) return cached ? this.withinLimit(cached, maxBytes) : undefined;
    const stat = this.stat(file);
    if (!stat) {
      this.cache.set(file, null);
      return undefined;
    }
    if (cached && cached.mtimeMs === stat.mtimeMs && cached.size === stat.size) return this.withinLimit(cached, maxBytes);
    // Too large now: not read at all (a generated 50 MB file must not be loaded for one import).
    if (maxBytes && stat.size > maxBytes) return undefined;
    const entry: CachedFile = { mtimeMs: stat.mtimeMs, size: stat.size, text: this.readText(file) };
    this.cache.set(file, entry);
    return entry.text;
  }

  /** Drops what is known of `file` (it changed on disk); the next read goes to the disk. */
  forget(file: string): void {
    this.cache.delete(file);
  }

  clear(): void {
    this.cache.clear();
  }

  private withinLimit(entry: CachedFile, maxBytes: number | undefined): string | undefined {
    return maxBytes && entry.size > maxBytes ? undefined : entry.text;
  }

  private stat(file: string): fs.Stats | undefined {
    try {
      const stat = fs.statSync(file, { throwIfNoEntry: false });
      return stat?.isFile() ? stat : undefined;
    } catch {
      return undefined;
    }
  }

  private readText(file: string): string | undefined {
    try {
      this.reads++;
      return decodeSource(fs.readFileSync(file));
    } catch {
      return undefined;
    }
  }
}
