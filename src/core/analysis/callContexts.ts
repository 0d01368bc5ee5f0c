// Per-function summaries, parametric in their inputs: a call of one of the program's
// functions is understood with the values this call passes, not the join of every call
// site. `def calc_loss(inputs, targets, model, device)` that moves its inputs returns a
// tensor on the model's device at each call; `def to_cpu(t): return t.cpu()` returns the
// CPU for any input. Each (function, argument values) pair is interpreted once per round,
// muted (the body's own findings come from its ordinary run), and remembered.
import type { FunctionInfo } from './program';
import type { Recording } from './runCache';
import { bodyFact } from './bodyFacts';
import type { Arg, Value } from './values';

/** A parameter of this call, on the CPU, met an accelerator inside: `other` is what it met. */
export interface ParamMeeting {
  param: string;
  other: Arg;
  /** Where inside (the operation), for the message. */
  at: Arg['node'];
}

/** What one call of a function did, for these arguments. */
export interface CallResult {
  /** The join of the values it returned; undefined when it never returns a value. */
  returned?: Value;
  /** The parameter the returned value comes from unchanged in place (`return x.clone()`), if any. */
  returnedParam?: string;
  /** Each parameter's value when the body ended (a module moved in place shows here). */
  params: Map<string, Value>;
  /** CPU parameters that met an accelerator inside: reported at each call site's argument. */
  meetings: ParamMeeting[];
  /** What interpreting the call read and wrote (a muted round tapes it; runCache.ts). */
  recording?: Recording;
  /** The attributes it left on `self` (`self.gen = self.gen.cuda()`): a caller's own instance has them after the call. */
  selfWrites?: Map<string, Value>;
}

/**
 * The argument that carries a method call's receiver (`decoder` in `decoder.sample(f)`) when
 * the call site knows exactly where it is: the method's layers are there for this call.
 */
export const RECEIVER = '<receiver>';

/**
 * The argument that names the class of the instance a method runs for when a method of a
 * subclass calls it on `self` (`self.init_model()` defined in the base class): its `self.x`
 * are that class's attributes, and `self.m()` that class's methods.
 */
export const SELF_CLASS = '<self class>';

/**
 * The argument that says a method runs for an instance still being built (`self._features(x)`
 * called from `__init__`): its layers are where they were made, not where instances go later.
 */
export const BUILDING = '<building>';

/** Nested calls are followed this deep; deeper ones use the joined summary. */
export const MAX_CONTEXT_DEPTH = 4;
/** Distinct (function, arguments) pairs interpreted per round, at most. */
const MAX_CONTEXTS = 2000;

export class CallContexts {
  private readonly results = new Map<string, CallResult>();
  private readonly active = new Set<number>();
  private readonly generators = new Map<number, boolean>();

  /**
   * The result of calling `fn` with `args` (parameter name to value): remembered, or
   * computed by `run`. Undefined where a summary cannot be parametric: recursion, a
   * generator (its call returns an iterator, not what it yields), a nested function
   * called from elsewhere than its enclosing function (`closureSite`: the call, whose
   * frame is the closure), or too deep or too many calls.
   */
  resultOf(fn: FunctionInfo, args: ReadonlyMap<string, Value>, run: () => CallResult, closureSite?: number, live = false): CallResult | undefined {
    // A nested function is followed only where its enclosing function calls it (its closure is that frame's state then).
    if ((fn.parent !== -1 && closureSite === undefined) || this.active.has(fn.id) || this.active.size >= MAX_CONTEXT_DEPTH || this.isGenerator(fn)) return undefined;
    const key = contextKey(fn, args, closureSite, live);
    const known = this.results.get(key);
    if (known) return known;
    if (this.results.size >= MAX_CONTEXTS) return undefined;
    this.active.add(fn.id);
    try {
      const result = run();
      this.results.set(key, result);
      return result;
    } finally {
      this.active.delete(fn.id);
    }
  }

  /** How many calls are being followed now: a call this deep follows fewer nested ones (MAX_CONTEXT_DEPTH). */
  get depth(): number {
    return this.active.size;
  }

  private isGenerator(fn: FunctionInfo): boolean {
    let g = this.generators.get(fn.id);
    if (g === undefined) this.generators.set(fn.id, (g = bodyFact(fn, 'generator') === true));
    return g;
  }
}

/** A call of `fn` with these arguments, as its summary is remembered. */
export function contextKey(fn: FunctionInfo, args: ReadonlyMap<string, Value>, closureSite?: number, live = false): string {
  return `${fn.id}${closureSite === undefined ? '' : `@${closureSite}`}${live ? '~' : ''}(${[...args].map(([name, v]) => `${name}=${valueKey(v)}`).join(',')})`;
}

/** What of a value can change what a function does with it (its origin only changes messages). */
function valueKey(v: Value): string {
  const flags = `${v.scalar ? 's' : ''}${v.placeless ? 'p' : ''}${v.movesInputs ? 'm' : ''}${v.plainOnCpu ? 'c' : ''}${v.outputPlace !== undefined ? `o${v.outputPlace}` : ''}${v.batch ? 'b' : ''}`;
  const elements = v.elements ? `[${v.elements.map(valueKey).join(',')}]` : '';
  // What a container holds decides where a loader over it puts batches (values.ts datasetPlacement).
  const items = v.anyElement && !v.entries ? `{${valueKey(v.anyElement)}}` : '';
  const type = v.tensorType !== undefined ? `T${v.tensorType}` : '';
  const attrs = v.attrs ? `<${[...v.attrs].map(([k, a]) => `${k}:${valueKey(a)}`).join(',')}>` : '';
  return `${v.kind[0]}${v.place}${v.grad[0]}${flags}${v.className ?? ''}${v.deviceText ? `@${v.deviceText}` : ''}${elements}${items}${type}${attrs}`;
}

