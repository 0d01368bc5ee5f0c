// The syntax tree as plain JS objects, read from tree-sitter's tree in ONE cursor walk.
// Every property of a web-tree-sitter node is a call into wasm that allocates a fresh
// wrapper; reading a tree that way dominated analysis time (and its garbage). Here the
// walk reads each visible node's type id, field id and offsets once, keeps the named nodes
// (and the anonymous ones a field names, such as an operator); `hasError` is asked of
// tree-sitter only below a node that has one. Nothing reads wasm afterwards. Text is sliced from the parser's input string (the
// source with lone `\r` as `\n`, parser.ts' parserText: exactly what tree-sitter's
// `node.text` returns) and rows and columns are computed from offsets on first use.
import type { Point, Tree, TreeCursor } from 'web-tree-sitter';
import { parserText } from './parser';

const NO_CHILDREN: readonly Node[] = Object.freeze([]) as readonly Node[];

/** The parser's input string with its line starts, shared by the nodes of one tree. */
class SourceText {
  private lineStarts?: number[];

  constructor(readonly text: string) {}

  /** tree-sitter's point of an offset: rows end at `\n`, columns count UTF-16 units. */
  point(index: number): Point {
    const starts = (this.lineStarts ??= computeLineStarts(this.text));
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= index) lo = mid;
      else hi = mid - 1;
    }
    return { row: lo, column: index - starts[lo] };
  }
}

function computeLineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

export class Node {
  parent: Node | null;
  /** Named children, comments included (as tree-sitter reports them). */
  namedChildren: readonly Node[] = NO_CHILDREN;
  hasError = false;
  private fieldNames?: string[];
  private fieldNodes?: Node[];
  private cachedText?: string;
  private cachedStart?: Point;
  private cachedEnd?: Point;
  private cachedCode?: readonly Node[];
  /** The last rebase that moved this node (so a walk over named and field children moves each once). */
  private rebasedBy = 0;

  constructor(
    readonly id: number,
    readonly type: string,
    private start: number,
    private end: number,
    parent: Node | null,
    private source: SourceText,
  ) {
    this.parent = parent;
  }

  get startIndex(): number {
    return this.start;
  }

  get endIndex(): number {
    return this.end;
  }

  get text(): string {
    return (this.cachedText ??= this.source.text.slice(this.startIndex, this.endIndex));
  }

  get startPosition(): Point {
    return (this.cachedStart ??= this.source.point(this.startIndex));
  }

  get endPosition(): Point {
    return (this.cachedEnd ??= this.source.point(this.endIndex));
  }

  /** Named children without comments (tree-sitter keeps comments as named nodes). */
  get codeChildren(): readonly Node[] {
    if (this.cachedCode === undefined) {
      const named = this.namedChildren;
      this.cachedCode = named.some((c) => c.type === 'comment') ? named.filter((c) => c.type !== 'comment') : named;
    }
    return this.cachedCode;
  }

  get namedChildCount(): number {
    return this.namedChildren.length;
  }

  namedChild(index: number): Node | null {
    return this.namedChildren[index] ?? null;
  }

  /** The first child (named or not) with this field, as tree-sitter's childForFieldName. */
  childForFieldName(name: string): Node | null {
    const names = this.fieldNames;
    if (names) for (let i = 0; i < names.length; i++) if (names[i] === name) return this.fieldNodes![i];
    return null;
  }

  /**
   * @internal the reuse of an unchanged statement in a later text (NodeRegistry): moves this
   * subtree by `delta` characters into `source`. Text is unchanged; positions are recomputed.
   */
  rebase(delta: number, source: SourceText, walk: number): void {
    const stack: Node[] = [this];
    for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
      if (node.rebasedBy === walk) continue;
      node.rebasedBy = walk;
      node.start += delta;
      node.end += delta;
      node.source = source;
      node.cachedStart = undefined;
      node.cachedEnd = undefined;
      for (const c of node.namedChildren) stack.push(c);
      if (node.fieldNodes) for (const c of node.fieldNodes) stack.push(c);
    }
  }

  /** @internal the tree walk's: records a child. */
  adopt(child: Node, named: boolean, field: string | null): void {
    if (named) {
      if (this.namedChildren === NO_CHILDREN) this.namedChildren = [child];
      else (this.namedChildren as Node[]).push(child);
    }
    if (field !== null && this.childForFieldName(field) === null) {
      (this.fieldNames ??= []).push(field);
      (this.fieldNodes ??= []).push(child);
    }
  }
}

/**
 * Top-level statements of an earlier read of the same document, by type and text: a
 * statement whose text did not change parses to the same subtree (Python's grammar reads
 * a column-0 statement without its neighbours), so its plain nodes are taken over and
 * moved instead of read from wasm again. Those with a syntax error are never reused.
 */
class ReusableStatements {
  private readonly byText = new Map<string, Node[]>();

  constructor(previous: Node) {
    for (const statement of previous.namedChildren) {
      if (statement.hasError) continue;
      const key = statementKey(statement.type, statement.text);
      const list = this.byText.get(key);
      if (list) list.push(statement);
      else this.byText.set(key, [statement]);
    }
  }

  /** The earlier subtree of a statement with this type and text, once each. */
  take(type: string, text: string): Node | undefined {
    const list = this.byText.get(statementKey(type, text));
    return list && list.length > 0 ? list.shift() : undefined;
  }
}

function statementKey(type: string, text: string): string {
  return `${type}\u0000${text}`;
}

/**
 * Gives node ids unique across the trees of one analysis (a notebook's cells, imported
 * modules). Kept for a document between analyses (`reuse`), ids stay unique across them.
 */
export class NodeRegistry {
  private nextId = 0;
  private rebases = 0;

  /**
   * Reads `tree` (parsed from `source`) into plain nodes and returns its root. With
   * `previous`, the root this registry read from an earlier text of the same document,
   * unchanged top-level statements are taken from it (the earlier root is spent then).
   */
  root(tree: Tree, source: string, previous?: Node): Node {
    const reuse = previous?.type === 'module' ? new ReusableStatements(previous) : undefined;
    return this.read(tree, new SourceText(parserText(source)), reuse);
  }

  private read(tree: Tree, source: SourceText, reuse: ReusableStatements | undefined): Node {
    const language = tree.language;
    const types = language.types;
    const fields = language.fields;
    const namedByType = new Map<number, boolean>();
    // Without a syntax error anywhere no node has one, and none is asked.
    const checkErrors = tree.rootNode.hasError;
    const cursor = tree.walk();
    const rebase = ++this.rebases;
    try {
      const typeOf = (typeId: number): string => types[typeId] || 'ERROR';
      const isNamed = (c: TreeCursor, typeId: number): boolean => {
        let named = namedByType.get(typeId);
        if (named === undefined) namedByType.set(typeId, (named = c.nodeIsNamed));
        return named;
      };
      const rootType = cursor.nodeTypeId;
      const root = new Node(this.nextId++, typeOf(rootType), cursor.startIndex, cursor.endIndex, null, source);
      root.hasError = checkErrors;
      const stack: Node[] = [];
      let node: Node | null = root;
      for (;;) {
        if (node !== null && cursor.gotoFirstChild()) {
          stack.push(node);
        } else {
          // Done with this node: on to its next sibling, or up until an ancestor has one.
          for (;;) {
            if (stack.length === 0) return root;
            if (cursor.gotoNextSibling()) break;
            cursor.gotoParent();
            stack.pop();
          }
        }
        // The cursor is on a child of the top of the stack.
        const parent = stack[stack.length - 1];
        const typeId = cursor.nodeTypeId;
        // tree-sitter's childForFieldName finds no field in an ERROR node; its cursor may name one.
        const fieldId = parent.type === 'ERROR' ? 0 : cursor.currentFieldId;
        const named = isNamed(cursor, typeId);
        if (named || fieldId !== 0) {
          const start = cursor.startIndex;
          const end = cursor.endIndex;
          const type = typeOf(typeId);
          const earlier = parent === root && named && reuse !== undefined && !(checkErrors && cursor.currentNode.hasError)
            ? reuse.take(type, source.text.slice(start, end)) : undefined;
          if (earlier) {
            // Its subtree is complete: take it over, moved to where it is now (every node of a
            // root reads the root's text, so even one that did not move is rebased), and do not descend.
            earlier.parent = root;
            earlier.rebase(start - earlier.startIndex, source, rebase);
            root.adopt(earlier, true, null);
            node = null;
            continue;
          }
          node = new Node(this.nextId++, type, start, end, parent, source);
          parent.adopt(node, named, fieldId !== 0 ? fields[fieldId] ?? null : null);
          // Only below a node with an error can there be one; tree-sitter's own answer counts
          // what no walk sees (a MISSING hidden token, such as the newline between statements
          // that recovery ran together).
          if (parent.hasError) node.hasError = cursor.currentNode.hasError;
        } else {
          node = null; // a token nobody reads (punctuation, keywords)
        }
      }
    } finally {
      cursor.delete();
    }
  }
}

/**
 * One document's plain tree kept between its analyses (the language server keeps one per
 * open file): each read re-reads from wasm only the top-level statements an edit changed.
 */
export class KeptPlainTree {
  readonly registry = new NodeRegistry();
  private last?: Node;

  read(tree: Tree, source: string): Node {
    const root = this.registry.root(tree, source, this.last);
    this.last = root;
    return root;
  }
}
