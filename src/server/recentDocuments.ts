// Which open documents an analysis worker keeps its state for (tree-sitter tree, plain tree,
// taped runs): the few analysed last, within a budget of text. That state is what makes the
// next analysis of a document being edited cheap, and it is large: a run cache holds the plain
// trees of the document and of every module it imported, some 100 bytes per character of the
// document (26-39 MB for 10,000 lines). Kept for every open document, 30 files of a real
// repository took the server to 800 MB. A document left out is parsed and analysed whole on its
// next analysis, as on opening; its findings are the same.

/** Documents kept at most: the one being edited and the few its edits re-analyse (importers, imports). */
export const KEPT_DOCUMENTS = 4;

/** Characters of text kept at most over those documents; the document analysed last is kept whatever its size. */
export const KEPT_CHARS = 300_000;

export class RecentDocuments {
  /** URI → its text's length, in the order of their last analysis, oldest first. */
  private readonly kept = new Map<string, number>();
  private chars = 0;

  constructor(private readonly maxDocuments = KEPT_DOCUMENTS, private readonly maxChars = KEPT_CHARS) {}

  /** `uri` is analysed now, with a text of `length` characters: returns the documents no longer kept, oldest first. */
  use(uri: string, length: number): string[] {
    this.forget(uri);
    this.kept.set(uri, length);
    this.chars += length;
    const dropped: string[] = [];
    for (const held of this.kept.keys()) {
      if (held === uri || (this.kept.size <= this.maxDocuments && this.chars <= this.maxChars)) break;
      this.forget(held);
      dropped.push(held);
    }
    return dropped;
  }

  has(uri: string): boolean {
    return this.kept.has(uri);
  }

  forget(uri: string): boolean {
    const length = this.kept.get(uri);
    if (length === undefined) return false;
    this.kept.delete(uri);
    this.chars -= length;
    return true;
  }

  clear(): void {
    this.kept.clear();
    this.chars = 0;
  }

  /** The kept documents with their text lengths, oldest first. */
  entries(): IterableIterator<[string, number]> {
    return this.kept.entries();
  }

  get size(): number {
    return this.kept.size;
  }
}
