// Where a CPU tensor meets an accelerator in one operation: the condition DD001 reports,
// shared with the engine's call-site capture (a parameter of a function interpreted for
// one call that meets an accelerator inside is reported at the caller's argument).
import { ACCEL, Arg, hasAccel, isExactlyCpu, UNTRACKED, Value } from './values';

export interface Meeting {
  /** The operand exactly on the CPU. */
  cpu: Arg;
  /** What it meets: the module called, or a tensor operand on an accelerator. */
  other: Arg;
}

export function isCpuOperand(v: Value): boolean {
  return isExactlyCpu(v.place) && !v.scalar && v.kind !== 'module' && v.kind !== 'device';
}

/** CPU operands meeting accelerator tensors in one operation (all against the same accelerator side). */
export function operationMeetings(args: readonly Arg[]): Meeting[] {
  const accelSides = args.filter((a) => hasAccel(a.value.place) && !a.value.scalar && a.value.kind !== 'module');
  if (accelSides.length === 0) return [];
  const other = accelSides.find((a) => a.value.place === ACCEL) ?? accelSides[0];
  return args.filter((a) => a !== other && isCpuOperand(a.value)).map((cpu) => ({ cpu, other }));
}

/** CPU inputs of a call of a module that is (or may be) on an accelerator, or operand meetings when its place is unknown. */
export function moduleCallMeetings(callee: Arg, args: readonly Arg[]): Meeting[] {
  if (callee.value.movesInputs) return [];
  if (callee.value.place === UNTRACKED) return operationMeetings(args);
  if (!hasAccel(callee.value.place)) return [];
  return args.filter((a) => isCpuOperand(a.value)).map((cpu) => ({ cpu, other: callee }));
}

/** `model(x)` with the model exactly on the CPU and an input on an accelerator: the model is the CPU side. */
export function cpuModuleMeeting(callee: Arg, args: readonly Arg[]): Meeting | undefined {
  if (!isExactlyCpu(callee.value.place) || callee.value.placeless || callee.value.movesInputs) return undefined;
  const input = args.find((a) => hasAccel(a.value.place) && !a.value.scalar && a.value.kind !== 'module');
  return input ? { cpu: callee, other: input } : undefined;
}
