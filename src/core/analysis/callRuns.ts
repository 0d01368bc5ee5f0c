// Which calls interpreted for their arguments a later round or keystroke may replay
// (Interpreter.callInContext), and when a module scope's call still gives what it gave
// (Interpreter.callsGiveTheSame). The runs themselves are kept in runCache.ts.
import type { CallResult } from './callContexts';
import { sameDeep, type Recording, type ScopeCall } from './runCache';
import { holdsBatch, type Value } from './values';

/** A call run a later one may replay: one that set no module variable and read no batch (callInContext). */
export function keepable(recording: Recording): boolean {
  return !recording.setLiveGlobals && !readsLiveBatch(recording);
}

/** The same result, what it wrote and the globals it noted: a scope that made the one call may replay with the other. */
export function givesTheSame(run: { result: unknown; recording: Recording }, call: ScopeCall): boolean {
  const a = run.result as CallResult;
  const b = call.result as CallResult;
  return sameDeep(a.returned, b.returned) && a.returnedParam === b.returnedParam && sameDeep(a.params, b.params) && sameDeep(a.meetings, b.meetings) &&
    sameDeep(a.selfWrites, b.selfWrites) && sameDeep(run.recording.writes, call.recording.writes) && sameDeep(run.recording.noted, call.recording.noted) && keepable(run.recording);
}

function readsLiveBatch(recording: Recording): boolean {
  for (const { read, value } of recording.reads.values()) if (read.kind === 'liveGlobal' && value && holdsBatch([value as Value])) return true;
  return false;
}
