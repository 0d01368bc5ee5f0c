// Batch elements of the loader loops now running: DD001 leaves them to DD002, which
// records them; both must agree on which values those are.
import type { RuleFrame as Frame } from '../../ruleApi';
import type { Value } from '../../values';

/** The batch this value is an element of, when its loop is one the frame is running. */
export function runningBatch(frame: Frame, v: Value): NonNullable<Value['batch']> | undefined {
  const b = v.batch;
  return b && frame.loops.includes(b.loop) ? b : undefined;
}
