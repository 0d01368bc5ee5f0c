// DD001 device-mismatch: a value exactly on the CPU meets a module or a non-scalar
// tensor whose place contains an accelerator. Batch elements inside their loader loop
// are left to DD002, which fixes the whole loop at once.
import type { Node } from '../../python/pyNode';
import { dottedKey, unparen } from '../../python/syntax';
import type { Checker } from '../checker';
import type { Arg } from '../expressions';
import type { Frame } from '../frame';
import { addDeviceKeyword, appendMove } from '../fixes';
import type { Fix } from '../types';
import { ACCEL, EITHER, hasAccel, isExactlyCpu, UNTRACKED, Value } from '../values';
import { accelPhrase, canReference, lineOf, shortText } from './describe';

interface Side {
  node: Node;
  value: Value;
}

export function checkModuleCall(c: Checker, frame: Frame, call: Node, calleeNode: Node, callee: Value, args: Arg[]): void {
  if (callee.movesInputs) return;
  if (callee.place === UNTRACKED) {
    // A model of unknown place: in a function that deals with devices it may be on one.
    if (frame.deviceAware) for (const a of args) if (isCpuOperand(a.value)) c.loops.noteReached(frame, a, { node: calleeNode, value: callee });
    checkTensorOperation(c, frame, call, args, 'consumer');
    return;
  }
  if (isExactlyCpu(callee.place) && !callee.placeless) {
    const input = args.find((a) => hasAccel(a.value.place) && !a.value.scalar && a.value.kind !== 'module');
    if (input) modelOnCpu(c, frame, { node: calleeNode, value: callee }, input);
    return;
  }
  if (!hasAccel(callee.place)) return;
  for (const a of args) if (isCpuOperand(a.value)) mismatch(c, frame, a, { node: calleeNode, value: callee }, 'consumer');
}

export function checkTensorOperation(c: Checker, frame: Frame, _node: Node, args: Arg[], via: 'consumer' | 'op'): void {
  const accelSides = args.filter((a) => hasAccel(a.value.place) && !a.value.scalar && a.value.kind !== 'module');
  if (accelSides.length === 0) return;
  const other = accelSides.find((a) => a.value.place === ACCEL) ?? accelSides[0];
  for (const a of args) if (a !== other && isCpuOperand(a.value)) mismatch(c, frame, a, other, via);
}

/** The model itself was never moved, but its input was. */
function modelOnCpu(c: Checker, frame: Frame, model: Side, input: Arg): void {
  const name = shortText(model.node);
  const inputName = shortText(input.node);
  const dev = deviceTextFor(frame, input);
  const created = model.value.factory;
  const fixes: Fix[] = dev && created && created.scope === frame.id
    ? [{ title: `Move \`${shortText(model.node, 30)}\` to ${dev} where it is created`, edits: appendMove(created.node, dev, created.unit), preferred: true }]
    : [];
  c.report({
    unit: frame.unit,
    code: 'DD001',
    node: model.node,
    message: `\`${name}\` is on the CPU (never moved), but its input \`${inputName}\` ${accelPhrase(input.value)}${lineOf(input.value)}: ` +
      `PyTorch raises "Expected all tensors to be on the same device". Move \`${name}\` with .to(device).`,
    related: [
      ...c.related(input.value.origin, `\`${inputName}\` ${input.value.origin?.what ?? 'placed here'}`),
      ...c.related(model.value.origin, `\`${name}\` ${model.value.origin?.what ?? 'created here'}`),
    ],
    fixes,
  });
}

function isCpuOperand(v: Value): boolean {
  return isExactlyCpu(v.place) && !v.scalar && v.kind !== 'module' && v.kind !== 'device';
}

function mismatch(c: Checker, frame: Frame, cpu: Arg, other: Side, via: 'consumer' | 'op'): void {
  const batch = cpu.value.batch;
  if (batch && via === 'consumer' && frame.loops.includes(batch.loop)) {
    c.loops.noteReached(frame, cpu, other);
    return;
  }
  const name = shortText(cpu.node);
  const otherName = shortText(other.node);
  c.report({
    unit: frame.unit,
    code: 'DD001',
    node: cpu.node,
    message: `\`${name}\` is on the CPU, but \`${otherName}\` ${accelPhrase(other.value)}${lineOf(other.value)}: ` +
      `PyTorch raises "Expected all tensors to be on the same device". Move \`${name}\` to the same device.`,
    related: [
      ...c.related(other.value.origin, `\`${otherName}\` ${other.value.origin?.what ?? 'placed here'}`),
      ...c.related(cpu.value.origin, `\`${name}\` ${cpu.value.origin?.what ?? 'created here'}`),
    ],
    fixes: mismatchFixes(frame, cpu, other),
  });
}

function mismatchFixes(frame: Frame, cpu: Arg, other: Side): Fix[] {
  const dev = deviceTextFor(frame, other);
  if (!dev) return [];
  const name = shortText(cpu.node, 30);
  const fixes: Fix[] = [];
  const factory = cpu.value.factory;
  if (factory && factory.scope === frame.id) {
    const edits = addDeviceKeyword(factory.node, dev, factory.unit);
    if (edits) fixes.push({ title: `Create \`${name}\` on ${dev} (add device=${dev})`, edits, preferred: true });
  }
  fixes.push({ title: `Move \`${name}\` to ${dev} here: .to(${dev})`, edits: appendMove(unparen(cpu.node), dev, frame.unit), preferred: fixes.length === 0 });
  return fixes;
}

/** The device expression the accelerator side was moved with, or one derived from it. */
export function deviceTextFor(frame: Frame, other: Side): string | undefined {
  const text = other.value.deviceText;
  // After `if cuda: model.cuda()` a literal "cuda" would break the CPU path: derive it instead.
  const literalOnOnePath = other.value.place === EITHER && !!text && /^["'\d]/.test(text);
  if (text && !literalOnOnePath && canReference(frame, text, other.value.origin?.node)) return text;
  const key = dottedKey(other.node);
  if (!key || !canReference(frame, key)) return undefined;
  if (other.value.kind === 'module') return `next(${key}.parameters()).device`;
  if (other.value.kind === 'tensor') return `${key}.device`;
  return undefined;
}
