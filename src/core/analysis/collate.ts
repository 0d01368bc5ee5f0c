// A DataLoader's `collate_fn` may put each batch on a device itself: a
// `partial(collate, device=device)`, or a collate function (a `def` of the program, a
// lambda) that moves what it builds. Such a loader's batches are where its collate function
// puts them, not batches the loop must move (DD002 would tell the user to move them again).
import type { Node } from '../python/pyNode';
import { callArguments, field, unparen } from '../python/syntax';
import { evalDevice } from './devices';
import type { Frame } from './frame';
import type { Evaluator, RoundContext } from './roundContext';
import { Arg, datasetColumnPlacements, datasetPlacement, PlacedBy, UNTRACKED, Value, value } from './values';
import type { FunctionInfo } from './program';
import { MOVES_TENSORS } from './bodyFacts';

/** `partial(fn, ..., device=d)`: a callable bound to a device (kept as the value's `kwargsDevice`). */
export function partialWithDevice(ctx: RoundContext, ex: Evaluator, frame: Frame, call: Node, q: string): Value | undefined {
  if (q !== 'functools.partial') return undefined;
  const args = callArguments(call);
  const device = args.keywords.get('device');
  if (!device) return undefined;
  for (const n of args.positional) ex.eval(frame, n);
  const place = evalDevice(ctx, frame, device, (f, n) => ex.eval(f, n));
  return value('other', UNTRACKED, { kwargsDevice: { place, text: device.text } });
}

/** Where `DataLoader(..., collate_fn=c)` puts its batches, when `c` says, or the dataset's rows without one; undefined for the CPU. */
export function collatePlacement(ctx: RoundContext, call: Node, argValues: readonly Arg[]): PlacedBy | undefined {
  const args = callArguments(call);
  const node = args.keywords.get('collate_fn');
  if (!node) {
    // The default collation stacks the dataset's rows where they are (values.ts datasetPlacement).
    const dataset = args.positional[0] ?? args.keywords.get('dataset');
    const v = argValues.find((a) => a.node === dataset)?.value;
    return datasetPlacement(v) ?? ownDatasetPlacement(ctx, v);
  }
  const collate = argValues.find((a) => a.node === node)?.value;
  if (collate?.kwargsDevice) return { framework: 'collate_fn', place: collate.kwargsDevice.place, deviceText: collate.kwargsDevice.text };
  const fn = collate?.functionId !== undefined ? ctx.program.functions[collate.functionId] : boundMethod(ctx, call, node, argValues);
  const moves = fn ? ctx.bodyFact(fn, 'movesTensors') === true : unparen(node).type === 'lambda' && MOVES_TENSORS.test(node.text);
  // It moves them somewhere the analysis does not follow: no known place, no finding.
  if (moves) return { framework: 'collate_fn', place: UNTRACKED, deviceText: 'its device' };
  return undefined;
}

/** Without a `collate_fn`: per column of the dataset's rows, where batches put it (values.ts datasetColumnPlacements). */
export function collateColumnPlacements(call: Node, argValues: readonly Arg[]): Array<PlacedBy | undefined> | undefined {
  const args = callArguments(call);
  if (args.keywords.has('collate_fn')) return undefined;
  const dataset = args.positional[0] ?? args.keywords.get('dataset');
  return datasetColumnPlacements(argValues.find((a) => a.node === dataset)?.value);
}

/**
 * A Dataset class of the program whose items may already be on a device: a method moves
 * tensors (`__getitem__` returning `x.to(device)`, `__init__` moving the whole set once), or
 * it keeps tensors its caller placed on an accelerator. Its batches are where it put them,
 * which the analysis does not follow: no known place, no finding.
 */
function ownDatasetPlacement(ctx: RoundContext, dataset: Value | undefined): PlacedBy | undefined {
  const cls = dataset?.className ? ctx.program.classes.get(dataset.className) : undefined;
  if (!cls) return undefined;
  const methods = new Set([...cls.methods.values(), ...['__init__', '__getitem__'].map((m) => ctx.program.methodOf(cls.key, m))]);
  const moves = [...methods].some((m) => m !== undefined && ctx.bodyFact(m, 'placesOnDevice') === true);
  const keepsPlaced = ctx.previous.classAttrsSome(cls.key, 'onAccelerator') === true;
  return moves || keepsPlaced ? { framework: 'dataset', place: UNTRACKED, deviceText: 'its device' } : undefined;
}

/**
 * `DataLoader(ds, collate_fn=ds.collate_fn)`: the method of the program's class that the
 * dataset is an instance of.
 */
function boundMethod(ctx: RoundContext, call: Node, node: Node, argValues: readonly Arg[]): FunctionInfo | undefined {
  const n = unparen(node);
  const receiver = n.type === 'attribute' ? field(n, 'object') : undefined;
  const name = n.type === 'attribute' ? field(n, 'attribute')?.text : undefined;
  if (!receiver || !name) return undefined;
  const args = callArguments(call);
  const dataset = args.positional[0] ?? args.keywords.get('dataset');
  if (!dataset || unparen(dataset).text !== receiver.text) return undefined;
  const owner = argValues.find((a) => a.node === dataset)?.value;
  return owner?.className ? ctx.program.methodOf(owner.className, name) : undefined;
}
