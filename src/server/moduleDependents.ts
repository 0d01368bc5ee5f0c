// Which open documents depend on which files: each analysis records every file it looked for
// while following imports (found or not: creating a missing module changes the result too),
// and an edit, a save or a close of one of those files re-analyses the documents that read it.
export class ModuleDependents {
  /** Document URI → the files its last analysis looked for. */
  private readonly reads = new Map<string, Set<string>>();
  /** File path → documents whose last analysis looked for it. */
  private readonly readers = new Map<string, Set<string>>();

  /** `uri`'s latest analysis looked for `files`; what an earlier one looked for is forgotten. */
  record(uri: string, files: readonly string[]): void {
    this.forget(uri);
    if (files.length === 0) return;
    const set = new Set(files);
    this.reads.set(uri, set);
    for (const file of set) {
      let readers = this.readers.get(file);
      if (!readers) this.readers.set(file, (readers = new Set()));
      readers.add(uri);
    }
  }

  /** Whether an analysis of `uri` was recorded since it was opened. */
  has(uri: string): boolean {
    return this.reads.has(uri);
  }

  /** The document was closed: it depends on nothing any more. */
  forget(uri: string): void {
    const files = this.reads.get(uri);
    if (!files) return;
    this.reads.delete(uri);
    for (const file of files) {
      const readers = this.readers.get(file);
      readers?.delete(uri);
      if (readers?.size === 0) this.readers.delete(file);
    }
  }

  /** Documents whose last analysis looked for any of `files`, each once, never `except` itself. */
  dependentsOf(files: readonly string[], except?: string): string[] {
    const found = new Set<string>();
    for (const file of files) for (const uri of this.readers.get(file) ?? []) if (uri !== except) found.add(uri);
    return [...found];
  }

  /** How many files some document depends on (for tests: a closed workspace holds nothing). */
  get size(): number {
    return this.readers.size;
  }
}
