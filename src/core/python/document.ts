// A Python text with its syntax tree, re-parsed incrementally as the text changes.
import { lineStarts, newEndOf, offsetAt, positionAt } from './lines';
import { deleteTree, editTree, isLiveTree, parsePython, Tree } from './parser';
import type { Range } from '../analysis/types';
import type { SpliceEdit } from './pyNode';

export interface TextChange {
  /** Range in the text before this change; absent means "replace everything". */
  range?: Range;
  text: string;
}

export class ParsedDocument {
  private currentText: string;
  private currentTree: Tree;
  /** Edits were applied to the text (and told to the tree) since its last parse. */
  private parsePending = false;
  /** The tree may serve as the old tree of that parse (it was told every edit). */
  private treeReusable = true;

  constructor(text: string) {
    this.currentText = text;
    this.currentTree = parsePython(text);
  }

  get text(): string {
    return this.currentText;
  }

  /**
   * The syntax tree of `text`, parsed when first asked after an update (incrementally, from the
   * tree told every edit). If the parser crashed and was reloaded since (parser.ts), the old
   * tree is dropped untouched and the text parsed again.
   */
  get tree(): Tree {
    if (this.parsePending || !isLiveTree(this.currentTree)) {
      const old = this.treeReusable && isLiveTree(this.currentTree) ? this.currentTree : null;
      const reparsed = parsePython(this.currentText, old);
      deleteTree(this.currentTree);
      this.currentTree = reparsed;
      this.parsePending = false;
      this.treeReusable = true;
    }
    return this.currentTree;
  }

  /**
   * Applies changes in order (as LSP sends them), telling tree-sitter what moved; the parse waits
   * for `tree` (a caller that can do without one, KeptPlainTree.splice, never pays it). Returns
   * the changes as offset edits, each of the text before it. Ranges are taken as an editor takes
   * them: positions past a line's end or the text's end are clamped, and a range whose end comes
   * before its start is read the other way round.
   */
  update(changes: readonly TextChange[]): SpliceEdit[] {
    let text = this.currentText;
    const live = isLiveTree(this.currentTree);
    const edits: SpliceEdit[] = [];
    for (const change of changes) {
      if (!change.range) {
        edits.push({ start: 0, oldEnd: text.length, text: change.text });
        text = change.text;
        this.treeReusable = false;
        continue;
      }
      const starts = lineStarts(text);
      const a = offsetAt(starts, text, change.range.start);
      const b = offsetAt(starts, text, change.range.end);
      const startIndex = Math.min(a, b);
      const oldEndIndex = Math.max(a, b);
      const next = text.slice(0, startIndex) + change.text + text.slice(oldEndIndex);
      const newEndIndex = startIndex + change.text.length;
      // Points of the clamped offsets, never the client's raw ones. LSP positions are
      // tree-sitter points here: the parser sees lone \r as \n (parser.ts).
      const startPosition = positionAt(starts, startIndex);
      const oldEndPosition = positionAt(starts, oldEndIndex);
      const newEndPosition = newEndOf(next, starts, startPosition.line, newEndIndex);
      if (live && this.treeReusable) {
        editTree(this.currentTree, {
          startIndex,
          oldEndIndex,
          newEndIndex,
          startPosition: { row: startPosition.line, column: startPosition.character },
          oldEndPosition: { row: oldEndPosition.line, column: oldEndPosition.character },
          newEndPosition: { row: newEndPosition.line, column: newEndPosition.character },
        });
      }
      edits.push({ start: startIndex, oldEnd: oldEndIndex, text: change.text });
      text = next;
    }
    this.currentText = text;
    this.parsePending = true;
    return edits;
  }

  dispose(): void {
    deleteTree(this.currentTree);
  }
}

