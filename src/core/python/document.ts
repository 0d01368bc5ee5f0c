// A Python text with its syntax tree, re-parsed incrementally as the text changes.
import { lineStarts, offsetAt, positionAt } from './lines';
import { Edit } from 'web-tree-sitter';
import { parsePython, Tree } from './parser';
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

  get tree(): Tree {
    return this.currentTree;
  }

  /** Applies changes in order (as LSP sends them), telling tree-sitter what moved. */
  update(changes: readonly TextChange[]): void {
    let text = this.currentText;
    let tree: Tree | null = this.currentTree;
    for (const change of changes) {
      if (!change.range) {
        text = change.text;
        tree = null;
        continue;
      }
      const starts = lineStarts(text);
      const startIndex = offsetAt(starts, text, change.range.start);
      const oldEndIndex = offsetAt(starts, text, change.range.end);
      const next = text.slice(0, startIndex) + change.text + text.slice(oldEndIndex);
      const newEndIndex = startIndex + change.text.length;
      const newEnd = positionAt(lineStarts(next), newEndIndex);
      // LSP positions are tree-sitter points here: the parser sees lone \r as \n (parser.ts).
      tree?.edit(new Edit({
        startIndex,
        oldEndIndex,
        newEndIndex,
        startPosition: { row: change.range.start.line, column: change.range.start.character },
        oldEndPosition: { row: change.range.end.line, column: change.range.end.character },
        newEndPosition: { row: newEnd.line, column: newEnd.character },
      }));
      text = next;
    }
    const reparsed = parsePython(text, tree);
    this.currentTree.delete();
    this.currentTree = reparsed;
    this.currentText = text;
  }

  dispose(): void {
    this.currentTree.delete();
  }
}
