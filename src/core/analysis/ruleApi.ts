// What a rule sees: the events the interpreter emits while it runs a round, and the host
// a rule reports through. A rule is one file under rules/ exporting a `Rule` factory; it
// subscribes to the events it needs and keeps its own state. This file is a leaf of the
// analysis graph (types only, nothing here imports the dispatcher or the rules), so rules
// can import it without a cycle.
import type { Node } from '../python/pyNode';
import type { DeviceChoice } from './deviceChoice';
import type { Frame } from './frame';
import type { ClassInfo, FunctionInfo, Program } from './program';
import type { RelatedLocation, RuleCode, Severity, UnitFinding } from './types';
import type { Arg, Kind, LoaderLoop, Located, Place, Value } from './values';

/**
 * What a rule may read of the scope an event happened in. The engine's Frame has more
 * (its environment's history, call-site capture, the replay tape); rules see only this.
 */
export type RuleFrame = Readonly<Pick<Frame, 'unit' | 'id' | 'fn' | 'env' | 'scopeNode' | 'outer' | 'names' | 'noGrad' | 'loops' | 'deviceAware' | 'acceleratorOnly' | 'tests'>>;

/**
 * How a tensor reaches NumPy: `.numpy()` (method), `np.asarray(t)` (function), each tensor of a
 * list (elements), or one of several array arguments (`roc_curve(y, scores)`: reported at that
 * argument, so each gets its own finding and fix).
 */
export type NumpyConversionStyle = 'method' | 'function' | 'elements' | 'argument';

/** What a rule may read of the whole program: its units, imports, classes and functions. */
export type ProgramView = Pick<Program, 'importsAt' | 'units' | 'classes' | 'modules' | 'topFunctions' | 'methodOf' | 'isNotebook' | 'functionDefinedBy' | 'classLineage' | 'member' | 'inAnalysedFile' | 'ownsMoveMethod'>;

export type { ClassInfo, DeviceChoice, FunctionInfo };

/**
 * A model or loss reached by tensors ("consumer": a batch that reaches one is the loop's
 * fault, DD002), a CPU tensor indexed by accelerator indices ("index"), or any other tensor
 * operation ("op").
 */
export type OperationRole = 'consumer' | 'op' | 'index';

/** What the interpreter emits. Events arrive in evaluation order, the frame first. */
export interface EngineEvents {
  /** `model(x)`: a value that is, or may be, a module is called with these tensor arguments. */
  moduleCall(frame: RuleFrame, call: Node, calleeNode: Node, callee: Value, args: Arg[]): void;
  /** Tensors meet in one operation (operator, torch function, elementwise method, loss). */
  tensorOperation(frame: RuleFrame, node: Node, args: Arg[], role: OperationRole): void;
  /** Values passed to a model, loss or torch function: batch elements among them are used. */
  tensorsReachConsumer(frame: RuleFrame, args: Arg[]): void;
  /** `t.numpy()` (method), `np.array(t)` (function) on `recv`, or `np.mean(losses)` on each tensor of a list (elements). */
  numpyConversion(frame: RuleFrame, call: Node, recvNode: Node, recv: Value, style: NumpyConversionStyle): void;
  /** An expression statement `x.to(...)` / `.cuda()` / `.cpu()` whose result is thrown away. */
  discardedMove(frame: RuleFrame, call: Node, recvNode: Node, recv: Value, kind: Kind): void;
  /** A loop over a data loader ran both passes; its batch values are out of scope now. */
  loopFinished(frame: RuleFrame, loop: LoaderLoop): void;
  /**
   * `helper(x)`: interpreted for this call, the function used its parameter `arg` (here
   * on the CPU) with `other`, which is (or may be) on an accelerator, at `inside`.
   * `module` is the called module when the function is its forward (`model(x)`).
   */
  argumentMeetsAccelerator(frame: RuleFrame, call: Node, arg: Arg, other: Arg, inside: Located, module?: Arg): void;
  /**
   * `total += x` (`statement` the augmented assignment) or `items.append(x)` on a list the
   * program built (`statement` the call): `added` joins what `target` holds, a value that
   * outlives the statement (DD009).
   */
  valueAccumulated(frame: RuleFrame, statement: Node, target: Node, added: Arg, style: 'add' | 'append'): void;
  /** `x.to(...)` / `x.cuda()` / `x.cpu()` on `recv` (any kind), towards `to` (untracked for a dtype cast). */
  valueMoved(frame: RuleFrame, call: Node, recvNode: Node, recv: Value, to: Place): void;
  /** `with expr:` (each item of the statement): `qualified` is the callee's (or name's) qualified name, when known. */
  contextEntered(frame: RuleFrame, expr: Node, qualified: string | undefined): void;
  /**
   * Any call the interpreter evaluates, before its arguments: `qualified` is its callee
   * resolved through the imports (`torch.cuda.synchronize`, `torch.nn.DataParallel`), or
   * undefined for a method or local callee (`.cuda()`, `model(x)`). For rules that judge a
   * call by the API it names rather than by the values it meets.
   */
  call(frame: RuleFrame, call: Node, qualified: string | undefined): void;
}

/**
 * What one rule hands to another, so that no rule reads another's state. Emitted through
 * `RuleHost.emit`; delivered like engine events, to every rule that subscribes.
 */
export interface RuleEvents {
  /**
   * A batch element of a loop now running, still on the CPU, reached a model or loss that
   * is (or, in a device-aware function, may be) on an accelerator. DD001 leaves these to
   * DD002, which fixes the whole loop at once.
   */
  batchReachedAccelerator(frame: RuleFrame, batch: Arg, consumer: Arg): void;
}

export type AnalysisEvents = EngineEvents & RuleEvents;

/** Every event by name: the dispatcher forwards exactly these (the type makes the list complete). */
export const EVENT_NAMES: Readonly<Record<keyof AnalysisEvents, true>> = {
  moduleCall: true,
  tensorOperation: true,
  tensorsReachConsumer: true,
  numpyConversion: true,
  discardedMove: true,
  loopFinished: true,
  argumentMeetsAccelerator: true,
  valueAccumulated: true,
  valueMoved: true,
  contextEntered: true,
  call: true,
  batchReachedAccelerator: true,
};

export type { UnitFinding } from './types';

/**
 * What a rule may use. The dispatcher delivers events only in the final round and outside
 * a loop's first (state-gathering) pass, so a rule never checks that itself.
 */
export interface RuleHost {
  readonly program: ProgramView;
  report(finding: UnitFinding): void;
  /** A related location for a finding ("moved to device here"), or none when `loc` is unknown. */
  related(loc: Located | undefined, message: string): RelatedLocation[];
  severityOf(code: RuleCode): Severity;
  /** How the program chooses its device: availability checks, options, CUDA-only imports. */
  deviceChoice(): DeviceChoice;
  /**
   * A fact of the program's whole text, computed once per program by `compute` (which may
   * read the whole program); unlike reading the program directly, a run that uses it can be
   * replayed after an edit that leaves the fact the same (programFacts.ts).
   */
  programFact<T>(key: string, compute: (program: ProgramView, deviceChoice: DeviceChoice) => T): T;
  /** Events for other rules. */
  readonly emit: RuleEvents;
  /** The PyTorch version the code runs with ("2.6.0"), when the front end knows it (AnalyzeOptions.torchVersion). */
  readonly torchVersion?: string;
}

/** A rule: called once per interpretation round, returns the handlers of the events it subscribes to. */
export type Rule = (host: RuleHost) => Partial<AnalysisEvents>;

/** Shared with the engine's placeless test: a kept attribute read only as a number is no module (numberAttributes.ts). */
export { keptOnlyAsNumber } from './numberAttributes';
