// The abstract values of ANALYZER.md: what a Python value is (kind), where it lives
// (place, a set over {cpu, accel}) and whether it carries autograd history (grad).
import type { Node } from '../python/pyNode';
import { legacyConstructorPlace } from './torchApi';

/** A set over {cpu, accel} as a bitmask; 0 means "not tracked": rules stay silent. */
export type Place = 0 | 1 | 2 | 3;
export const UNTRACKED: Place = 0;
export const CPU: Place = 1;
export const ACCEL: Place = 2;
export const EITHER: Place = 3;

export type Kind = 'tensor' | 'module' | 'optimizer' | 'loader' | 'device' | 'other' | 'unknown';
export type Grad = 'yes' | 'no' | 'unknown';

/** A syntax node together with the unit (file, or notebook cell) it belongs to. */
export interface Located {
  unit: number;
  node: Node;
}

/** Where a value's place was established, and the step before it (a model's output comes from the model, which was moved). */
export interface Origin extends Located {
  what: string;
  /** The earlier step, its `what` naming its subject (`model` moved to device here). */
  from?: Origin;
}

/** An expression node with its abstract value: a call's argument, an operation's operand. */
export interface Arg {
  node: Node;
  value: Value;
}

/** A `for` loop over a data loader, shared by the batch values it yields (DD002). */
export interface LoaderLoop extends Located {
  loaderText: string;
  /** Loop target names holding batch tensors, in source order. */
  targets: string[];
  /** Where the loader was created (its `DataLoader(...)` call), when the program shows it. */
  created?: Located;
}

export interface CpuBranch extends Located {
  /** How the branch reads in a message: "when `args.model == \"mlp\"`", "when `pretrained` is false". */
  what: string;
  /** The value on that path. */
  value: Value;
  /** The undecided tests that path takes, by their text, and their outcome there. */
  tests?: readonly PathTest[];
  /** Every path of the join that binds the value, with its tests, and whether it leaves the value on the CPU. */
  paths?: readonly JoinedPath[];
}

/** One path of an undecided `if`, as a joined value remembers it (Value.cpuWhen). */
export interface JoinedPath {
  tests: readonly PathTest[];
  value: Value;
  onCpu: boolean;
}

/** An `if`/`elif` test the world does not decide, by its text, and its outcome on one path. */
export interface PathTest {
  text: string;
  truth: boolean;
}

export interface Value {
  kind: Kind;
  place: Place;
  grad: Grad;
  /** A 0-dim tensor (a scalar literal's, a full reduction's, a reducing loss's): may legally meet tensors elsewhere. */
  scalar?: boolean;
  /**
   * Where an `if` leaves this value on the CPU while its other paths put it on an accelerator
   * (`if args.model == "mlp": model = MLP()` / `else: model = CNN().to(device)`): that path's
   * value, and the branch that takes it (branchPlaces.ts).
   */
  cpuWhen?: CpuBranch;
  /** A 1-dim tensor (`torch.linspace(...)`, `torch.tensor([1.0, 2.0])`): `t[i]` with an integer `i` is 0-dim. */
  oneDim?: boolean;
  /** A Python or NumPy number, one element and no array (`0.01`, `np.log(0.01)`, `math.sqrt(d)`): `torch.tensor` of it is 0-dim. */
  number?: boolean;
  /** A Python int (`3`, `int(os.environ["LOCAL_RANK"])`, a parameter annotated `int`): as a device, an accelerator's ordinal. */
  integer?: boolean;
  /**
   * A NumPy array (`t.cpu().numpy()`, a slice of one): no tensor. A module called with one
   * computes with NumPy (a statistical baseline behind `nn.Module`) or raises, so its output
   * is no tensor where the module is.
   */
  ndarray?: boolean;
  /** A module without parameters (loss, activation): has no place of its own. */
  placeless?: boolean;
  /**
   * The torch.nn classes a module may have been built from (`torch.nn.CTCLoss`), for what its
   * call takes (torchApi.ts ANY_DEVICE_ARGUMENTS). A join keeps every class either side may be.
   */
  torchClasses?: readonly string[];
  /** A loss that reduces its inputs to one number (torchApi.ts lossReturnsScalar): its call gives a 0-dim tensor. */
  scalarOutput?: boolean;
  /** DataParallel / DistributedDataParallel: scatters its inputs to its devices itself. */
  movesInputs?: boolean;
  /** A Hugging Face pipeline: its component models (`pipe.unet`, `pipe.vae`) are plain modules where it is (frameworkNames.ts). */
  pipeline?: boolean;
  /**
   * `movesInputs` only because the paths that did not wrap it left the plain module on the
   * CPU (`net = Net(); if multi_gpu: net = nn.DataParallel(net)`): moving it (`net.to(device)`)
   * puts that plain module on the device, and then its inputs must follow.
   */
  plainOnCpu?: boolean;
  /**
   * A module that is such a wrapper on some paths only (`if dev.type == "cuda": net =
   * nn.DataParallel(net).cuda()`): its inputs must be on `place` (the plain module's: the
   * wrapper takes any), its outputs may be here (both paths' places).
   */
  outputPlace?: Place;
  /** A module whose output need not carry a graph (a torchmetrics metric): its output's grad is not known. */
  gradlessOutput?: boolean;
  /**
   * A module whose tensors are buffers only (torchaudio's Spectrogram, Resample, MFCC, ...):
   * it is where it was built, but makes no graph of its own; its output needs grad only where
   * an input does.
   */
  noParameters?: boolean;
  /** Source text of the device this value was placed with (`device`, `"cuda"`), for fixes. */
  deviceText?: string;
  /** Where the place was established: the `.to()` call, the factory, the model call. */
  origin?: Origin;
  /** Created by a torch factory that accepts `device=` (DD001's preferred fix). */
  factory?: Located & { scope: number };
  /**
   * A batch element yielded by a loader loop and not moved since. `mayBeObject`: the loop's
   * whole element, of a loader whose collation the program does not show to be torch's default.
   */
  batch?: { loop: LoaderLoop; name: string; container?: 'dict' | 'list'; mayBeObject?: true };
  /** Elements of a tuple or list display, for unpacking. */
  elements?: Value[];
  /**
   * What every element of a container of unknown length or keys is: a list grown with
   * `append`, a dict built by a comprehension (`{k: v.to(device) for k, v in batch.items()}`).
   */
  anyElement?: Value;
  /** A dict's values by string key (`{"x": t}`, `batch["x"] = t`). */
  entries?: Map<string, Value>;
  /**
   * Attributes module or function code set on a plain object (`config.device = device`,
   * `args.device = ...`): they travel with it into the functions and instances that keep it
   * (`self.config.device` in a runner built with `config`).
   */
  attrs?: ReadonlyMap<string, Value>;
  /**
   * A graph batch (torch_geometric's Data/Batch from one of its loaders, torchApi.ts
   * GRAPH_LOADER): its attributes are its tensors, where it is; `.to()` moves it in place.
   */
  graph?: boolean;
  /** An instance of a class defined in the analysed program. */
  className?: string;
  /**
   * A module that is an instance of one of these classes of the program, chosen at run time
   * (`Tagger() if tags else Classifier()`); on a class reference (`buildsModule`), the classes it may be.
   */
  classChoices?: readonly string[];
  /** A `def` of the program, by FunctionInfo id: what a call of this name runs at this point. */
  functionId?: number;
  /** Several `def`s, one chosen at run time (`create_net = create_vgg if vgg else create_lite`): a call runs each. */
  functionChoices?: readonly number[];
  /**
   * `lambda t: t.to(device)`: the lambda expressions this may be (several after a join, as a
   * dict of them read at an unknown key), and the scope whose variables their bodies read:
   * the frame that evaluated them (`scope`), or module level (`moduleLevel`).
   */
  lambdas?: { nodes: readonly Node[]; scope: number; moduleLevel: boolean };
  /** A `class` of the program (the class object, not an instance), by ClassInfo key. */
  classKey?: string;
  /**
   * This value is parameter `param` of a function interpreted for one call site: a CPU
   * tensor it passes that meets an accelerator inside is reported at that call's argument.
   */
  param?: string;
  /**
   * A framework object that places what it is given (an `Accelerator`, a `Fabric`), or a
   * loader whose batches it places: the framework's device (frameworks.ts).
   */
  placedBy?: PlacedBy;
  /**
   * A loader over rows of tensor columns some of which the program placed
   * (`TensorDataset(x, y.to(d))`): per column, where its part of each batch is (undefined: the CPU).
   */
  columnsPlacedBy?: ReadonlyArray<PlacedBy | undefined>;
  /** A loader wrapped in `enumerate` (`pbar = tqdm(enumerate(loader))`): each item is an index and a batch. */
  enumerated?: boolean;
  /** A keyword dict holding `device=` (`dict(device=d)`, `{"device": d}`), passed on by `**`. */
  kwargsDevice?: { place: Place; text: string };
  /** The value `None` (a `device=None` parameter no caller sets is the default device). */
  isNone?: boolean;
  /** A tensor on one path and None on another (`out = None` before a loop that sets it): `x is None` is not decided. */
  mayBeNone?: boolean;
  /**
   * What an operation that raises returned (tensors on two devices meeting): no run gets past
   * it, so whatever is computed from it is not tracked either, and nothing downstream is a
   * second finding of the same mistake (a CPU model's next layer would otherwise put it "on
   * the CPU", to meet the GPU targets).
   */
  raised?: boolean;
  /** Its truth in the world being interpreted (world.ts): `torch.cuda.is_available()`, a device flag, `x.is_cuda`. */
  truth?: boolean;
  /** That truth is a literal's (`True`, `False`) bound to a name: a device flag the world varies overrides it. */
  literalTruth?: boolean;
  /** That truth may differ between a world with an accelerator and one without (not only a flag's). */
  truthByAccelerator?: boolean;
  /** A submodule read from outside its instance (`model.encoder`): its `factory` is the instance's, which a move takes with it. */
  submoduleOfFactory?: boolean;
  /** That truth is the one-device assumption's (world.ts oneDeviceComparison): the other branch only a multi-device run takes. */
  truthByOneDevice?: boolean;
  /**
   * The truth at which the run uses an accelerator, for a device flag the world decides:
   * true for `args.cuda`, false for `args.no_cuda` or `args.cpu` (and flipped by `not`).
   */
  acceleratorWhen?: boolean;
  /**
   * A module class of the program named as a value (`Net`, `MODELS["net"]`, `ARCHS[args.arch]`):
   * calling it builds a module on the CPU, of the class `classKey` names while one is known
   * (a join of several classes keeps this mark and no key, and lists them in `classChoices`).
   */
  buildsModule?: boolean;
  /** A transform whose call returns a new CPU tensor (`transforms.ToTensor()`, a Compose holding one). */
  makesCpuTensor?: boolean;
  /**
   * A legacy tensor type (`torch.cuda.FloatTensor`, `torch.FloatTensor`) held as a value: where
   * `x.type(T)` puts x. A name bound to one or the other per branch joins both places.
   */
  tensorType?: Place;
  /** An `nn.Parameter`: assigned to a module's attribute, it moves with the module. */
  parameter?: boolean;
  /** A torch.distributions object (`Categorical(logits=x)`): its samples and log-probabilities are where its parameters are. */
  distribution?: boolean;
  /**
   * An instance of another library's class (`bnb.nn.Params4bit(...)`): its `.cuda()` may do
   * what torch's does not (quantize in place), so how the scope uses the name is no evidence.
   */
  foreign?: boolean;
  /**
   * The modules this module was given and keeps as submodules (`self.model = model` in its
   * `__init__`): the very values its construction received, which move when it moves.
   */
  holds?: readonly Value[];
  /**
   * Not known yet: an attribute the class's methods assign, read before a round summarised
   * it. Nothing is guessed from it (no "may be an accelerator"), and a join ignores it: what
   * the next round knows replaces it, rather than a first-round guess travelling down a chain of calls.
   */
  pending?: boolean;
  /**
   * An `nn.Sequential()` or `nn.ModuleList()` built empty and not filled since: moving it
   * moves nothing, and the layers added later (`add_module`, `append`) stay where they are made.
   */
  emptyContainer?: boolean;
}

/** Who places a value, on which device, and how code names that device (`fabric.device`). */
export interface PlacedBy {
  framework: string;
  place: Place;
  deviceText: string;
}

export const UNKNOWN: Value = Object.freeze({ kind: 'unknown', place: UNTRACKED, grad: 'unknown' }) as Value;
export const PENDING: Value = Object.freeze({ kind: 'unknown', place: UNTRACKED, grad: 'unknown', pending: true }) as Value;
export const OTHER: Value = Object.freeze({ kind: 'other', place: UNTRACKED, grad: 'unknown' }) as Value;
/** A Python int whose value is not followed: `x.to(rank)` with it is the accelerator `rank`. */
export const INTEGER: Value = Object.freeze({ kind: 'other', place: UNTRACKED, grad: 'unknown', integer: true, number: true }) as Value;
/** A Python or NumPy number that is not (known to be) an int: see `Value.number`. */
export const NUMBER: Value = Object.freeze({ kind: 'other', place: UNTRACKED, grad: 'unknown', number: true }) as Value;
/** A NumPy array: see `Value.ndarray`. */
export const NDARRAY: Value = Object.freeze({ kind: 'other', place: UNTRACKED, grad: 'unknown', ndarray: true }) as Value;
export const NONE: Value = Object.freeze({ kind: 'other', place: UNTRACKED, grad: 'unknown', isNone: true }) as Value;

export function value(kind: Kind, place: Place = UNTRACKED, extra: Partial<Value> = {}): Value {
  return { kind, place, grad: 'unknown', ...extra };
}

/** The output of an operation that raises, or of one given such an output (Value.raised). */
export function raisedResult(noGrad: boolean): Value {
  return value('tensor', UNTRACKED, { grad: noGrad ? 'no' : 'unknown', raised: true });
}

export function hasAccel(place: Place): boolean {
  return (place & ACCEL) !== 0;
}

export function isExactlyCpu(place: Place): boolean {
  return place === CPU;
}

export function placeName(place: Place): string {
  switch (place) {
    case CPU: return 'the CPU';
    case ACCEL: return 'an accelerator';
    case EITHER: return 'the CPU or an accelerator, depending on the run';
    default: return 'an unknown device';
  }
}

/** Can this value take part in a tensor operation (as operand or as a called module)? */
export function isTensorLike(v: Value): boolean {
  return v.kind === 'tensor' || v.kind === 'module' || (v.kind === 'unknown' && v.place !== UNTRACKED);
}

/** The value of an operation's result: the place all tensors share, grad if any has it. */
export function resultOf(tensors: Arg[], noGrad: boolean): Value {
  if (tensors.some((t) => t.value.raised)) return raisedResult(noGrad);
  let place: Place = UNTRACKED;
  let untracked = false;
  for (const t of tensors) {
    if (t.value.scalar) continue;
    if (t.value.place === UNTRACKED) untracked = true;
    place = (place | t.value.place) as Place;
  }
  if (untracked) place = UNTRACKED;
  if (place === UNTRACKED && tensors.every((t) => t.value.scalar)) place = tensors[0].value.place;
  const grads = tensors.map((t) => t.value.grad);
  const grad: Grad = noGrad ? 'no' : grads.includes('yes') ? 'yes' : grads.every((g) => g === 'no') ? 'no' : 'unknown';
  const accelSide = tensors.find((t) => hasAccel(t.value.place) && !t.value.scalar)?.value;
  // `h = x * 2` of a CPU parameter x (and numbers) is where x is: a caller moving x moves h.
  const operands = tensors.filter((t) => !t.value.scalar);
  const param = place === CPU && operands.length > 0 && operands.every((t) => t.value.param && t.value.param === operands[0].value.param)
    ? operands[0].value.param : undefined;
  // `torch.triu(torch.ones(n, n))`: a function of one tensor comes from where that tensor
  // was created, so a finding on the result can point at (and fix) that factory.
  const only = tensors.length === 1 ? tensors[0].value.origin : undefined;
  return value('tensor', place, { grad, deviceText: accelSide?.deviceText, origin: accelSide?.origin ?? only, param });
}

/**
 * None or a plain number/string (no class, no contents): what an accumulator or a result
 * holds before the loop or branch that makes it a tensor (`total = 0`, `out = None`).
 */
function isPlaceholder(v: Value): boolean {
  return v.kind === 'other' && v.place === UNTRACKED && !v.className && v.functionId === undefined && !v.classKey &&
    !v.elements && !v.entries && !v.anyElement && !v.placedBy && !v.kwargsDevice && v.truth === undefined && v.tensorType === undefined;
}

/** Where a module's outputs are: its own place, unless it is a wrapper on some paths only. */
export function outputPlaceOf(module: Value): Place {
  return module.outputPlace ?? module.place;
}

/** Join at a control-flow merge: the least value describing both paths. */
export function joinValues(a: Value, b: Value): Value {
  if (a === b || b.pending) return a;
  if (a.pending) return b;
  // `device=None`, then on a path `device = next(net.parameters()).device` of a CPU model:
  // `x.to(None)` leaves a CPU batch where it is, so either way `x.to(device)` is on the CPU.
  if (a.isNone && b.kind === 'device' && b.place === CPU) return { ...b, mayBeNone: true };
  if (b.isNone && a.kind === 'device' && a.place === CPU) return { ...a, mayBeNone: true };
  // `total = 0` / `out = None`, then a loop or branch makes it a tensor: where it is used as
  // a tensor after the merge it is that tensor (None or a number would fail or be harmless there).
  if (isPlaceholder(a) && b.kind === 'tensor' && b.place !== UNTRACKED) return { ...b, mayBeNone: b.mayBeNone || a.isNone || undefined };
  if (isPlaceholder(b) && a.kind === 'tensor' && a.place !== UNTRACKED) return { ...a, mayBeNone: a.mayBeNone || b.isNone || undefined };
  const place: Place = a.place === UNTRACKED || b.place === UNTRACKED ? UNTRACKED : ((a.place | b.place) as Place);
  const accelSide = hasAccel(b.place) && !hasAccel(a.place) ? b : a;
  const joined: Value = {
    kind: a.kind === b.kind ? a.kind : 'unknown',
    place,
    grad: a.grad === b.grad ? a.grad : 'unknown',
    deviceText: accelSide.deviceText ?? a.deviceText ?? b.deviceText,
    origin: accelSide.origin ?? a.origin ?? b.origin,
  };
  if (a.scalar && b.scalar) joined.scalar = true;
  if (a.integer && b.integer) joined.integer = true;
  if (a.number && b.number) joined.number = true;
  if (a.oneDim && b.oneDim) joined.oneDim = true;
  if (a.cpuWhen && a.cpuWhen.node === b.cpuWhen?.node) joined.cpuWhen = a.cpuWhen;
  if (a.torchClasses || b.torchClasses) joined.torchClasses = [...new Set([...(a.torchClasses ?? []), ...(b.torchClasses ?? [])])];
  if (a.placeless && b.placeless) joined.placeless = true;
  if (a.pipeline && b.pipeline) joined.pipeline = true;
  if (a.movesInputs && b.movesInputs) {
    joined.movesInputs = true;
    if (a.plainOnCpu || b.plainOnCpu) joined.plainOnCpu = true;
  }
  else if (a.kind === 'module' && b.kind === 'module' && (a.movesInputs || b.movesInputs)) {
    const [plain, wrapper] = a.movesInputs ? [b, a] : [a, b];
    joined.place = plain.place;
    // A plain module left on the CPU fails only for accelerator inputs, and only on its own
    // paths, which the code may never take with them (a model rebuilt unmoved for export):
    // like the wrapper, it is reported for no input.
    if (plain.place === CPU) {
      joined.movesInputs = true;
      joined.plainOnCpu = true;
    }
    // The plain module's inputs are the ones that can fail: say where it got its place.
    joined.origin = plain.origin ?? joined.origin;
    joined.deviceText = plain.deviceText ?? joined.deviceText;
    joined.outputPlace = outputPlaceOf(plain) === UNTRACKED || outputPlaceOf(wrapper) === UNTRACKED
      ? UNTRACKED : ((outputPlaceOf(plain) | outputPlaceOf(wrapper)) as Place);
  } else if (a.kind === 'module' && b.kind === 'module' && (a.outputPlace !== undefined || b.outputPlace !== undefined)) {
    // Still a wrapper on some paths when a third path adds another plain module (DDP, a GPU, DataParallel).
    joined.outputPlace = outputPlaceOf(a) === UNTRACKED || outputPlaceOf(b) === UNTRACKED ? UNTRACKED : ((outputPlaceOf(a) | outputPlaceOf(b)) as Place);
  }
  if (a.gradlessOutput && b.gradlessOutput) joined.gradlessOutput = true;
  if (a.noParameters && b.noParameters) joined.noParameters = true;
  if (a.scalarOutput && b.scalarOutput) joined.scalarOutput = true;
  if (a.factory && b.factory && a.factory.node.id === b.factory.node.id) joined.factory = a.factory;
  if (a.batch && b.batch && a.batch.loop === b.batch.loop && a.batch.name === b.batch.name) joined.batch = a.batch;
  if (a.className && a.className === b.className) joined.className = a.className;
  else if (a.kind === 'module' && b.kind === 'module' && programClassesOf(a).length && programClassesOf(b).length) {
    joined.classChoices = [...new Set([...programClassesOf(a), ...programClassesOf(b)])];
  }
  if (isCallable(a) && isCallable(b)) joinCallables(joined, a, b);
  if (a.classKey && a.classKey === b.classKey) joined.classKey = a.classKey;
  // `{"informer": Informer, "stack": InformerStack}[name]`: one of these classes, chosen at run time.
  else if (a.buildsModule && b.buildsModule) joined.classChoices = [...new Set([...classKeysOf(a), ...classKeysOf(b)])];
  if (a.placedBy && b.placedBy && a.placedBy.framework === b.placedBy.framework) {
    joined.placedBy = { ...a.placedBy, place: (a.placedBy.place | b.placedBy.place) as Place };
  }
  // A loader on one path and a value the analysis knows nothing of on the other (a library's
  // `make_private(data_loader=...)` handing back its own loader over the same dataset): the
  // columns are where the known loader puts them.
  if (a.columnsPlacedBy && (b.columnsPlacedBy ? columnPlaces(a) === columnPlaces(b) : saysNothing(b))) joined.columnsPlacedBy = a.columnsPlacedBy;
  else if (b.columnsPlacedBy && saysNothing(a)) joined.columnsPlacedBy = b.columnsPlacedBy;
  // A loop over the join binds its targets one way: an enumerated loader joined with a plain one is neither.
  if (a.enumerated && b.enumerated) joined.enumerated = true;
  else if (joined.kind === 'loader' && (a.enumerated || b.enumerated)) joined.kind = 'unknown';
  if (a.kwargsDevice && b.kwargsDevice) joined.kwargsDevice = { ...a.kwargsDevice, place: (a.kwargsDevice.place | b.kwargsDevice.place) as Place };
  if (a.isNone && b.isNone) joined.isNone = true;
  if (a.mayBeNone || b.mayBeNone) joined.mayBeNone = true;
  if (a.raised && b.raised) joined.raised = true;
  if (a.truth !== undefined && a.truth === b.truth) {
    joined.truth = a.truth;
    if (a.truthByAccelerator || b.truthByAccelerator) joined.truthByAccelerator = true;
    if (a.truthByOneDevice || b.truthByOneDevice) joined.truthByOneDevice = true;
    if (a.acceleratorWhen !== undefined && a.acceleratorWhen === b.acceleratorWhen) joined.acceleratorWhen = a.acceleratorWhen;
    if (a.literalTruth && b.literalTruth) joined.literalTruth = true;
  }
  if (a.buildsModule && b.buildsModule) joined.buildsModule = true;
  if (a.parameter && b.parameter) joined.parameter = true;
  if (a.distribution && b.distribution) joined.distribution = true;
  if (a.makesCpuTensor && b.makesCpuTensor) joined.makesCpuTensor = true;
  if (a.tensorType !== undefined && b.tensorType !== undefined) joined.tensorType = (a.tensorType | b.tensorType) as Place;
  if (a.elements && b.elements && a.elements.length === b.elements.length) {
    joined.elements = a.elements.map((e, i) => joinValues(e, b.elements![i]));
  }
  // A list before and after appending to it in a loop: it holds what was appended.
  // Two dicts whose keys are written out (`best = {"epoch": 0, "loss": 0}` before a loop and
  // after `best["loss"] = loss`): still a dict of those keys, each the join of what the paths
  // put there; a key only one path sets holds what that path put (reading it on the other
  // raises KeyError). Folding them into "any element" made `best["epoch"]` the loss tensor.
  const dicts = !!a.entries && !!b.entries && !a.elements && !b.elements && !a.anyElement && !b.anyElement;
  if (isContainer(a) && isContainer(b) && !dicts && !(joined.elements && !a.anyElement && !b.anyElement)) {
    const items = [...containedValues(a), ...containedValues(b)];
    if (items.length) joined.anyElement = items.reduce((x, y) => joinValues(x, y));
    else joined.elements = [];
  }
  if (a.attrs && b.attrs) {
    const attrs = new Map<string, Value>();
    for (const [k, v] of a.attrs) {
      const w = b.attrs.get(k);
      if (w) attrs.set(k, joinValues(v, w));
    }
    if (attrs.size) joined.attrs = attrs;
  }
  if (a.entries && b.entries) {
    joined.entries = new Map();
    for (const [k, v] of a.entries) {
      const w = b.entries.get(k);
      if (w) joined.entries.set(k, joinValues(v, w));
      else if (dicts) joined.entries.set(k, v);
    }
    if (dicts) for (const [k, w] of b.entries) if (!a.entries.has(k)) joined.entries.set(k, w);
  }
  return joined;
}

/** The program's classes a module value may be an instance of: its class, or the classes a join of instances chose between. */
export function programClassesOf(v: Value): readonly string[] {
  return v.className ? [v.className] : v.classChoices ?? [];
}

/** The program classes a class reference may be (`Net`, or a join of several). */
function classKeysOf(v: Value): readonly string[] {
  return v.classKey ? [v.classKey] : v.classChoices ?? [];
}

export function sameValue(a: Value | undefined, b: Value | undefined): boolean {
  if (a === b) return true;
  if (!a || !b) return false;
  return a.kind === b.kind && a.place === b.place && a.grad === b.grad && !!a.batch === !!b.batch &&
    a.deviceText === b.deviceText && a.className === b.className && a.classChoices?.join() === b.classChoices?.join() && !!a.isNone === !!b.isNone && !!a.mayBeNone === !!b.mayBeNone &&
    a.placedBy?.place === b.placedBy?.place && columnPlaces(a) === columnPlaces(b) && a.kwargsDevice?.place === b.kwargsDevice?.place && a.truth === b.truth && a.tensorType === b.tensorType &&
    !!a.scalarOutput === !!b.scalarOutput && !!a.noParameters === !!b.noParameters && !!a.movesInputs === !!b.movesInputs && !!a.plainOnCpu === !!b.plainOnCpu && a.outputPlace === b.outputPlace &&
    a.cpuWhen?.node === b.cpuWhen?.node && sameAttrs(a.attrs, b.attrs) && sameLambdas(a, b) && a.functionChoices?.join() === b.functionChoices?.join() &&
    sameItems(a, b);
}

/** A value that calls run: one of the program's functions, or lambdas. */
export function isCallable(v: Value): boolean {
  return v.functionId !== undefined || !!v.functionChoices || !!v.lambdas;
}

/** The functions and lambdas `a` or `b` may be: a call runs each (calls.ts callCallables). */
function joinCallables(joined: Value, a: Value, b: Value): void {
  const ids = [...new Set([...functionIdsOf(a), ...functionIdsOf(b)])];
  if (ids.length === 1) joined.functionId = ids[0];
  else if (ids.length > 1) joined.functionChoices = ids;
  const lambdaSides = [a.lambdas, b.lambdas].filter((l): l is NonNullable<Value['lambdas']> => !!l);
  // Lambdas of two scopes cannot be one value whose free names mean one thing: neither is kept.
  if (lambdaSides.length && lambdaSides.every((l) => l.scope === lambdaSides[0]!.scope)) {
    joined.lambdas = { ...lambdaSides[0]!, nodes: [...new Set(lambdaSides.flatMap((l) => l.nodes))] };
  } else if (lambdaSides.length) {
    joined.functionId = undefined;
    joined.functionChoices = undefined;
  }
}

export function functionIdsOf(v: Value): readonly number[] {
  return v.functionChoices ?? (v.functionId !== undefined ? [v.functionId] : []);
}

function sameLambdas(a: Value, b: Value): boolean {
  if (!a.lambdas || !b.lambdas) return !a.lambdas === !b.lambdas;
  return a.lambdas.scope === b.lambdas.scope && a.lambdas.nodes.length === b.lambdas.nodes.length && a.lambdas.nodes.every((n, i) => n === b.lambdas!.nodes[i]);
}

/** What a container holds: a list whose items moved between two rounds is another value. */
function sameItems(a: Value, b: Value): boolean {
  if (!sameValue(a.anyElement, b.anyElement) && (a.anyElement || b.anyElement)) return false;
  if (!a.elements || !b.elements) return !a.elements === !b.elements;
  return a.elements.length === b.elements.length && a.elements.every((e, i) => sameValue(e, b.elements![i]));
}

function sameAttrs(a: ReadonlyMap<string, Value> | undefined, b: ReadonlyMap<string, Value> | undefined): boolean {
  if (a === b) return true;
  if (!a || !b || a.size !== b.size) return false;
  for (const [k, v] of a) if (!sameValue(v, b.get(k))) return false;
  return true;
}

/** `xs + [t]`, `xs += [t]`: the list holding both sides' items (undefined unless both are lists or tuples). */
export function concatenated(a: Value, b: Value): Value | undefined {
  const sequence = (v: Value) => (v.elements !== undefined || v.anyElement !== undefined) && v.entries === undefined && !isTensorLike(v);
  if (!sequence(a) || !sequence(b)) return undefined;
  if (a.elements && b.elements && !a.anyElement && !b.anyElement) return value('other', UNTRACKED, { elements: [...a.elements, ...b.elements] });
  const items = [...containedValues(a), ...containedValues(b)];
  return value('other', UNTRACKED, items.length ? { anyElement: items.reduce((x, y) => joinValues(x, y)) } : { elements: [] });
}

export function isContainer(v: Value): boolean {
  return v.elements !== undefined || v.entries !== undefined || v.anyElement !== undefined;
}

/** Every value a container holds, as far as it is known (elements, entries, any element). */
export function containedValues(v: Value): Value[] {
  const out: Value[] = [...(v.elements ?? []), ...(v.entries?.values() ?? [])];
  if (v.anyElement) out.push(v.anyElement);
  return out;
}

// Where a CPU tensor meets an accelerator in one operation: the condition DD001 reports,
// and what the engine keeps of a call-site run (a parameter of a function interpreted for
// one call that meets an accelerator inside is reported at the caller's argument).

export interface Meeting {
  /** The operand exactly on the CPU. */
  cpu: Arg;
  /** What it meets: the module called, or a tensor operand on an accelerator. */
  other: Arg;
}

export function isCpuOperand(v: Value): boolean {
  return isExactlyCpu(v.place) && !v.scalar && v.kind !== 'module' && v.kind !== 'device';
}

/**
 * The accelerator operand a CPU operand meets: PyTorch lets only a 0-dim *CPU* tensor join
 * accelerator tensors, so a 0-dim accelerator one (`correct.sum()`) still meets a CPU
 * `torch.FloatTensor([n])`. A full-size operand exactly on the accelerator is named first.
 */
export function acceleratorSide(args: readonly Arg[]): Arg | undefined {
  const sides = args.filter((a) => hasAccel(a.value.place) && a.value.kind !== 'module');
  const rank = (a: Arg): number => (a.value.scalar ? 2 : 0) + (a.value.place === ACCEL ? 0 : 1);
  return sides.length ? sides.reduce((best, a) => (rank(a) < rank(best) ? a : best)) : undefined;
}

/** CPU operands meeting accelerator tensors in one operation (all against the same accelerator side). */
export function operationMeetings(args: readonly Arg[]): Meeting[] {
  const other = acceleratorSide(args);
  if (!other) return [];
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
  const input = acceleratorSide(args);
  return input ? { cpu: callee, other: input } : undefined;
}

/** `torch.cuda.FloatTensor` / `torch.LongTensor` read as a value (not called): a tensor type on its place. */
export function legacyTensorType(qualified: string): Value | undefined {
  const place = legacyConstructorPlace(qualified);
  if (!place) return undefined;
  return value('other', UNTRACKED, { tensorType: place === 'accel' ? ACCEL : CPU, deviceText: place === 'accel' ? '"cuda"' : '"cpu"' });
}

/** One row of `v` (`zip(a, b)` over tensors, a TensorDataset's item): a tensor where v is, or an item of a container. */
function rowOf(v: Value): Value {
  if (isTensorLike(v) && v.kind !== 'module') return { ...v, batch: undefined, factory: undefined, scalar: undefined, elements: undefined, anyElement: undefined };
  const items = v.entries ? [] : containedValues(v);
  return items.length ? items.reduce((a, b) => joinValues(a, b)) : UNKNOWN;
}

/** `zip(a, b)`, `TensorDataset(a, b)`: rows holding one row of each column. */
export function rowsOf(columns: readonly Value[]): Value {
  return value('other', UNTRACKED, { anyElement: value('other', UNTRACKED, { elements: columns.map(rowOf) }) });
}

/**
 * Where a DataLoader's default collation puts the batches of `dataset` when it is rows of
 * tensors the program placed (`TensorDataset(x.to(d), y.to(d))`, `list(zip(gpu_a, gpu_b))`):
 * stacking rows keeps their device, so the batches are already there. Undefined unless every
 * column is a tensor placed on a device (a CPU dataset's batches are to be moved).
 */
export function datasetPlacement(dataset: Value | undefined): PlacedBy | undefined {
  const columns = columnsOf(dataset);
  if (!columns?.length || columns.some((c) => (c.kind !== 'tensor' && c.kind !== 'unknown') || !placedColumn(c))) return undefined;
  // Columns that may be on an accelerator (a device chosen at run time) give batches that may be.
  const place = columns.some((c) => c.place === UNTRACKED) ? UNTRACKED : columns.reduce((p, c) => (p | c.place) as Place, 0 as Place);
  return { framework: 'dataset', place, deviceText: columns.find((c) => c.deviceText)?.deviceText ?? 'its device' };
}

/**
 * Per column of a dataset of rows, where the default collation puts that part of each batch,
 * when some columns but not all are tensors the program placed (`TensorDataset(x, y.to(d))`):
 * a loop unpacking the batch into as many names has the placed ones already there.
 */
export function datasetColumnPlacements(dataset: Value | undefined): Array<PlacedBy | undefined> | undefined {
  const columns = columnsOf(dataset);
  if (!columns || columns.length < 2 || columns.some((c) => c.kind !== 'tensor' && c.kind !== 'unknown')) return undefined;
  const placed = columns.map((c) => (placedColumn(c) ? { framework: 'dataset', place: c.place, deviceText: c.deviceText ?? 'its device' } : undefined));
  return placed.some((p) => p) && placed.some((p) => !p) ? placed : undefined;
}

/** The columns of a dataset of rows (`zip(a, b)`, `TensorDataset(a, b)`): one tensor, or each element of a row. */
function columnsOf(dataset: Value | undefined): readonly Value[] | undefined {
  const row = dataset?.kind === 'other' && !dataset.entries ? dataset.anyElement : undefined;
  return row && isTensorLike(row) ? [row] : row?.elements;
}

/**
 * A column on an accelerator, or moved to a device the analysis does not know (`t.to(device)`,
 * `device` from a star import), which is there as much as one known to be on an accelerator.
 */
function placedColumn(c: Value): boolean {
  return c.place === UNTRACKED ? c.deviceText !== undefined : hasAccel(c.place);
}

/** A value of unknown kind that says nothing of where anything is. */
function saysNothing(v: Value): boolean {
  return v.kind === 'unknown' && !v.className && !v.placedBy && !v.columnsPlacedBy;
}

/** The places of a loader's columns, as one comparable text. */
function columnPlaces(v: Value): string | undefined {
  return v.columnsPlacedBy?.map((p) => (p ? p.place : '-')).join(',');
}

/**
 * Whether the path being interpreted cannot be `branch`: it is inside an `if` on the same
 * test with the other outcome (a function that tests `args.model == "rnn"` again, as the
 * module code that built the model did).
 */
export function excludedByTests(branch: CpuBranch, tests: ReadonlyMap<string, boolean> | undefined): boolean {
  return !!branch.tests && !!tests && ruledOut(branch.tests, tests);
}

/**
 * Whether the path with tests `path` cannot be the one being interpreted, whose tests came
 * out as `tests`: one test came out the other way, or the path needs a name to equal a
 * literal while here it equals another (`args.model == "se3"` on a path, inside
 * `if args.model == "egnn":` here).
 */
function ruledOut(path: readonly PathTest[], tests: ReadonlyMap<string, boolean>): boolean {
  return path.some((t) => {
    const truth = tests.get(t.text);
    if (truth !== undefined) return truth !== t.truth;
    const wanted = t.truth ? literalChoices(t.text) : undefined;
    if (!wanted) return false;
    for (const [text, holds] of tests) {
      const here = holds ? literalChoices(text) : undefined;
      if (here?.name === wanted.name && here.literals.length === 1 && !wanted.literals.includes(here.literals[0]!)) return true;
    }
    return false;
  });
}

type LiteralChoices = { name: string; literals: string[] } | undefined;

/** Tests' texts already read (ruledOut asks for each test at every read of a joined value); bounded, since the editor's process lives long. */
const choicesOfText = new Map<string, LiteralChoices>();

/** `name == "a"`, or `name == "a" or name == "b"`: the name and the string literals it is compared with; else undefined. */
function literalChoices(text: string): LiteralChoices {
  if (choicesOfText.has(text)) return choicesOfText.get(text);
  if (choicesOfText.size >= 4096) choicesOfText.clear();
  const choices = readLiteralChoices(text);
  choicesOfText.set(text, choices);
  return choices;
}

function readLiteralChoices(text: string): LiteralChoices {
  let name: string | undefined;
  const literals: string[] = [];
  for (const part of text.split(/\s+or\s+/)) {
    const m = EQUALS_LITERAL.exec(part.trim());
    const [n, literal] = m ? (m[1] !== undefined ? [m[1], m[3]] : [m[6], m[5]]) : [];
    if (n === undefined || literal === undefined || (name !== undefined && n !== name)) return undefined;
    name = n;
    literals.push(literal);
  }
  return name === undefined ? undefined : { name, literals };
}

/** `args.model == "egnn"` or `"egnn" == args.model`, a string without quotes or backslashes inside. */
const EQUALS_LITERAL = /^([A-Za-z_][\w.]*)\s*==\s*(['"])([^'"\\]*)\2$|^(['"])([^'"\\]*)\4\s*==\s*([A-Za-z_][\w.]*)$/;

/**
 * A value an undecided `if` left on the CPU on one path (`cpuWhen`), read where every test of
 * that path is known to come out the same way (inside `if args.arch == "cnn":` again): it is
 * the value of that path.
 */
export function onPathOf(v: Value, tests: ReadonlyMap<string, boolean> | undefined): Value {
  const path = v.cpuWhen;
  if (!path?.tests?.length || !tests) return v;
  if (path.tests.every((t) => tests.get(t.text) === t.truth)) return path.value;
  // Another branch that also left it on the CPU (`elif args.arch == "mid":` beside the first
  // CPU branch): where the tests rule out every path that moved it, it is on the CPU, and
  // where they rule out every path that bound it (each other one raised first), no run
  // gets here with it: nothing is said of it.
  const left = path.paths?.filter((p) => !ruledOut(p.tests, tests));
  if (!left || left.length === path.paths!.length) return v;
  if (left.length === 0) return { ...v, place: UNTRACKED, cpuWhen: undefined };
  return left.every((p) => p.onCpu) ? left[0].value : v;
}

/** `device == "cpu"`, `str(device) == 'cpu'`, `device.type != "cpu"`, `"cpu" == device`: the name tested, and whether equality is asked. */
const CPU_TEST = /^(?:str\()?([A-Za-z_][\w.]*?)(?:\.type)?\)?\s*(==|!=)\s*(['"])cpu\3$|^(['"])cpu\4\s*(==|!=)\s*(?:str\()?([A-Za-z_][\w.]*?)(?:\.type)?\)?$/;

/**
 * A value moved to a device variable (`x.to(device)`), read on a path where that variable was
 * tested to be the CPU (inside `if device == "cpu":`, or the `else` of `!= "cpu"`): there it
 * is on the CPU, whatever the variable may hold elsewhere.
 */
export function cpuOnThisPath(v: Value, tests: ReadonlyMap<string, boolean> | undefined): boolean {
  if (!tests || !v.deviceText) return false;
  for (const [text, truth] of tests) {
    const m = CPU_TEST.exec(text.trim());
    if (!m) continue;
    const [name, op] = m[1] !== undefined ? [m[1], m[2]] : [m[6], m[5]];
    if (name === v.deviceText && (op === '==') === truth) return true;
  }
  return false;
}

/** A value kept on `self` that may hold weights: a module, an nn.Parameter, or a value not known (weightlessModules.ts). */
export function mayHoldWeights(v: Value): boolean {
  if (v.kind === 'module' || v.kind === 'unknown') return true;
  if (v.parameter && v.grad !== 'no') return true;
  return containedValues(v).some(mayHoldWeights);
}

/** Whether one of `values` holds a batch of a loader loop anywhere: in what it contains, its attributes, or a CPU path's value. */
export function holdsBatch(values: Iterable<Value>, depth = 0): boolean {
  if (depth > 12) return false;
  for (const v of values) {
    if (v.batch) return true;
    if (holdsBatch(containedValues(v), depth + 1) || (v.attrs && holdsBatch(v.attrs.values(), depth + 1)) || (v.cpuWhen && holdsBatch([v.cpuWhen.value], depth + 1))) return true;
  }
  return false;
}
