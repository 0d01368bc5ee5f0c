// Questions a rule or the engine asks of a class's attribute summary as a whole ("does any
// attribute hold a tensor?"). Each is one yes/no, taped as that answer (Summaries.classAttrsSome),
// not as the whole attribute map: a run that asked it replays while the answer stays, whatever
// else of the class changed between rounds.
import { containedValues, CPU, hasAccel, isTensorLike, mayHoldWeights, UNTRACKED, type Value } from './values';

/** An nn.Parameter, or a value holding one (weightlessModules.ts). */
function holdsTensor(v: Value): boolean {
  return (v.kind === 'tensor' && !!v.parameter) || containedValues(v).some(holdsTensor);
}

/** A submodule or parameter placed on a named device (`.to(d)`, `.cuda()`, `device=d`). */
export function explicitlyPlaced(v: Value): boolean {
  const movable = (v.kind === 'module' && !v.placeless) || !!v.parameter;
  return movable && v.place !== UNTRACKED && v.deviceText !== undefined;
}

export const ATTRIBUTE_TESTS = {
  /** Something that may hold weights: a module, an nn.Parameter, a value not known. */
  mayHoldWeights,
  holdsTensor,
  /** A tensor or module on an accelerator (a Dataset keeping what its caller placed; collate.ts). */
  onAccelerator: (v: Value) => isTensorLike(v) && v.place !== UNTRACKED && hasAccel(v.place),
  /** Explicitly placed somewhere other than the CPU (ownPlacement.ts). */
  placedOffCpu: (v: Value) => explicitlyPlaced(v) && v.place !== CPU,
} satisfies Record<string, (v: Value) => boolean>;

export type AttributeTest = keyof typeof ATTRIBUTE_TESTS;
