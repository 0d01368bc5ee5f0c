// Whether applying a fix would leave Python source that parses worse than before. A fix
// may only move text around an existing syntax error, never add one: the CLI refuses to
// write such a fix and the language server does not offer it. Tree-sitter is
// error-tolerant, so "parses worse" is measured: source that parsed cleanly must still
// parse cleanly, and source that already had errors must not gain more ERROR or MISSING nodes.
import { isParserReady, parsePython, type Tree } from './parser';

/** The syntax errors in `source`: ERROR and MISSING nodes (0 for clean source). */
export function syntaxErrorCount(source: string): number {
  const tree = parsePython(source);
  try {
    return countErrors(tree);
  } finally {
    tree.delete();
  }
}

function countErrors(tree: Tree): number {
  if (!tree.rootNode.hasError) return 0;
  let count = 0;
  const cursor = tree.walk();
  try {
    // Depth-first over every node, without recursion (deeply nested code must not overflow).
    for (;;) {
      const node = cursor.currentNode;
      if (node.isError || node.isMissing) count++;
      // Only subtrees that contain an error are worth entering.
      if (node.hasError && cursor.gotoFirstChild()) continue;
      while (!cursor.gotoNextSibling()) {
        if (!cursor.gotoParent()) return count;
      }
    }
  } finally {
    cursor.delete();
  }
}

/**
 * Remembers each text's error count, so that one original checked against many candidate
 * fixes is parsed once. Without a loaded parser nothing can be judged, and nothing is refused.
 */
export class SyntaxCheck {
  private readonly counts = new Map<string, number>();

  errorsIn(source: string): number {
    let count = this.counts.get(source);
    if (count === undefined) {
      count = syntaxErrorCount(source);
      this.counts.set(source, count);
    }
    return count;
  }

  /**
   * True when `after` has more syntax errors than `before` (any error, when `before` has
   * none). A parse that fails (the parser crashed on the text) proves nothing safe, so it
   * counts as adding an error: the fix is refused rather than written unchecked.
   */
  addsSyntaxError(before: string, after: string): boolean {
    if (before === after || !isParserReady()) return false;
    try {
      return this.errorsIn(after) > this.errorsIn(before);
    } catch {
      return true;
    }
  }
}

/** False until the parser is loaded: until then no fix can be judged (and none is refused). */
export function canCheckSyntax(): boolean {
  return isParserReady();
}

/** One-off form of SyntaxCheck.addsSyntaxError. */
export function addsSyntaxError(before: string, after: string): boolean {
  return new SyntaxCheck().addsSyntaxError(before, after);
}
