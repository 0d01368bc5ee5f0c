// Where does a `.to(...)` argument or a `device=` keyword put a tensor?
import type { Node } from '../python/pyNode';
import { callArguments, field, isNumberLiteral, stringLiteralValue, unparen } from '../python/syntax';
import type { RoundContext } from './roundContext';
import type { Frame } from './frame';
import { DTYPE_NAMES, OPTIONS_HOLDER_NAME, isAcceleratorDeviceString } from './torchApi';
import { ACCEL, CPU, EITHER, Place, UNTRACKED, Value, value } from './values';

export type DeviceTarget = { kind: 'dtype' } | { kind: 'device'; place: Place; text: string };

export type Evaluate = (frame: Frame, node: Node) => Value;

/** A device value for a string literal such as "cuda:1", or undefined for other strings. */
export function deviceFromString(node: Node): Value | undefined {
  const s = stringLiteralValue(node);
  if (s === undefined) return undefined;
  const accel = isAcceleratorDeviceString(s);
  if (accel === undefined) return undefined;
  return value('device', accel ? ACCEL : CPU, { deviceText: node.text });
}

function isDtypeExpression(ctx: RoundContext, frame: Frame, node: Node): boolean {
  const n = unparen(node);
  const q = ctx.program.importsAt(frame.unit).qualify(n);
  if (q && q.startsWith('torch.') && DTYPE_NAMES.has(q.slice(6))) return true;
  if (n.type === 'identifier' || n.type === 'attribute') return /dtype$/i.test(n.text);
  return false;
}

/** The scope uses an attribute of `key` as a module or a tensor (`trainer.model.eval()`): `key` is an object holding them. */
function holdsModelsOrTensors(frame: Frame, key: string): boolean {
  const prefix = `${key}.`;
  for (const used of frame.evidence.keys()) if (used.startsWith(prefix)) return true;
  return false;
}

/** Evaluates a device expression; an unknown variable may be either place (ANALYZER.md). */
export function evalDevice(ctx: RoundContext, frame: Frame, node: Node, evaluate: Evaluate): Place {
  const n = unparen(node);
  const literal = deviceFromString(n);
  if (literal) return literal.place;
  if (isNumberLiteral(n)) return ACCEL; // an ordinal: cuda:N
  if (n.type === 'none') return UNTRACKED;
  if (n.type === 'conditional_expression') {
    const [a, cond, b] = [n.namedChild(0), n.namedChild(1), n.namedChild(2)];
    if (!a || !b) return EITHER;
    const truth = cond ? evaluate(frame, cond).truth : undefined;
    if (truth !== undefined) return evalDevice(ctx, frame, truth ? a : b, evaluate);
    const pa = evalDevice(ctx, frame, a, evaluate);
    const pb = evalDevice(ctx, frame, b, evaluate);
    return pa === UNTRACKED || pb === UNTRACKED ? EITHER : ((pa | pb) as Place);
  }
  const v = evaluate(frame, n);
  // Not known yet (the first round): no guess, the next round says where.
  if (v.pending) return UNTRACKED;
  // `device=device` where it is None (a parameter no caller sets): the default device, as `device=None`.
  if (v.isNone) return UNTRACKED;
  if ((v.kind === 'device' || v.kind === 'tensor' || v.kind === 'module') && v.place !== UNTRACKED) return v.place;
  // `x.to(model.device)` where the model's place is unknown: wherever the model is, which
  // never mismatches it; not "maybe an accelerator".
  if (v.kind === 'device' && v.place === UNTRACKED) return UNTRACKED;
  // `x.to(start.device)` where nothing is known of the variable `start`: the same, unless `start`
  // is the program's options (`args.device`, `cfg.device`), the instance itself (`self.device`,
  // set from a constructor argument) or another object that holds a model or tensors
  // (`trainer.device` beside `trainer.model(...)`), whose device is a setting the run chooses.
  // A model another object keeps (`trainer.model.device`) is where that object put it.
  if (v.kind === 'unknown' && n.type === 'attribute' && field(n, 'attribute')?.text === 'device') {
    const receiver = field(n, 'object');
    if (receiver?.type === 'identifier' && receiver.text !== frame.fn?.selfName && !OPTIONS_HOLDER_NAME.test(receiver.text) && !holdsModelsOrTensors(frame, receiver.text)) return UNTRACKED;
  }
  // PyTorch reads an int device as the ordinal of an accelerator (`x.to(local_rank)`).
  if (v.kind === 'other' && v.integer && !v.isNone) return ACCEL;
  if (v.kind === 'other') {
    // A string variable holding "cpu" was evaluated as a device already; other values are unknown.
    return EITHER;
  }
  return EITHER;
}

/** The target of `x.to(...)`: a dtype (place unchanged) or a device. */
export function toTarget(ctx: RoundContext, frame: Frame, call: Node, evaluate: Evaluate): DeviceTarget {
  const args = callArguments(call);
  const deviceKw = args.keywords.get('device');
  const first = deviceKw ?? args.positional[0];
  if (!first) return { kind: 'dtype' }; // `.to(dtype=...)`, `.to(memory_format=...)`
  if (!deviceKw && isDtypeExpression(ctx, frame, first)) return { kind: 'dtype' };
  const firstValue = unparen(first);
  // `.to(None)` (a `device=None` parameter no caller set) leaves the tensor where it is, like a dtype cast.
  if (firstValue.type === 'none' || (firstValue.type === 'identifier' && evaluate(frame, firstValue).isNone)) return { kind: 'dtype' };
  if (!deviceKw && firstValue.type === 'attribute' && field(firstValue, 'attribute')?.text === 'dtype') return { kind: 'dtype' };
  return { kind: 'device', place: evalDevice(ctx, frame, first, evaluate), text: first.text };
}
