// A Python text with its syntax tree, re-parsed incrementally as the text changes.
import { lineStarts, newEndOf, offsetAt, positionAt } from './lines';
import { deleteTree, editTree, isLiveTree, parsePython, Tree } from './parser';
import type { Range } from '../analysis/types';

export interface TextChange {
  /** Range in the text before this change; absent means "replace everything". */
  range?: Range;
  text: string;
}

export class ParsedDocument {
  private currentText: string;
  private currentTree: Tree;

  constructor(text: string) {
    this.currentText = text;
    this.currentTree = parsePython(text);
  }

  get text(): string {
    return this.currentText;
  }

  /**
   * The syntax tree of `text`. If the parser crashed and was reloaded since (parser.ts),
   * the old tree is dropped untouched and the text parsed again.
   */
  get tree(): Tree {
    if (!isLiveTree(this.currentTree)) this.currentTree = parsePython(this.currentText);
    return this.currentTree;
  }

  /**
   * Applies changes in order (as LSP sends them), telling tree-sitter what moved. Ranges
   * are taken as an editor takes them: positions past a line's end or the text's end are
   * clamped, and a range whose end comes before its start is read the other way round.
   */
  update(changes: readonly TextChange[]): void {
    let text = this.currentText;
    let tree: Tree | null = isLiveTree(this.currentTree) ? this.currentTree : null;
    for (const change of changes) {
      if (!change.range) {
        text = change.text;
        tree = null;
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
      if (tree) {
        editTree(tree, {
          startIndex,
          oldEndIndex,
          newEndIndex,
          startPosition: { row: startPosition.line, column: startPosition.character },
          oldEndPosition: { row: oldEndPosition.line, column: oldEndPosition.character },
          newEndPosition: { row: newEndPosition.line, column: newEndPosition.character },
        });
      }
      text = next;
    }
    const reparsed = parsePython(text, tree);
    deleteTree(this.currentTree);
    this.currentTree = reparsed;
    this.currentText = text;
  }

  dispose(): void {
    deleteTree(this.currentTree);
  }
}

