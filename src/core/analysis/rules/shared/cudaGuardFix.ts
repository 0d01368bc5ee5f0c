// DD011's fix: `if torch.cuda.is_available():` around the statement that needs CUDA and around
// every later statement that reads a name it binds. Wrapping only `peak = torch.cuda.max_memory_allocated()`
// left the next line's `print(peak)` raising UnboundLocalError on exactly the CPU machines the
// fix is for (issue 28 item 1). Where the later uses cannot all be reached safely (a `return`
// of the value, a function or another cell that reads it, an attribute read elsewhere, a use
// earlier in the enclosing loop), no fix is offered.
import type { Node } from '../../../python/pyNode';
import { children, dottedKey, field } from '../../../python/syntax';
import { insertAt } from '../../fixes';
import type { Fix, TextEdit } from '../../types';

export interface GuardUnit {
  /** The unit's lines and line ending. */
  lines: readonly string[];
  eol: string;
  /** The unit's index, for the edits. */
  index: number;
  /** The other code units of the same module (a notebook's other cells), which may read the names. */
  otherSources: readonly string[];
}

/** Nodes whose bodies run at another time than the statements around them. */
const DEFERRED = new Set(['function_definition', 'lambda', 'class_definition']);

/** Refuses the fix: thrown inside the planner, caught once at its entry. */
class NoSafeFix extends Error {}

function refuse(): never {
  throw new NoSafeFix();
}

/** Every node under `node` (itself included) in source order; `enter` decides whether to descend below one. */
function walk(node: Node, visit: (n: Node) => void, enter: (n: Node) => boolean = () => true): void {
  const stack: Node[] = [node];
  while (stack.length) {
    const n = stack.pop()!;
    visit(n);
    if (n === node || enter(n)) for (let i = n.namedChildren.length - 1; i >= 0; i--) stack.push(n.namedChildren[i]);
  }
}

/** Identifiers that read (or rebind) one of `names`; an attribute's member and a keyword's name are not reads. */
function readsOf(node: Node, names: ReadonlySet<string>): Node[] {
  const found: Node[] = [];
  if (names.size === 0) return found;
  walk(node, (n) => {
    if (n.type !== 'identifier' || !names.has(n.text)) return;
    const p = n.parent;
    if (p?.type === 'attribute' && field(p, 'attribute')?.id === n.id) return;
    if (p?.type === 'keyword_argument' && field(p, 'name')?.id === n.id) return;
    found.push(n);
  });
  return found;
}

function within(node: Node, outer: Node): boolean {
  return node.startIndex >= outer.startIndex && node.endIndex <= outer.endIndex;
}

/** The names a wrapped statement binds, which the CPU path then lacks. */
class Bindings {
  readonly names = new Set<string>();
  /** `self.peak`: read elsewhere (another method), it would be missing there. */
  readonly attributes = new Set<string>();

  addFrom(statement: Node): void {
    walk(statement, (n) => this.addNode(n), (n) => !DEFERRED.has(n.type));
  }

  private addNode(n: Node): void {
    if (n.type === 'assignment' || n.type === 'for_statement') this.addTarget(field(n, 'left'));
    else if (n.type === 'named_expression') this.addTarget(field(n, 'name'));
    else if (n.type === 'as_pattern_target') this.addTarget(n);
    else if (n.type === 'function_definition' || n.type === 'class_definition') this.addTarget(field(n, 'name'));
    else if (n.type === 'global_statement' || n.type === 'nonlocal_statement') refuse();
    else if (n.type === 'import_statement' || n.type === 'import_from_statement') {
      const from = field(n, 'module_name');
      walk(n, (i) => { if (i.type === 'identifier' && !(from && within(i, from))) this.names.add(i.text); });
    }
  }

  private addTarget(target: Node | null): void {
    if (!target) return;
    if (target.type === 'identifier') this.names.add(target.text);
    else if (target.type === 'attribute') this.attributes.add(dottedKey(target) ?? refuse());
    else if (target.type === 'subscript') refuse();
    else for (const c of children(target)) this.addTarget(c);
  }
}

/** A `return` or `yield` of this scope: wrapping it would change what the caller receives. */
function exitsScope(statement: Node): boolean {
  let exits = false;
  walk(statement, (n) => { if (n.type === 'return_statement' || n.type === 'yield') exits = true; }, (n) => !DEFERRED.has(n.type));
  return exits;
}

/** The blocks of a compound statement (its bodies, `elif`/`else`/`except`/`finally` included), not deeper ones. */
function ownBlocks(statement: Node): Node[] {
  const blocks: Node[] = [];
  walk(statement, (n) => { if (n.type === 'block' && n !== statement) blocks.push(n); }, (n) => n.type !== 'block');
  return blocks;
}

/** The statement (a child of a block or the module) that holds `node`. */
function statementOf(node: Node): Node {
  let s = node;
  while (s.parent && s.parent.type !== 'block' && s.parent.type !== 'module') s = s.parent;
  return s;
}

class GuardPlan {
  readonly bound = new Bindings();
  readonly wrapped: Node[] = [];
  private readonly loops: Node[] = [];
  private scope!: Node;

  constructor(private readonly first: Node, private readonly guard: string) {}

  build(): void {
    this.wrap(this.first);
    let node = this.first;
    for (;;) {
      const block = node.parent!;
      const siblings = children(block);
      this.followSiblings(siblings, siblings.findIndex((s) => s.id === node.id) + 1);
      if (block.type === 'module') { this.scope = block; break; }
      const owner = statementOf(block.parent!);
      if (owner.type === 'function_definition' || owner.type === 'decorated_definition') { this.scope = owner; break; }
      if (owner.type === 'class_definition') { if (this.bound.names.size) refuse(); this.scope = owner; break; }
      if (owner.type === 'for_statement' || owner.type === 'while_statement') this.loops.push(owner);
      node = owner;
    }
    this.checkLoops();
    this.checkDeferredReads();
  }

  /** Inside a wrapped statement or an existing `if torch.cuda.is_available():` body. */
  private isSafe(n: Node): boolean {
    if (this.wrapped.some((w) => within(n, w))) return true;
    for (let p = n.parent; p; p = p.parent) if (p.type === 'block' && this.alreadyGuarded(p)) return true;
    return false;
  }

  private unsafeReads(node: Node): Node[] {
    return readsOf(node, this.bound.names).filter((r) => !this.isSafe(r));
  }

  /** Each later statement that reads a bound name is wrapped; a compound one only where it reads it. */
  private followSiblings(statements: readonly Node[], from: number): void {
    for (let i = from; i < statements.length; i++) {
      const s = statements[i];
      const reads = this.unsafeReads(s);
      if (reads.length === 0) continue;
      const blocks = DEFERRED.has(s.type) ? [] : ownBlocks(s);
      const inHeader = reads.some((r) => !blocks.some((b) => within(r, b)));
      if (blocks.length === 0 || inHeader) this.wrap(s);
      else for (const b of blocks) if (this.unsafeReads(b).length) this.followSiblings(children(b), 0);
    }
  }

  /** The body of an `if torch.cuda.is_available():` (an earlier fix's): reads there are safe already. */
  private alreadyGuarded(block: Node): boolean {
    const owner = block.parent;
    return owner?.type === 'if_statement' && field(owner, 'consequence')?.id === block.id
      && field(owner, 'condition')?.text.replace(/\s+/g, '') === this.guard;
  }

  private wrap(statement: Node): void {
    if (exitsScope(statement)) refuse();
    this.bound.addFrom(statement);
    this.wrapped.push(statement);
  }

  /** A loop runs its body again: a read before the wrapped statement would meet the unbound name next time round. */
  private checkLoops(): void {
    for (const loop of this.loops) if (this.unsafeReads(loop).length) refuse();
  }

  /** Functions and lambdas run whenever they are called; a module's names are read by its other cells too. */
  private checkDeferredReads(): void {
    walk(this.scope, (n) => {
      if (n !== this.scope && (n.type === 'function_definition' || n.type === 'lambda') && this.unsafeReads(n).length) refuse();
    });
  }
}

/** Whether `name` appears as a word in `text` (a dotted name like `self.peak` included). */
function mentions(text: string, name: string): boolean {
  return new RegExp(`(?<![\\w.])${name.replace(/\./g, '\\s*\\.\\s*')}(?!\\w)`).test(text);
}

/** The unit's text with the wrapped statements blanked, to find reads of an attribute anywhere else. */
function textOutside(root: Node, wrapped: readonly Node[]): string {
  let text = root.text;
  for (const w of wrapped) text = text.slice(0, w.startIndex) + ' '.repeat(w.endIndex - w.startIndex) + text.slice(w.endIndex);
  return text;
}

/** Consecutive wrapped statements of one block share one `if`. */
function runs(wrapped: readonly Node[]): Node[][] {
  const sorted = [...wrapped].sort((a, b) => a.startIndex - b.startIndex);
  const out: Node[][] = [];
  for (const s of sorted) {
    const last = out[out.length - 1];
    const prev = last?.[last.length - 1];
    const siblings = prev?.parent ? children(prev.parent) : [];
    const next = siblings[siblings.findIndex((x) => x.id === prev?.id) + 1];
    if (last && next?.id === s.id) last.push(s);
    else out.push([s]);
  }
  return out;
}

/** Rows inside a string that spans lines (after its first): their text is the string's, not indentation. */
function stringRows(statement: Node): Set<number> {
  const rows = new Set<number>();
  walk(statement, (n) => {
    if (n.type !== 'string') return;
    for (let r = n.startPosition.row + 1; r <= n.endPosition.row; r++) rows.add(r);
  });
  return rows;
}

function runEdits(run: readonly Node[], header: string, unit: GuardUnit, step: string): TextEdit[] | undefined {
  const first = run[0];
  const last = run[run.length - 1];
  const start = first.startPosition;
  const end = last.endPosition;
  const indent = (unit.lines[start.row] ?? '').slice(0, start.column);
  const rest = (unit.lines[end.row] ?? '').slice(end.column);
  // Only statements alone on their lines: not `if x: stmt`, not `a; stmt`.
  if (!/^[ \t]*$/.test(indent) || !/^\s*(#.*)?$/.test(rest)) return undefined;
  const edits = [insertAt({ line: start.row, character: start.column }, `${header}${unit.eol}${indent}${step}`, unit.index)];
  const inStrings = new Set(run.flatMap((s) => [...stringRows(s)]));
  for (let row = start.row + 1; row <= end.row; row++) {
    const text = unit.lines[row] ?? '';
    if (inStrings.has(row) || /^\s*$/.test(text)) continue;
    // After the line's own indentation: where another DD011 fix on this line would put its
    // `if`, so fix-all sees the two conflict and applies the second in its next pass.
    edits.push(insertAt({ line: row, character: /^[ \t]*/.exec(text)![0].length }, step, unit.index));
  }
  return edits;
}

function title(torch: string, plan: GuardPlan): string {
  const later = plan.wrapped.length - 1;
  const base = `Wrap in if ${torch}.cuda.is_available():`;
  if (later === 0) return base;
  const own = new Bindings();
  own.addFrom(plan.wrapped[0]);
  const names = [...own.names, ...own.attributes].slice(0, 3).join(', ');
  return later === 1 ? `${base} with the later statement that uses ${names}` : `${base} with the ${later} later statements that use ${names}`;
}

/**
 * The fix for a CUDA-only statement (a child of a block or the module): it and every later
 * read of what it binds, guarded; undefined where that cannot be done safely.
 */
export function cudaGuardFix(statement: Node, torch: string, unit: GuardUnit): Fix | undefined {
  const plan = new GuardPlan(statement, `${torch}.cuda.is_available()`);
  try {
    plan.build();
  } catch (e) {
    if (e instanceof NoSafeFix) return undefined;
    throw e;
  }
  if ([...plan.bound.names].some((n) => unit.otherSources.some((src) => mentions(src, n)))) return undefined;
  const root = statement.parent && statement.parent.type === 'module' ? statement.parent : rootOf(statement);
  const outside = textOutside(root, plan.wrapped);
  if ([...plan.bound.attributes].some((a) => mentions(outside, a) || unit.otherSources.some((src) => mentions(src, a)))) return undefined;
  const step = unit.lines.some((l) => l.startsWith('\t')) ? '\t' : '    ';
  const edits: TextEdit[] = [];
  for (const run of runs(plan.wrapped)) {
    const more = runEdits(run, `if ${torch}.cuda.is_available():`, unit, step);
    if (!more) return undefined;
    edits.push(...more);
  }
  return { title: title(torch, plan), edits, preferred: true };
}

function rootOf(node: Node): Node {
  let n = node;
  while (n.parent) n = n.parent;
  return n;
}
