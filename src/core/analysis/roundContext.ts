// What expression evaluation and statement execution share during one round.
import type { Node } from '../python/pyNode';
import type { Frame, Summaries } from './frame';
import type { CallResult } from './callContexts';
import type { ClassInfo, FunctionInfo, Program } from './program';
import type { AnalysisEvents, OperationRole } from './ruleApi';
import type { Arg, Value } from './values';
import type { BodyFact } from './bodyFacts';
import type { FactCompute } from './programFacts';
import type { WorldState } from './world';

export interface RoundContext {
  program: Program;
  /** Summaries from the previous round: what call sites passed, what functions returned. */
  previous: Summaries;
  /** Summaries being gathered in this round, for the next one. */
  next: Summaries;
  /** The device world this round interprets the program in (world.ts). */
  world: WorldState;
  /** Where evaluation reports what the rules look at; the dispatcher decides who hears it. */
  events: AnalysisEvents;
  /** A module-level variable of a module of the program (its final state), for importers. */
  moduleValue(module: number, name: string): Value | undefined;
  /** A top-level function of the program handed to a call in module code: it is taken to run there, with the globals of that moment. */
  callbackPassed(fn: FunctionInfo): void;
  /** What `fn` does when called with these parameter values; undefined when it cannot say (recursion, depth). */
  callInContext(fn: FunctionInfo, args: ReadonlyMap<string, Value>, caller?: Frame, call?: Node): CallResult | undefined;
  /** A fact of another function's text (bodyFacts.ts; a taped read: runCache.ts). */
  bodyFact(fn: FunctionInfo, fact: BodyFact): boolean | string;
  /** The class, its facts from the program's build (isModule, placeless, ...) taped as read (program.ts classFactsOf). */
  classFacts(cls: ClassInfo): ClassInfo;
  /** A fact of the whole program's text (programFacts.ts; a taped read, like bodyFact). */
  programFact<T>(key: string, compute: FactCompute<T>): T;
  /** Binds `value` to an assignment target (identifier, attribute, pattern). */
  assign(frame: Frame, target: Node, value: Value): void;
}

/** Expression evaluation as calls.ts uses it; Expressions implements it (an interface, so calls.ts and expressions.ts do not import each other). */
export interface Evaluator {
  eval(frame: Frame, node: Node): Value;
  /** `obj.attr` with `obj` already evaluated to `recv`. */
  attributeOn(frame: Frame, node: Node, recv: Value | undefined): Value;
  /** A torch function, an operator or a parameterless module over tensor arguments. */
  tensorOperation(frame: Frame, node: Node, args: Arg[], role?: OperationRole): Value;
}

/** Deeply nested input (thousands of parentheses) stops being interpreted past this depth. */
export const MAX_EXPRESSION_DEPTH = 200;
