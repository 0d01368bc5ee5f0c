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
/** How each fact is computed, by key: the interpreter recomputes a taped fact to decide a replay. */
const computeByKey = new Map<string, FactCompute<unknown>>();

/** The fact `key` of `program` (a rule's noticed view, or the program itself). */
export function programFact<T>(program: Program, key: string, compute: FactCompute<T>): T {
  computeByKey.set(key, compute as FactCompute<unknown>);
  const noticed = noticedProgram(program);
  if (noticed) {
    const value = programFact(noticed.program, key, compute);
    noticed.tape.read({ kind: 'programFact', key }, value);
    return value;
  }
  let facts = computed.get(program);
  if (!facts) computed.set(program, (facts = new Map()));
  if (!facts.has(key)) facts.set(key, compute(program, deviceChoiceOf(program)));
  return facts.get(key) as T;
}

/** The fact `key` of `program` now, for the replay check; undefined when no rule computed it in this process. */
export function programFactNow(program: Program, key: string): unknown {
  const compute = computeByKey.get(key);
  return compute ? programFact(program, key, compute) : undefined;
}
