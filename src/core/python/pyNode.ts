// A memoizing view of tree-sitter nodes. Every property of a web-tree-sitter node is
// read through wasm and allocates a fresh wrapper; the analyzer reads the same nodes
// many times (rounds, loop passes, scans), so each node is wrapped once per analysis
// and its type, text, positions, children and fields are read once.
import type { Node as SyntaxNode, Point } from 'web-tree-sitter';

export class Node {
  readonly id: number;
  private cachedType?: string;
  private cachedText?: string;
  private cachedStart?: Point;
  private cachedEnd?: Point;
  private cachedNamed?: Node[];
  private cachedCode?: Node[];
  private cachedParent?: Node | null;
  private readonly fields = new Map<string, Node | null>();

  constructor(private readonly raw: SyntaxNode, private readonly registry: NodeRegistry) {
    this.id = raw.id;
  }

  get type(): string {
    return (this.cachedType ??= this.raw.type);
  }

  get text(): string {
    return (this.cachedText ??= this.raw.text);
  }

  get startPosition(): Point {
    return (this.cachedStart ??= this.raw.startPosition);
  }

  get endPosition(): Point {
    return (this.cachedEnd ??= this.raw.endPosition);
  }

  get startIndex(): number {
    return this.raw.startIndex;
  }

  get endIndex(): number {
    return this.raw.endIndex;
  }

  get hasError(): boolean {
    return this.raw.hasError;
  }

  get parent(): Node | null {
    if (this.cachedParent === undefined) this.cachedParent = this.registry.wrap(this.raw.parent);
    return this.cachedParent;
  }

  /** Named children, comments included (as tree-sitter reports them). */
  get namedChildren(): Node[] {
    return (this.cachedNamed ??= this.raw.namedChildren.map((c) => this.registry.wrap(c)).filter((c): c is Node => c !== null));
  }

  /** Named children without comments (tree-sitter keeps comments as named nodes). */
  get codeChildren(): Node[] {
    return (this.cachedCode ??= this.namedChildren.filter((c) => c.type !== 'comment'));
  }

  get namedChildCount(): number {
    return this.namedChildren.length;
  }

  namedChild(index: number): Node | null {
    return this.namedChildren[index] ?? null;
  }

  childForFieldName(name: string): Node | null {
    let found = this.fields.get(name);
    if (found === undefined) {
      found = this.registry.wrap(this.raw.childForFieldName(name));
      this.fields.set(name, found);
    }
    return found;
  }
}

/** One per analysis: the same syntax node always yields the same wrapper. */
export class NodeRegistry {
  private readonly nodes = new Map<number, Node>();

  wrap(raw: SyntaxNode | null): Node | null {
    if (!raw) return null;
    let node = this.nodes.get(raw.id);
    if (!node) this.nodes.set(raw.id, (node = new Node(raw, this)));
    return node;
  }

  root(raw: SyntaxNode): Node {
    return this.wrap(raw)!;
  }
}
