// What expression evaluation and statement execution share during one round.
import type { Node } from '../python/pyNode';
import type { Checker } from './checker';
import type { Frame, Summaries } from './frame';
import type { Program } from './program';
import type { Value } from './values';

export interface RoundContext {
  program: Program;
  /** Summaries from the previous round: what call sites passed, what functions returned. */
  previous: Summaries;
  /** Summaries being gathered in this round, for the next one. */
  next: Summaries;
  checker: Checker;
  /** Rules report only in the final round. */
  final: boolean;
  /** Binds `value` to an assignment target (identifier, attribute, pattern). */
  assign(frame: Frame, target: Node, value: Value): void;
}

/** Deeply nested input (thousands of parentheses) stops being interpreted past this depth. */
export const MAX_EXPRESSION_DEPTH = 200;
