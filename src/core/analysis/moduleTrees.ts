// Parsed project modules kept between analyses: a CLI run over a repository, or the editor's
// workspace, reads `models/common.py` once however many files import it. A module is kept
// while its text is the same; the least recently used go first past a budget of source
// bytes, since a plain tree takes some 40× its text in memory.
import type { Node } from '../python/pyNode';

export interface KeptModule {
  /** The file's text as read: the module is kept while it is the same. */
  fileText: string;
  /** The unit's text: the file's, with statements that do not parse blanked (python/recovery.ts). */
  source: string;
  root: Node;
  lines: string[];
  eol: string;
}

const DEFAULT_BUDGET_BYTES = 4 * 1024 * 1024;

export class ModuleTrees {
  private readonly kept = new Map<string, KeptModule>();
  private bytes = 0;

  constructor(private readonly budgetBytes = DEFAULT_BUDGET_BYTES) {}

  /** The module at `path` as read from exactly `source`, or undefined. */
  get(path: string, source: string): KeptModule | undefined {
    const found = this.kept.get(path);
    if (!found || found.fileText !== source) return undefined;
    // Map order is the eviction order: a use moves the module to the end.
    this.kept.delete(path);
    this.kept.set(path, found);
    return found;
  }

  put(path: string, module: KeptModule): void {
    const old = this.kept.get(path);
    if (old) {
      this.kept.delete(path);
      this.bytes -= old.fileText.length;
    }
    if (module.fileText.length > this.budgetBytes) return;
    this.kept.set(path, module);
    this.bytes += module.fileText.length;
    for (const [p, m] of this.kept) {
      if (this.bytes <= this.budgetBytes) break;
      this.kept.delete(p);
      this.bytes -= m.fileText.length;
    }
  }

  get size(): number {
    return this.kept.size;
  }
}
