// The syntax tree as plain JS objects, read from tree-sitter's tree in ONE cursor walk.
// Every property of a web-tree-sitter node is a call into wasm that allocates a fresh
// wrapper; reading a tree that way dominated analysis time (and its garbage). Here the
// walk reads each visible node's type id, field id and offsets once, keeps the named nodes
// (and the anonymous ones a field names, such as an operator); `hasError` is asked of
// tree-sitter only below a node that has one. Nothing reads wasm afterwards. Text is sliced from the parser's input string (the
// source with lone `\r` as `\n`, parser.ts' parserText: exactly what tree-sitter's
// `node.text` returns) and rows and columns are computed from offsets on first use.
import type { Point, Tree, TreeCursor } from 'web-tree-sitter';
import { parsePython, parserText } from './parser';

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

/** A point relative to its placement's origin: rows after the origin's; on the origin's row, columns after its column. */
interface RelativePoint {
  row: number;
  column: number;
}

/**
 * Where one top-level statement's subtree lies in the current text (the root has its own).
 * Its nodes keep offsets relative to it, so that a statement taken over into a later text of
 * the document moves by one assignment, not a walk over its nodes: an edit near the top of a
 * large file would otherwise touch every node below it, on every keystroke.
 */
class Placement {
  private origin?: Point;

  constructor(public offset: number, public source: SourceText) {}

  move(offset: number, source: SourceText): void {
    this.offset = offset;
    this.source = source;
    this.origin = undefined;
  }

  get originPoint(): Point {
    return (this.origin ??= this.source.point(this.offset));
  }

  /** The point of an offset relative to this placement, as it stays however the statement moves (its text does not change). */
  relative(relativeOffset: number): RelativePoint {
    const origin = this.originPoint;
    const p = this.source.point(this.offset + relativeOffset);
    return p.row === origin.row ? { row: 0, column: p.column - origin.column } : { row: p.row - origin.row, column: p.column };
  }

  absolute(r: RelativePoint): Point {
    const origin = this.originPoint;
    return r.row === 0 ? { row: origin.row, column: origin.column + r.column } : { row: origin.row + r.row, column: r.column };
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
  /** Field names and their nodes, alternating (one array, not two: most nodes have one to three). */
  private fields?: Array<string | Node>;
  private cachedText?: string;
  /** Rows and columns from the placement's origin: they stay true however the statement moves. */
  private relativeStart?: RelativePoint;
  private relativeEnd?: RelativePoint;
  private cachedCode?: readonly Node[];

  /** `start` and `end` count from the placement's offset. */
  constructor(
    readonly id: number,
    readonly type: string,
    private readonly start: number,
    private readonly end: number,
    parent: Node | null,
    private readonly placement: Placement,
  ) {
    this.parent = parent;
  }

  get startIndex(): number {
    return this.placement.offset + this.start;
  }

  get endIndex(): number {
    return this.placement.offset + this.end;
  }

  get text(): string {
    // A node's text never changes: a statement is taken over only when its text is the same.
    return (this.cachedText ??= this.placement.source.text.slice(this.startIndex, this.endIndex));
  }

  // Made on each use rather than cached: two more fields on every node of a large file cost
  // more memory than the short-lived points cost time.
  get startPosition(): Point {
    return this.placement.absolute((this.relativeStart ??= this.placement.relative(this.start)));
  }

  get endPosition(): Point {
    return this.placement.absolute((this.relativeEnd ??= this.placement.relative(this.end)));
  }

  /**
   * Named children without comments and backslash line continuations (tree-sitter keeps
   * both as named nodes wherever they occur: `return a, b,\` then `c` has four children).
   */
  get codeChildren(): readonly Node[] {
    if (this.cachedCode === undefined) {
      const named = this.namedChildren;
      this.cachedCode = named.some(isExtra) ? named.filter((c) => !isExtra(c)) : named;
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
    const fields = this.fields;
    if (fields) for (let i = 0; i < fields.length; i += 2) if (fields[i] === name) return fields[i + 1] as Node;
    return null;
  }

  /**
   * @internal the reuse of an unchanged top-level statement in a later text (NodeRegistry):
   * its subtree now starts at `offset` of `source`. Every node of it shares this placement.
   */
  moveTo(offset: number, source: SourceText): void {
    this.placement.move(offset, source);
  }

  /** @internal a top-level statement's subtree: a node whose parent is the root gets a placement of its own. */
  newChild(id: number, type: string, start: number, end: number, source: SourceText): Node {
    if (this.parent === null) return new Node(id, type, 0, end - start, this, new Placement(start, source));
    const offset = this.placement.offset;
    return new Node(id, type, start - offset, end - offset, this, this.placement);
  }

  /** @internal the root of a tree read from `source`. */
  static root(id: number, type: string, start: number, end: number, source: SourceText): Node {
    return new Node(id, type, start, end, null, new Placement(0, source));
  }

  /** @internal the tree walk's: records a child. */
  adopt(child: Node, named: boolean, field: string | null): void {
    if (named) {
      if (this.namedChildren === NO_CHILDREN) this.namedChildren = [child];
      else (this.namedChildren as Node[]).push(child);
    }
    if (field !== null && this.childForFieldName(field) === null) {
      if (this.fields) this.fields.push(field, child);
      else this.fields = [field, child];
    }
  }

  /**
   * @internal the tree walk's: every child was adopted. A pushed-to array keeps room for 16
   * more elements (8 bytes each): copied to its length, a large file's tree takes about half
   * the memory (a 10,000-line file's, 22 MB before).
   */
  finish(): void {
    if (this.namedChildren.length > 1) this.namedChildren = this.namedChildren.slice();
    if (this.fields && this.fields.length > 2) this.fields = this.fields.slice();
  }
}

/**
 * Top-level statements of an earlier read of the same document, by type and text: a
 * statement whose text did not change parses to the same subtree (Python's grammar reads
 * a column-0 statement without its neighbours), so its plain nodes are taken over and
 * moved instead of read from wasm again. Those with a syntax error are never reused.
 */
class ReusableStatements {
  // Keyed by text alone (the type is checked on taking): a kept statement's text is the same
  // string object from one keystroke to the next, so its hash is computed once, not per read.
  private readonly byText = new Map<string, Node[]>();

  constructor(previous: Node) {
    for (const statement of previous.namedChildren) {
      if (statement.hasError) continue;
      const list = this.byText.get(statement.text);
      if (list) list.push(statement);
      else this.byText.set(statement.text, [statement]);
    }
  }

  /** The earlier subtree of a statement with this type and text, once each. */
  take(type: string, text: string): Node | undefined {
    const list = this.byText.get(text);
    if (!list) return undefined;
    const at = list.findIndex((n) => n.type === type);
    return at >= 0 ? list.splice(at, 1)[0] : undefined;
  }
}

/**
 * Gives node ids unique across the trees of one analysis (a notebook's cells, imported
 * modules). Kept for a document between analyses (`reuse`), ids stay unique across them.
 */
/**
 * Node ids are unique in the process, not per registry: a parsed imported module is kept
 * (analysis/moduleTrees.ts) and shared by analyses whose own files other registries read.
 */
let nextNodeId = 0;

export class NodeRegistry {
  /** Whether the last read with `previous` kept every statement it took over on its line. */
  private keptLines = false;

  /**
   * Reads `tree` (parsed from `source`) into plain nodes and returns its root. With
   * `previous`, the root this registry read from an earlier text of the same document,
   * unchanged top-level statements are taken from it (the earlier root is spent then).
   */
  root(tree: Tree, source: string, previous?: Node): Node {
    const reuse = previous?.type === 'module' ? new ReusableStatements(previous) : undefined;
    this.keptLines = reuse !== undefined;
    return this.read(tree, new SourceText(parserText(source)), reuse);
  }

  /**
   * After a read with `previous`: every statement taken over starts on the line it started on
   * (an edit within lines, not one that added or removed a line above a kept statement), so
   * every position inside them, and any line number made from one, is what it was.
   */
  get keptEveryLine(): boolean {
    return this.keptLines;
  }

  /**
   * `previous` with its top-level statement `index` replaced by the one statement `tree` has,
   * parsed from `statementText` alone and placed at `offset` of `source` (the text with the
   * edit): the statements before it keep their offsets, those after move by `delta`. Only for
   * trees without a syntax error (KeptPlainTree.splice checks).
   */
  spliced(previous: Node, index: number, tree: Tree, source: string, offset: number, delta: number): Node {
    const text = new SourceText(parserText(source));
    const root = Node.root(nextNodeId++, previous.type, previous.startIndex, previous.endIndex + delta, text);
    const statements = previous.namedChildren;
    for (let i = 0; i < statements.length; i++) {
      const statement = statements[i]!;
      if (i === index) {
        this.read(tree, text, undefined, { root, offset });
        continue;
      }
      statement.parent = root;
      statement.moveTo(i < index ? statement.startIndex : statement.startIndex + delta, text);
      root.adopt(statement, true, null);
    }
    root.finish();
    return root;
  }

  /** `into`: adopt the tree's top-level nodes into that root instead, their offsets moved by `offset`. */
  private read(tree: Tree, source: SourceText, reuse: ReusableStatements | undefined, into?: { root: Node; offset: number }): Node {
    const language = tree.language;
    const types = language.types;
    const fields = language.fields;
    const namedByType = new Map<number, boolean>();
    // Without a syntax error anywhere no node has one, and none is asked.
    const checkErrors = tree.rootNode.hasError;
    const cursor = tree.walk();
    try {
      const typeOf = (typeId: number): string => types[typeId] || 'ERROR';
      const isNamed = (c: TreeCursor, typeId: number): boolean => {
        let named = namedByType.get(typeId);
        if (named === undefined) namedByType.set(typeId, (named = c.nodeIsNamed));
        return named;
      };
      const rootType = cursor.nodeTypeId;
      const base = into?.offset ?? 0;
      const root = into?.root ?? Node.root(nextNodeId++, typeOf(rootType), cursor.startIndex, cursor.endIndex, source);
      if (!into) root.hasError = checkErrors;
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
            stack.pop()!.finish();
          }
        }
        // The cursor is on a child of the top of the stack.
        const parent = stack[stack.length - 1];
        const typeId = cursor.nodeTypeId;
        // tree-sitter's childForFieldName finds no field in an ERROR node; its cursor may name one.
        const fieldId = parent.type === 'ERROR' ? 0 : cursor.currentFieldId;
        const named = isNamed(cursor, typeId);
        if (named || fieldId !== 0) {
          const start = cursor.startIndex + base;
          const end = cursor.endIndex + base;
          const type = typeOf(typeId);
          const earlier = parent === root && named && reuse !== undefined && !(checkErrors && cursor.currentNode.hasError)
            ? reuse.take(type, source.text.slice(start, end)) : undefined;
          if (earlier) {
            // Its subtree is complete: take it over, moved to where it is now (its nodes read
            // the new text, so even one that did not move is moved), and do not descend.
            earlier.parent = root;
            const row = earlier.startPosition.row;
            earlier.moveTo(start, source);
            if (this.keptLines && earlier.startPosition.row !== row) this.keptLines = false;
            root.adopt(earlier, true, null);
            node = null;
            continue;
          }
          node = parent.newChild(nextNodeId++, type, start, end, source);
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
  /** The text `last` was read from. */
  private lastSource?: string;
  private linesKept = false;
  /** A splice moved statements and then gave up: the next read cannot say they kept their lines. */
  private linesMovedSinceRead = false;

  /**
   * `recovered`: `source` is the document's text with broken statements blanked, not the
   * document's: the next edits apply to the document's text, so no splice starts from it.
   */
  read(tree: Tree, source: string, recovered = false): Node {
    const root = this.registry.root(tree, source, this.last);
    this.linesKept = this.registry.keptEveryLine && !this.linesMovedSinceRead;
    this.linesMovedSinceRead = false;
    this.last = root;
    this.lastSource = recovered ? undefined : source;
    return root;
  }

  /** The last read took statements over from the one before, each on the line it was on. */
  get keptEveryLine(): boolean {
    return this.linesKept;
  }

  /**
   * The tree of `text`, made from the last one and the edits that led there, without a parse of
   * the whole text: each edit must lie inside one top-level statement, which is parsed alone
   * (Python reads a top-level statement without its neighbours) and must come out as one
   * statement without a syntax error; the other statements are taken over. Undefined when an
   * edit does not fit (across statements, between them, into an error): then parse and `read`.
   * An incremental parse of a large file costs tens of milliseconds wherever the edit is.
   */
  splice(edits: readonly SpliceEdit[], text: string): Node | undefined {
    if (!this.last || this.last.type !== 'module' || this.last.hasError || edits.length === 0 || this.lastSource === undefined) return undefined;
    let root: Node = this.last;
    let source: string = this.lastSource;
    let lines = true;
    let spliced = false;
    const parsed: Tree[] = [];
    try {
      for (const edit of edits) {
        const after: string = source.slice(0, edit.start) + edit.text + source.slice(edit.oldEnd);
        const at = statementAround(root, edit.start, edit.oldEnd);
        if (at === undefined) break;
        const statement = root.namedChildren[at]!;
        const delta = edit.text.length - (edit.oldEnd - edit.start);
        const statementText = after.slice(statement.startIndex, statement.endIndex + delta);
        const tree = parsePython(statementText);
        parsed.push(tree);
        const top = tree.rootNode;
        if (top.hasError || top.namedChildCount !== 1 || top.namedChildren[0]!.startIndex !== 0 || top.namedChildren[0]!.endIndex !== statementText.length) break;
        root = this.registry.spliced(root, at, tree, after, statement.startIndex, delta);
        spliced = true;
        const removed = source.slice(edit.start, edit.oldEnd);
        if (/\r/.test(removed + edit.text) || lineBreaks(edit.text) !== lineBreaks(removed)) lines = false;
        source = after;
      }
    } finally {
      for (const tree of parsed) tree.delete();
    }
    if (spliced) {
      // The statements taken over were moved into `root` (and `source`): the next read starts
      // from there, and says no line was kept, since the last analysis saw them elsewhere.
      this.last = root;
      this.lastSource = source;
    }
    if (source !== text) {
      if (spliced) this.linesMovedSinceRead = true;
      return undefined;
    }
    this.linesKept = lines;
    return root;
  }
}

/** One edit of a text: `[start, oldEnd)` replaced by `text` (offsets of the text before it). */
export interface SpliceEdit {
  start: number;
  oldEnd: number;
  text: string;
}

/** The top-level statement of `root` whose text holds `[start, end)`, strictly after its first character; undefined when none does. */
function statementAround(root: Node, start: number, end: number): number | undefined {
  const statements = root.namedChildren;
  let lo = 0;
  let hi = statements.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (statements[mid]!.startIndex < start) lo = mid;
    else hi = mid - 1;
  }
  const statement = statements[lo];
  if (!statement || statement.type === 'comment' || statement.startIndex >= start || end > statement.endIndex) return undefined;
  // Alone, a statement is parsed as the full text parses it only at column 0 and with the next
  // one at column 0 too: tree-sitter takes indented lines after `for x in y: z` as statements
  // of the module, and gives them to the block when the `z` goes.
  const next = statements[lo + 1];
  if (statement.startPosition.column !== 0 || (next && next.startPosition.column !== 0)) return undefined;
  return lo;
}

function lineBreaks(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** Nodes tree-sitter puts anywhere in the tree that carry no code: a comment, a `\` at a line's end. */
function isExtra(node: Node): boolean {
  return node.type === 'comment' || node.type === 'line_continuation';
}
