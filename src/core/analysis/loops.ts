// `for` loops over data loaders, through enumerate / zip / tqdm: the loop target's
// names receive batch tensors on the CPU, tied to the loop (DD002).
import type { Node } from '../python/pyNode';
import { callArguments, children, dottedKey, field, unparen } from '../python/syntax';
import type { RoundContext } from './roundContext';
import type { Frame } from './frame';
import { CPU, LoaderLoop, Located, OTHER, UNKNOWN, Value, value } from './values';
import { keywordBatchNames, placedBatch, placedBatchColumns } from './frameworks';
import { LOADER_LIKE_NAME, PROGRESS_WRAPPERS } from './torchApi';


export interface BoundLoop {
  info: LoaderLoop;
  /** Binds the loop target for one pass. */
  bind(): void;
}

/** `placed`: a batch element of a loader a framework placed (frameworks.ts): not one to move. */
type Binding = { target: Node; kind: 'batch' | 'index' | 'unknown'; placed?: Value; graph?: boolean; mayBeObject?: true };

/** `lookup` reads a variable as expressions do (a method's `self.loader` is the class's attribute). */
export function bindLoopTarget(
  ctx: RoundContext, frame: Frame, stmt: Node, left: Node, right: Node, lookup: (key: string) => Value, iterated?: Value,
): BoundLoop | undefined {
  const bindings: Binding[] = [];
  let loaderText: string | undefined;
  let created: Located | undefined;
  // `enumerated`: the iterable is a variable holding `enumerate(loader)` whose index was bound already.
  const visit = (target: Node, iterable: Node, enumerated = false): void => {
    const it = unparen(iterable);
    if (!enumerated && loaderValue(frame, it, lookup)?.enumerated) {
      const parts = tupleParts(target);
      if (parts?.length !== 2) return void bindings.push({ target, kind: 'unknown' });
      bindings.push({ target: parts[0], kind: 'index' });
      return visit(parts[1], it, true);
    }
    const wrapped = wrapperOf(ctx, frame, it);
    if (wrapped) {
      const args = callArguments(it).positional;
      const parts = tupleParts(target);
      if (wrapped === 'enumerate' && args[0] && parts?.length === 2) {
        bindings.push({ target: parts[0], kind: 'index' });
        return visit(parts[1], args[0]);
      }
      if (wrapped === 'zip' && parts && parts.length === args.length) {
        parts.forEach((p, i) => visit(p, args[i]));
        return;
      }
      if (wrapped === 'progress' && args[0]) return visit(target, args[0]);
    }
    if (isLoader(ctx, frame, it, lookup)) {
      created ??= loaderCreation(frame, it, lookup);
      loaderText ??= it.text;
      const start = bindings.length;
      // `for x, y in DataLoader(...)`: the loader is the loop's own iterable, in no variable.
      const own = it.id === unparen(right).id && iterated?.kind === 'loader' ? iterated : undefined;
      const placed = placedBatch(frame, it, it.text, own);
      const columns = placed ? undefined : placedBatchColumns(frame, it, it.text, own);
      const parts = tupleParts(target);
      if (columns && parts?.length === columns.length) {
        // `for x, y in DataLoader(TensorDataset(x_cpu, y_gpu))`: each name is its column's part.
        parts.forEach((part, i) => {
          const from = bindings.length;
          collectNames(part, bindings);
          for (const b of bindings.slice(from)) if (b.kind === 'batch' && columns[i]) b.placed = columns[i];
        });
      } else {
        collectNames(target, bindings);
        // The loop's whole element (`for batch in loader:`) is what the loader collates: a
        // tensor when a DataLoader of this program collates by default; otherwise it may be
        // an object whose `.to()` moves it in place and returns it (a PyG or DeepSNAP graph
        // batch, a tokenizer's BatchEncoding).
        if (unparen(target).type === 'identifier' && !collatesByDefault(ctx, loaderCreation(frame, it, lookup))) {
          for (const b of bindings.slice(start)) b.mayBeObject = true;
        }
      }
      if (placed) for (const b of bindings.slice(start)) if (b.kind === 'batch') b.placed = placed;
      if (loaderValue(frame, it, lookup)?.graph) for (const b of bindings.slice(start)) if (b.kind === 'batch') b.graph = true;
      return;
    }
    bindings.push({ target, kind: 'unknown' });
  };
  visit(left, right);
  if (!loaderText) return undefined;
  const targets = bindings.filter((b) => b.kind === 'batch' && !b.placed).map((b) => b.target.text);
  const info: LoaderLoop = { unit: frame.unit, node: stmt, loaderText, targets, created };
  const keywordBatches = keywordBatchNames(stmt, bindings.filter((b) => b.kind === 'batch').map((b) => b.target.text));
  return {
    info,
    bind() {
      for (const b of bindings) {
        const kind = keywordBatches.has(b.target.text) ? 'unknown' as const : 'tensor' as const;
        const v = b.placed ? { ...b.placed, kind } : (b.kind === 'batch'
          ? value(kind, CPU, { grad: 'no', batch: { loop: info, name: b.target.text, ...(b.mayBeObject ? { mayBeObject: true } : {}) }, graph: b.graph, origin: { unit: frame.unit, node: right, what: `loaded on the CPU from ${loaderText}` } })
          : b.kind === 'index' ? OTHER : UNKNOWN);
        ctx.assign(frame, b.target, v);
      }
    },
  };
}

function wrapperOf(ctx: RoundContext, frame: Frame, node: Node): 'enumerate' | 'zip' | 'progress' | undefined {
  if (node.type !== 'call') return undefined;
  const callee = field(node, 'function');
  if (!callee) return undefined;
  const name = ctx.program.importsAt(frame.unit).qualify(callee) ?? callee.text;
  if (name === 'enumerate') return 'enumerate';
  if (name === 'zip') return 'zip';
  return PROGRESS_WRAPPERS.has(name) ? 'progress' : undefined;
}

/** The `DataLoader(...)` call that made the loader: the loop's iterable itself, or the variable's origin. */
function loaderCreation(frame: Frame, node: Node, lookup: (key: string) => Value): Located | undefined {
  if (node.type === 'call') return { unit: frame.unit, node };
  const key = dottedKey(node);
  const v = key ? frame.env.get(key) ?? frame.outer?.get(key) ?? lookup(key) : undefined;
  return v?.kind === 'loader' && v.origin?.node.type === 'call' ? v.origin : undefined;
}

/** `DataLoader(dataset, ...)` of torch, with no `collate_fn` (nor `**options` that may hold one). */
function collatesByDefault(ctx: RoundContext, created: Located | undefined): boolean {
  if (!created || created.node.type !== 'call') return false;
  const callee = field(created.node, 'function');
  if (!callee || ctx.program.importsAt(created.unit).qualify(callee) !== 'torch.utils.data.DataLoader') return false;
  const args = callArguments(created.node);
  return !args.keywords.has('collate_fn') && !args.hasSplat;
}

/** The loader value a loop's iterable names, if it is a variable holding one. */
function loaderValue(frame: Frame, node: Node, lookup: (key: string) => Value): Value | undefined {
  const key = dottedKey(node);
  const v = key ? frame.env.get(key) ?? frame.outer?.get(key) ?? (frame.fn?.selfName && key.startsWith(`${frame.fn.selfName}.`) ? lookup(key) : undefined) : undefined;
  return v?.kind === 'loader' ? v : undefined;
}

function isLoader(ctx: RoundContext, frame: Frame, node: Node, lookup: (key: string) => Value): boolean {
  const key = dottedKey(node);
  if (key) {
    const v = frame.env.get(key) ?? frame.outer?.get(key) ?? (frame.fn?.selfName && key.startsWith(`${frame.fn.selfName}.`) ? lookup(key) : undefined);
    if (v?.kind === 'loader') return true;
    // A loader-like name (LOADER_LIKE_NAME) is a hint only when nothing better is known: an instance
    // of a class of this program (a prefetcher) or another library's loader is not one.
    if (v && (v.className || v.kind === 'other')) return false;
    return LOADER_LIKE_NAME.test(key);
  }
  if (node.type === 'call') {
    const callee = field(node, 'function');
    const q = callee && ctx.program.importsAt(frame.unit).qualify(callee);
    return q === 'torch.utils.data.DataLoader';
  }
  return false;
}

function tupleParts(target: Node): readonly Node[] | undefined {
  const t = unparen(target);
  return ['pattern_list', 'tuple_pattern', 'list_pattern', 'tuple', 'list'].includes(t.type) ? children(t) : undefined;
}

/** Identifiers in a target pattern each receive one batch element. */
function collectNames(target: Node, into: Binding[]): void {
  const t = unparen(target);
  if (t.type === 'identifier') {
    into.push({ target: t, kind: 'batch' });
    return;
  }
  const parts = tupleParts(t);
  if (parts) for (const p of parts) collectNames(p, into);
  else into.push({ target: t, kind: 'unknown' });
}

/**
 * `xs[i] = …` inside `for i in range(len(xs)):`, or `d[k] = …` inside `for k in d:` /
 * `for k in d.keys():` (the loop directly around it): each item of the container is assigned.
 */
export function replacesEveryItem(target: Node, container: Node, index: Node): boolean {
  return everyItemLoop(target, container, index) !== undefined;
}

/** The `for` statement of replacesEveryItem. */
export function everyItemLoop(target: Node, container: Node, index: Node): Node | undefined {
  const i = unparen(index);
  if (i.type !== 'identifier') return undefined;
  for (let n = target.parent; n; n = n.parent) {
    if (n.type === 'function_definition' || n.type === 'class_definition') return undefined;
    if (n.type !== 'for_statement') continue;
    const [left, right] = [field(n, 'left'), field(n, 'right')];
    if (left?.text !== i.text || !right) return undefined;
    const over = unparen(right);
    if (over.text === container.text) return n;
    const keys = over.type === 'call' ? field(over, 'function') : null;
    if (keys?.type === 'attribute' && field(keys, 'attribute')?.text === 'keys' && field(keys, 'object')?.text === container.text && children(field(over, 'arguments') ?? over).length === 0) return n;
    const count = onlyArgumentOf(right, 'range');
    return count && onlyArgumentOf(count, 'len')?.text === container.text ? n : undefined;
  }
  return undefined;
}

/** `name(x)`: x, when `call` calls `name` with one positional argument. */
function onlyArgumentOf(call: Node, name: string): Node | undefined {
  const c = unparen(call);
  if (c.type !== 'call' || field(c, 'function')?.text !== name) return undefined;
  const args = children(field(c, 'arguments') ?? c);
  return args.length === 1 && args[0].type !== 'keyword_argument' && args[0].type !== 'list_splat' ? args[0] : undefined;
}
