// Facts a rule derives from the analysed program's whole text ("the file starts a process
// group", "the paths its own torch.save calls write"), computed once per program. In a taped
// round (runCache.ts) each use is a read with its value, like the device choice: a run that
// used the fact is replayed after a keystroke when the fact is the same again. Reading the
// program's text directly would mark the run as not replayable, so every keystroke would
// interpret it again (a rule doing so made keystrokes on 10,000 lines 5x slower).
import { deviceChoiceOf, type DeviceChoice } from './deviceChoice';
import type { Program } from './program';
import { noticedProgram } from './runCache';

export type FactCompute<T> = (program: Program, deviceChoice: DeviceChoice) => T;

const computed = new WeakMap<Program, Map<string, unknown>>();

/** The fact `key` of `program` (a rule's noticed view, or the program itself). */
export function programFact<T>(program: Program, key: string, compute: FactCompute<T>): T {
  const noticed = noticedProgram(program);
  if (noticed) {
    const value = programFact(noticed.program, key, compute);
    noticed.tape.readFact(key, compute, value);
    return value;
  }
  let facts = computed.get(program);
  if (!facts) computed.set(program, (facts = new Map()));
  if (!facts.has(key)) facts.set(key, compute(program, deviceChoiceOf(program)));
  return facts.get(key) as T;
}

/**
 * The fact `key` of `program` now, for the replay check; undefined when no run of these runs
 * computed it. How each fact is computed is kept with the runs of one document
 * (RunCache.factComputes), also for a later analysis that has not asked it yet, not for the
 * process: a rule's computation may close over the analysis that asked it (its interpreter,
 * program and trees), which a process-wide table kept alive after the document was closed.
 */
export function programFactNow(program: Program, key: string, computes: ReadonlyMap<string, unknown> | undefined): unknown {
  const compute = computes?.get(key) as FactCompute<unknown> | undefined;
  return compute ? programFact(program, key, compute) : undefined;
}
