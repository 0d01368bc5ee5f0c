// Parsed project modules kept between analyses: a CLI run over a repository, or the editor's
// workspace, reads `models/common.py` once however many files import it. A module is kept
// while its text is the same; the least recently used go first past a budget of source
// bytes, since a plain tree takes some 20× its text in memory. A front end that says when
// an analysis begins (`beginAnalysis`) never has one analysis evict what it read itself: an
// analysis whose imports outgrow the budget keeps them all until the next begins, so that the
// next analysis of the same file (a keystroke) parses none of them again.
import type { Node } from '../python/pyNode';

/** types.ts's Range, by its shape: types.ts imports what imports this file. */
interface TextRange {
  start: { line: number; character: number };
  end: { line: number; character: number };
}

export interface KeptModule {
  /** The file's text as read: the module is kept while it is the same. */
  fileText: string;
  /** The unit's text: the file's, with statements that do not parse blanked (python/recovery.ts). */
  source: string;
  root: Node;
  lines: string[];
  eol: string;
  /** The statements blanked in `source` for their syntax errors (python/recovery.ts), in the file's positions. */
  skipped: readonly TextRange[];
}

const DEFAULT_BUDGET_BYTES = 4 * 1024 * 1024;

interface Entry {
  module: KeptModule;
  /** The analysis that last used it (0: no front end said). */
  analysis: number;
}

export class ModuleTrees {
  private readonly kept = new Map<string, Entry>();
  private bytes = 0;
  /** Counts beginAnalysis calls; 0 while none was made (nothing is protected then). */
  private analysis = 0;

  constructor(private readonly budgetBytes = DEFAULT_BUDGET_BYTES) {}

  /** An analysis begins: the modules it uses are not evicted before the next one begins. */
  beginAnalysis(): void {
    this.analysis++;
  }

  /** The module at `path` as read from exactly `source`, or undefined. */
  get(path: string, source: string): KeptModule | undefined {
    const found = this.kept.get(path);
    if (!found || found.module.fileText !== source) return undefined;
    // Map order is the eviction order: a use moves the module to the end.
    this.kept.delete(path);
    this.kept.set(path, found);
    found.analysis = this.analysis;
    return found.module;
  }

  put(path: string, module: KeptModule): void {
    const old = this.kept.get(path);
    if (old) {
      this.kept.delete(path);
      this.bytes -= old.module.fileText.length;
    }
    if (module.fileText.length > this.budgetBytes) return;
    this.kept.set(path, { module, analysis: this.analysis });
    this.bytes += module.fileText.length;
    for (const [p, entry] of this.kept) {
      // In use order: from the first one the running analysis used, all are its own.
      if (this.bytes <= this.budgetBytes || (this.analysis > 0 && entry.analysis === this.analysis)) break;
      this.kept.delete(p);
      this.bytes -= entry.module.fileText.length;
    }
  }

  get size(): number {
    return this.kept.size;
  }

  /** Source bytes of the kept modules. */
  get sourceBytes(): number {
    return this.bytes;
  }
}
