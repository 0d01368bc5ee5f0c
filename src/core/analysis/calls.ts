// Calls: torch factories and functions, tensor and module methods, calls of models,
// and calls of the program's own functions and classes (call-site propagation).
import type { Node } from '../python/pyNode';
import { callArguments, CallArguments, children, dottedKey, field, isFlatNumberList, isNumberExpression, isNumberLiteral, shortText, stringLiteralValue, unparen } from '../python/syntax';
import type { Evaluator, RoundContext } from './roundContext';
import { evalDevice, toTarget, type DeviceTarget } from './devices';
import { cpuModuleMeeting, moduleCallMeetings } from './values';
import { instanceClass, type Frame } from './frame';
import { Env } from './env';
import { isinstanceOutcome } from './typeTests';
import type { ClassInfo, FunctionInfo, Program } from './program';
import {
  ANY_DEVICE_ARGUMENTS, CPU_ONLY_FACTORIES, CPU_TENSOR_READERS, DATALOADER_CLASSES, GRADIENT_NORM_FUNCTIONS, INPUT_SCATTERING_WRAPPERS, INTEGER_RESULT_FUNCTIONS, POINTWISE_FUNCTIONS, LOADER_LIKE_NAME, LOSS_LIKE_NAME, MODEL_LIKE_NAME,
  TENSOR_DATASETS, VALUES_INDICES_FUNCTIONS, SHAPE_KEEPING_METHODS, BUILT_FROM_TENSORS, DISTRIBUTION_TENSOR_METHODS, isDistributionClass, SIZE_OF_NUMBERS_OVERLOAD, STATE_REGISTRATIONS, DEVICE_FACTORIES, DIFFERENTIABLE_METHODS, TENSOR_EVIDENCE_METHODS, isModelZooConstructor, isBufferOnlyModuleConstructor, isParameterFreeLibraryModule, isMetricConstructor, functionalLossReturnsScalar, convertsArrayArguments, PROBING_SUMMARIES, isAcceleratorDeviceString,
  isIntegerCast, isPlacelessModuleClass, normalizationWithoutState, ONE_DIM_FACTORIES, PROGRESS_WRAPPERS, legacyConstructorPlace, lossReturnsScalar, LIKE_FACTORIES, MODULE_SELF_METHODS, NON_TENSOR_METHODS, NUMPY_CONVERTERS, LIBRARY_TENSOR_FUNCTIONS, TENSOR_KEEPING_FUNCTIONS, SAME_TENSOR_WRAPPERS, WRAPPER_MODULES, GRAPH_LOADER, LIBRARY_BATCH_ITERATORS, MODULE_CONTAINERS, FILLS_CONTAINER, KEEPS_CONTAINER_EMPTY,
} from './torchApi';
import { ACCEL, Arg, containedValues, CPU, functionIdsOf, hasAccel, INTEGER, isCallable, isContainer, isExactlyCpu, isTensorLike, NDARRAY, PENDING, joinValues, raisedResult, outputPlaceOf, NONE, NUMBER, OTHER, Place, resultOf, rowsOf, sameValue, UNKNOWN, UNTRACKED, Value, value } from './values';
import { collateColumnPlacements, collatePlacement, partialWithDevice } from './collate';
import { moveWalkedContainer } from './containerMoves';
import { placesOwnSubmodules } from './ownPlacement';
import { laterInputsForLayers } from './layerInputs';
import { storedParameters, wrapperClasses, wrapperInstance } from './wrapperModules';
import { convertsToCpuTensor, cpuTensorTransform, transformedTensor } from './transforms';
import { convertsModel, deviceKwargsCall, frameworkCall, frameworkMethod, givenDevice, isFrameworkEntryPoint } from './frameworks';
import { movedParamsOf } from './bodyFacts';
import { isModelActionName, isPretrainedModelLoad, pretrainedLoadPlaces } from './frameworkNames';
import { AVAILABILITY_CALLS } from './world';
import { launchProgramFunction } from './launchers';
import { BUILDING, RECEIVER, SELF_CLASS } from './callContexts';
import { isBuilding } from './initOnlyMethods';
import { calledSubmodule } from './submoduleCalls';
import { holdsNoWeights, keepsNoTensors } from './weightlessModules';
import { forwardFreeArguments, freeForwardParams } from './deviceFreeParams';
import { qualifyInScope } from './shadowedImports';
import { mayMoveInPlace } from './inPlaceMoves';


/** `model = model(...)`: the name that held the callable now holds what it made. */
function rebindsItsCallee(call: Node, calleeNode: Node): boolean {
  const assignment = call.parent;
  return calleeNode.type === 'identifier' && assignment?.type === 'assignment' && field(assignment, 'right')?.id === call.id && field(assignment, 'left')?.text === calleeNode.text;
}

export function evalCall(ctx: RoundContext, ex: Evaluator, frame: Frame, call: Node, discarded: boolean): Value {
  const callee = field(call, 'function');
  if (!callee) return UNKNOWN;
  const args = callArguments(call);
  // `class DeepGP(DeepGP):` after importing DeepGP: from there on the name is the program's class.
  const qualified = qualifyInScope(ctx.program, frame, callee);
  ctx.events.call(frame, call, qualified);
  noteCallbacks(ctx, frame, args);
  const tokenized = tensorMapping(ex, frame, call, args);
  if (tokenized) return tokenized;
  if (qualified && AVAILABILITY_CALLS.has(qualified)) {
    const available = ctx.world.accelerator();
    if (available !== undefined) return value('other', UNTRACKED, { truth: available, truthByAccelerator: true });
  }
  if (qualified) {
    const member = isFrameworkEntryPoint(qualified) ? undefined : ctx.program.member(frame.unit, qualified);
    if (member?.kind === 'class') return instantiate(ctx, ex, frame, call, member.cls, args);
    if (member?.kind === 'function') return callFunction(ctx, ex, frame, call, member.fn, args);
    if (member?.kind === 'value') return evalValueCall(ctx, ex, frame, call, callee, ex.eval(frame, callee), args);
    if (launchProgramFunction(ctx, ex, frame, qualified, args, (fn, a, skip) => callFunction(ctx, ex, frame, call, fn, a, skip))) return OTHER;
    const out = evalTorchCall(ctx, ex, frame, call, qualified, args);
    const reduction = args.keywords.get('reduction');
    const reduced = out.kind === 'tensor' && functionalLossReturnsScalar(qualified, reduction && (stringLiteralValue(reduction) ?? '?'), args.keywords.get('reduce')?.text);
    return reduced ? { ...out, scalar: true } : out;
  }
  const byName = memberLookedUpByName(ctx, frame, callee);
  if (byName) {
    const built = constructionByName(ctx, ex, frame, call, byName, args);
    if (built) return built;
  }
  if (callee.type === 'attribute') return evalMethodCall(ctx, ex, frame, call, callee, args, discarded);
  if (callee.type === 'identifier') {
    const local = evalLocalCall(ctx, ex, frame, call, callee.text, args);
    if (local) return local;
  }
  return evalValueCall(ctx, ex, frame, call, callee, ex.eval(frame, callee), args);
}

/**
 * The module whose member a callee names at run time: `models.__dict__[args.arch]`,
 * `vars(models)[name]`, `getattr(models, args.arch)` (the qualified name of `models`).
 */
function memberLookedUpByName(ctx: RoundContext, frame: Frame, callee: Node): string | undefined {
  const c = unparen(callee);
  let holder: Node | null | undefined;
  if (c.type === 'subscript') {
    const of = unparen(field(c, 'value') ?? c);
    if (of.type === 'attribute' && field(of, 'attribute')?.text === '__dict__') holder = field(of, 'object');
    else if (of.type === 'call' && field(of, 'function')?.text === 'vars') holder = callArguments(of).positional[0];
  } else if (c.type === 'call' && field(c, 'function')?.text === 'getattr') {
    const given = callArguments(c);
    if (given.positional.length === 2) holder = given.positional[0];
  }
  return holder ? qualifyInScope(ctx.program, frame, holder) : undefined;
}

/**
 * `models.__dict__[args.arch](...)`: a model zoo's builder (torchvision.models), or a member of
 * a project module whose classes are all nn.Modules (the model file of a registry by name):
 * a module built on the CPU here, of a class not known. Anything else is not decided here.
 */
function constructionByName(ctx: RoundContext, ex: Evaluator, frame: Frame, call: Node, holder: string, args: CallArguments): Value | undefined {
  const zoo = isModelZooConstructor(`${holder}.model_by_name`);
  const member = zoo ? undefined : ctx.program.member(frame.unit, holder);
  const classes = member?.kind === 'module' ? [...ctx.program.modules[member.module]!.classes.values()] : [];
  if (!zoo && !(classes.every((cls) => cls.isModule) && classes.some((cls) => !cls.placeless))) return undefined;
  evalArgs(ex, frame, args);
  return createdModule(ctx, frame, call);
}

/**
 * `explainer.explain_instance(image, classifier_fn=score)` in module code: a function of the
 * program handed to a call is taken to run during that call (as one called there would),
 * so its own run reads the globals of this moment, not only those the module ends with
 * (a later cell that rebinds `net` to another model does not reach back into it).
 */
function noteCallbacks(ctx: RoundContext, frame: Frame, args: CallArguments): void {
  if (frame.fn) return;
  for (const node of [...args.positional, ...args.keywords.values()]) {
    if (node.type !== 'identifier') continue;
    const id = frame.env.get(node.text)?.functionId;
    const fn = id !== undefined ? ctx.program.functions[id] : undefined;
    if (fn && fn.parent === -1 && !fn.className) ctx.callbackPassed(fn);
  }
}

/**
 * `tokenizer(text, return_tensors="pt")` (any callee: the keyword is Hugging Face's API):
 * a mapping of CPU tensors (a BatchEncoding), whatever the model's device is.
 */
function tensorMapping(ex: Evaluator, frame: Frame, call: Node, args: CallArguments): Value | undefined {
  const kind = args.keywords.get('return_tensors');
  if (!kind || stringLiteralValue(kind) !== 'pt') return undefined;
  evalArgs(ex, frame, args);
  const element = value('tensor', CPU, { grad: 'no', origin: { unit: frame.unit, node: call, what: 'tokenized on the CPU here' } });
  return value('other', UNTRACKED, { entries: new Map(), anyElement: element });
}

function evalArgs(ex: Evaluator, frame: Frame, args: CallArguments): Arg[] {
  const out: Arg[] = args.positional.map((n) => ({ node: n, value: ex.eval(frame, n) }));
  for (const n of args.keywords.values()) out.push({ node: n, value: ex.eval(frame, n) });
  return out;
}

/**
 * `model.decode(z)`, `vocoder.inference(c=mel)` on a model whose class the analysis does not
 * follow (a library's, one built by name): given tensors where the model is, and nothing
 * elsewhere, its method computes there, and what it returns is there too. Without a tensor
 * argument (`model.get_config()`) or with one elsewhere, nothing is said.
 */
function computedWhereTheModelIs(ex: Evaluator, frame: Frame, call: Node, objNode: Node, model: Value, argValues: Arg[], args: CallArguments): Value | undefined {
  if (model.place !== ACCEL && model.place !== CPU) return undefined;
  // `**batch` by name only: evaluating a call again would run it (and its events) twice.
  const splatted = args.splats.filter((n) => n.type === 'identifier' || n.type === 'attribute').flatMap((n) => containedValues(ex.eval(frame, n)));
  const given = [...argValues.map((a) => a.value), ...splatted]
    .flatMap((v) => (isTensorLike(v) && v.kind !== 'module' ? [v] : containedValues(v).filter((e) => isTensorLike(e) && e.kind !== 'module')));
  if (given.length === 0 || !given.every((v) => v.place === model.place)) return undefined;
  const name = shortText(objNode);
  const origin = model.origin
    ? { unit: frame.unit, node: call, what: `computed by \`${shortText(field(call, 'function') ?? call)}(…)\` here`, from: { ...model.origin, what: `\`${name}\` ${model.origin.what}` } }
    : undefined;
  return value('tensor', model.place, { grad: frame.noGrad > 0 ? 'no' : 'unknown', deviceText: model.deviceText, origin });
}

/** An expression's value that is no tensor, array or container: with a number in the arithmetic, a Python number. */
function givesPythonNumber(v: Value): boolean {
  return !isTensorLike(v) && !v.ndarray && !isContainer(v);
}

/** Calling a value: a model (module call), a loss, or something unknown. A reducing loss gives a 0-dim tensor. */
function evalValueCall(ctx: RoundContext, ex: Evaluator, frame: Frame, call: Node, calleeNode: Node, callee: Value, args: CallArguments): Value {
  const out = valueCallResult(ctx, ex, frame, call, calleeNode, callee, args);
  return callee.scalarOutput && out.kind === 'tensor' ? { ...out, scalar: true } : out;
}

function valueCallResult(ctx: RoundContext, ex: Evaluator, frame: Frame, call: Node, calleeNode: Node, callee: Value, args: CallArguments): Value {
  // `ARCHS[args.arch](...)`: one of the program's module classes, chosen at run time.
  if (callee.buildsModule) {
    const cls = callee.classKey ? ctx.program.classes.get(callee.classKey) : undefined;
    if (cls) return instantiate(ctx, ex, frame, call, cls, args);
    evalArgs(ex, frame, args);
    // `MODELS[name](...)`: an instance of one of these classes, which one decided at run time.
    const choices = callee.classChoices?.filter((key) => ctx.program.classes.get(key)?.isModule);
    return createdModule(ctx, frame, call, undefined, choices?.length ? { classChoices: choices } : {});
  }
  const argValues = evalArgs(ex, frame, args);
  if (callee.pending) return PENDING;
  if (isCallable(callee)) return callCallables(ctx, ex, frame, call, callee, args, argValues);
  // `evaluate = MultiScaleEval(...)`, then `evaluate(net, loader)`: an instance of one of the
  // program's classes (not a module) runs its `__call__` for these arguments.
  const dunderCall = callee.kind === 'other' && callee.className ? ctx.program.methodOf(callee.className, '__call__') : undefined;
  if (dunderCall?.selfName) {
    const key = dottedKey(calleeNode);
    return callFunction(ctx, ex, frame, call, dunderCall, args, 1, argValues, undefined, { node: calleeNode, value: callee }, undefined, key ? { key, value: callee } : undefined);
  }
  if (callee.makesCpuTensor) return transformedTensor(frame, call, shortText(calleeNode));
  if (convertsModel(calleeNode.text, callee, argValues, frame)) return value('module');
  // An `nn.Sequential()` built empty and not filled since is the identity: no weights meet its input.
  if (callee.kind === 'module' && callee.emptyContainer) return argValues.length === 1 ? argValues[0]!.value : UNKNOWN;
  const isModule = callee.kind === 'module' || (callee.kind === 'unknown' && callee.place !== UNTRACKED);
  if (callee.placeless || (!isModule && LOSS_LIKE_NAME.test(calleeNode.text))) {
    // A loss module of the program without state (`class FocalLoss(nn.Module)`) runs its
    // forward on these inputs where they are: what forward makes on the CPU meets them there.
    if (callee.placeless && callee.className) recordForwardInputs(ctx, callee, args, argValues, frame.noGrad > 0);
    const operands = withoutAnyDeviceArguments(argValues, args, callee.torchClasses ?? []);
    ctx.events.tensorsReachConsumer(frame, operands);
    return ex.tensorOperation(frame, call, operands, 'consumer');
  }
  // An unknown callee named like a model (`self.net(x)`) is a forward pass only when given
  // inputs: `self._restore_model()` with none builds or loads one; nor is `model =
  // model(n_classes=...)`, which makes the instance of a class a registry returned.
  const givesInputs = args.positional.length > 0 || args.keywords.size > 0 || args.splats.length > 0;
  if (!isModule && !(callee.kind === 'unknown' && givesInputs && MODEL_LIKE_NAME.test(calleeNode.text) && !isModelActionName(calleeNode.text) && !rebindsItsCallee(call, calleeNode))) {
    if (!PURE_BUILTINS.has(calleeNode.text)) forgetMovableModules(frame, argValues);
    return UNKNOWN;
  }
  if (argValues[0]?.value.ndarray) return UNKNOWN;
  // A model's later positional inputs may legally stay on the CPU (pack_padded_sequence's
  // lengths must): a batch element counts only as the first input, a keyword input, or one
  // that the forward of the model's class hands to one of its layers (`self.embed(captions)`).
  const layerInputs = laterInputsForLayers(ctx, callee);
  // One its forward only packs as lengths (or reads into Python) meets nothing (deviceFreeParams.ts).
  // A taped read: an edit of forward (`x = x.to(device)` typed or removed) replays no stale answer.
  const free = forwardFreeArguments(ctx.program, callee, args, (_, className) =>
    new Set(ctx.programFact(`device-free forward parameters of ${className}`, (p) => [...freeForwardParams(p, className)].join(' ')).split(' ').filter(Boolean)));
  // A callable of unknown kind that was moved (`loss_fn = CTCLoss().cuda()` of another package):
  // what its later arguments must be is its own API's (warp-ctc takes labels and lengths on the
  // CPU); its first input and its keyword inputs (`model(input_ids=…)`) are what meet its weights.
  const unknownApi = callee.kind === 'unknown';
  const candidates = argValues.filter((a, i) => (unknownApi ? i === 0 || i >= args.positional.length : (!a.value.batch || i === 0 || i >= args.positional.length || layerInputs.has(i))) && !free.has(a.node));
  // CPU lengths beside inputs on the GPU meet the model only where its forward makes them meet something.
  const followed = laterCpuArgumentsFollowed(ctx, ex, frame, call, calleeNode, callee, args, argValues, candidates);
  const inputs = followed ? candidates.filter((a) => !followed.has(a.node)) : candidates;
  ctx.events.tensorsReachConsumer(frame, inputs);
  // `model(**batch)`, `model(*inputs)`: what is unpacked is an input too.
  const unpacked: Arg[] = [];
  for (const node of args.splats) {
    const v = ex.eval(frame, node);
    if (isTensorLike(v)) unpacked.push({ node, value: v });
    else for (const e of containedValues(v)) unpacked.push({ node, value: e });
  }
  if (unpacked.length) {
    ctx.events.tensorsReachConsumer(frame, unpacked);
    inputs.push(...unpacked);
  }
  // `self.lstm(x, (h0, c0))`: the tensors of a tuple or list argument are inputs too.
  const tensors = inputs.flatMap(elementArgs).filter((a) => isTensorLike(a.value) && a.value.kind !== 'module');
  // A module that keeps no weights and no tensors has no place of its own: its inputs meet
  // nothing of it, and its output is where its forward puts it (`torch.zeros(...,
  // device=self.device)`), not where it was built.
  const weightless = callee.kind === 'module' && keepsNoTensors(ctx, callee.className);
  ctx.events.moduleCall(frame, call, calleeNode, weightless ? { ...callee, placeless: true } : callee, tensors);
  // A class that places its own submodules (`nn.Linear(..., device=device)`) and is never
  // moved as a whole: its forward runs for this call's inputs, so a CPU input meeting a
  // placed layer inside is reported here, at the argument to move, not inside forward.
  const ownForward = callee.kind === 'module' && ((callee.place === UNTRACKED && placesOwnSubmodules(ctx, callee.className)) || weightless)
    ? ctx.program.methodOf(callee.className, 'forward') : undefined;
  if (ownForward?.selfName) {
    const out = callFunction(ctx, ex, frame, call, ownForward, args, 1, argValues, { node: calleeNode, value: callee });
    if (out.raised) return raisedResult(frame.noGrad > 0);
    if (out.kind !== 'tensor' || out.place === UNTRACKED) return value('tensor', UNTRACKED, { grad: frame.noGrad > 0 ? 'no' : 'yes' });
    const name = shortText(calleeNode);
    const origin = out.origin
      ? { unit: frame.unit, node: call, what: `computed by \`${name}(…)\` here`, from: { ...out.origin, what: `\`${name}\`'s forward returns what was ${out.origin.what}` } }
      : undefined;
    return { ...out, grad: frame.noGrad > 0 ? 'no' : out.grad, factory: undefined, batch: undefined, origin };
  }
  recordForwardInputs(ctx, callee, args, argValues, frame.noGrad > 0);
  const noGrad = frame.noGrad > 0;
  const model = { node: calleeNode, value: callee };
  const meetings = callee.place !== UNTRACKED ? moduleCallMeetings(model, tensors) : [];
  // Batch elements are DD002's, which moves them all at the loop's top: then the output is
  // where the model is, and what it meets later (the targets) is part of that finding.
  const onlyBatches = meetings.length > 0 && meetings.every((m) => m.cpu.value.batch && frame.loops.includes(m.cpu.value.batch.loop));
  // The call raises there, or its input came from one that did: what follows never sees its
  // output (no cascade of findings).
  if (cpuModuleMeeting(model, tensors) || (meetings.length && !onlyBatches) || tensors.some((t) => t.value.raised)) return raisedResult(noGrad);
  const cpuMade = cpuTensorForwardMakes(ctx, callee);
  if (cpuMade) return { ...cpuMade, grad: noGrad ? 'no' : cpuMade.grad };
  if (callee.place !== UNTRACKED) {
    // The output is where the model is: say so, and where the model got there.
    const name = shortText(calleeNode);
    const origin = callee.origin
      ? { unit: frame.unit, node: call, what: `computed by \`${name}(…)\` here`, from: { ...callee.origin, what: `\`${name}\` ${callee.origin.what}` } }
      : undefined;
    // A known module, or an unknown object named as a model, has parameters and makes a graph;
    // another unknown object that is moved and called (a renderer, an augmentation) may have none.
    const trained = (callee.kind === 'module' && !holdsNoWeights(ctx, callee.className)) || MODEL_LIKE_NAME.test(calleeNode.text);
    const grad = noGrad ? 'no' : callee.noParameters ? inputGrad(tensors) : trained && !callee.gradlessOutput ? 'yes' : 'unknown';
    const output = value('tensor', outputPlaceOf(callee), { grad, deviceText: callee.deviceText, origin });
    return shapedLikeForwardReturn(ctx, callee, output) ?? output;
  }
  const fromInputs = tensors.length ? resultOf(tensors, noGrad) : value('tensor');
  // A model of unknown place given a loader's CPU batch: its output is on the CPU only if the
  // model is (a DataParallel model gathers it on its first GPU), and an unmoved batch is
  // DD002's finding, so where the output is stays unknown. Given accelerator inputs, the
  // output is there (or the call fails first).
  const unknownModel = callee.kind === 'module' || MODEL_LIKE_NAME.test(calleeNode.text);
  const batchesOnly = tensors.length > 0 && tensors.every((a) => !!a.value.batch && frame.loops.includes(a.value.batch.loop));
  const place = unknownModel && batchesOnly && isExactlyCpu(fromInputs.place) ? UNTRACKED : fromInputs.place;
  const grad = noGrad ? 'no' : callee.noParameters ? inputGrad(tensors) : callee.kind === 'module' && !callee.gradlessOutput && !holdsNoWeights(ctx, callee.className) ? 'yes' : 'unknown';
  const output: Value = { ...fromInputs, place, origin: place === UNTRACKED ? undefined : fromInputs.origin, grad };
  return shapedLikeForwardReturn(ctx, callee, output) ?? output;
}

/** A module without parameters makes a graph only of inputs that need grad; it never says an output needs none. */
function inputGrad(tensors: readonly Arg[]): Value['grad'] {
  return tensors.some((t) => t.value.grad === 'yes') ? 'yes' : 'unknown';
}

/**
 * `model(inputs, input_lengths)` with the lengths on the CPU: a later positional argument is
 * the forward's own to place (pack_padded_sequence wants CPU lengths, a helper reads them into
 * Python), so forward runs for this call, on the model's device, and a CPU argument it makes
 * meet a layer or a GPU tensor is reported there, at the argument. The arguments it followed,
 * or undefined where it could not run forward (the model's place not known exactly, a class
 * that moves itself, too deep): then every argument meets the model as before.
 */
function laterCpuArgumentsFollowed(
  ctx: RoundContext, ex: Evaluator, frame: Frame, call: Node, calleeNode: Node, callee: Value, args: CallArguments, argValues: Arg[], inputs: Arg[],
): ReadonlySet<Node> | undefined {
  // DistributedDataParallel copies every argument to its device before forward runs.
  if (callee.kind !== 'module' || !hasAccel(callee.place) || callee.placeless || callee.movesInputs || !callee.className || args.splats.length) return undefined;
  const later = new Set(args.positional.slice(1).filter((n) => inputs.some((a) => a.node === n && a.value.kind === 'tensor' && isExactlyCpu(a.value.place) && !a.value.batch)));
  if (!later.size) return undefined;
  const forward = ctx.program.methodOf(callee.className, 'forward');
  if (!forward?.selfName || forward.params.slice(1).some((p) => p.variadic) || movesItself(ctx, forward.className)) return undefined;
  // A module that may be on an accelerator: forward only says which arguments meet nothing;
  // those that meet something are inputs as before (DD015 at a factory in the caller's method).
  const certain = callee.place === ACCEL;
  const met = new Set<string>();
  const interpreted: FollowedCall = { ran: false, quiet: !certain, met };
  const model = { node: calleeNode, value: callee };
  callFunction(ctx, ex, frame, call, forward, args, 1, argValues, model, model, undefined, undefined, interpreted);
  if (!interpreted.ran) return undefined;
  if (certain) return later;
  const params = forward.params.slice(1);
  return new Set([...later].filter((n) => !met.has(params[args.positional.indexOf(n)]?.name ?? '')));
}

/** A call followed for its arguments: whether it ran, and, when `quiet`, the parameters that met an accelerator (not reported). */
interface FollowedCall {
  ran: boolean;
  quiet?: boolean;
  met?: Set<string>;
}

/**
 * A module of the program on an accelerator whose forward returns a tensor it made itself on
 * the CPU (`table = torch.zeros(n, d)` filled and returned): its output is that CPU tensor, not
 * a tensor where the module is, so the caller's `x + self.encoder(x)` meets it (DD015).
 */
function cpuTensorForwardMakes(ctx: RoundContext, callee: Value): Value | undefined {
  if (callee.kind !== 'module' || !callee.className || !hasAccel(callee.place)) return undefined;
  const forward = ctx.program.methodOf(callee.className, 'forward');
  const out = forward ? ctx.previous.returnOf(forward.id) : undefined;
  const made = out?.origin?.node;
  if (!forward || !out || out.kind !== 'tensor' || out.place !== CPU || out.scalar || !made || made.type !== 'call') return undefined;
  return out.origin!.unit === forward.unit && forward.node.startIndex <= made.startIndex && made.endIndex <= forward.node.endIndex ? out : undefined;
}

/**
 * The output of a call of a program module, shaped as its forward's return summary says:
 * `return action, log_prob` gives two tensors where the output is, each with the
 * graph forward gave it (a `sample()` has none); a tensor or distribution that forward built
 * from `.cpu()` copies stays on the CPU. Undefined where the summary says nothing more than
 * "a tensor": then `output` (a tensor where the module is) stands.
 */
function shapedLikeForwardReturn(ctx: RoundContext, callee: Value, output: Value): Value | undefined {
  if (callee.kind !== 'module' || !callee.className) return undefined;
  // A class defined again (a notebook's next version) shares one name: which forward ran is not known.
  if (ctx.programFact('classes defining forward more than once', classesRedefiningForward).has(callee.className)) return undefined;
  const forward = ctx.program.methodOf(callee.className, 'forward');
  const returned = forward ? ctx.previous.returnOf(forward.id) : undefined;
  if (!forward || !returned) return undefined;
  // Made in forward by a move or a distribution, not by a factory without `device=`: a factory's
  // tensor meeting the module's place is DD015's finding inside forward, and what forward does
  // to it next (`.type(U.type())`) may put it where the inputs are.
  const madeInForward = (v: Value) => {
    const made = v.origin?.node;
    if (!made || v.origin!.unit !== forward.unit || made.startIndex < forward.node.startIndex || made.endIndex > forward.node.endIndex) return false;
    const maker = made.type === 'call' ? field(made, 'function') : undefined;
    return !maker || !DEVICE_FACTORIES.has(ctx.program.importsAt(forward.unit).qualify(maker) ?? '');
  };
  const shaped = (v: Value): Value => {
    // A Python number or None that forward returns beside its outputs (`return out, self.rate`) stays one.
    if (v.kind === 'other' && (v.number || v.isNone)) return v;
    if (!(isTensorLike(v) || v.distribution) || v.kind === 'module') return output;
    if (isExactlyCpu(v.place) && !v.scalar && madeInForward(v)) return { ...v, grad: output.grad === 'no' ? 'no' : v.grad };
    const grad = v.grad === 'no' ? 'no' : output.grad;
    return v.distribution ? { ...v, place: output.place, deviceText: output.deviceText, origin: output.origin, grad } : { ...output, grad };
  };
  if (returned.elements && !returned.entries && !returned.anyElement && returned.elements.length > 0 && !isTensorLike(returned)) {
    return value('other', UNTRACKED, { elements: returned.elements.map(shaped) });
  }
  if (!(isTensorLike(returned) || returned.distribution) || returned.kind === 'module') return undefined;
  const one = shaped(returned);
  return one === output ? undefined : one;
}

const FREEZES_WEIGHTS = /\.requires_grad\s*=\s*False\b|\brequires_grad_\s*\(\s*(?:requires_grad\s*=\s*)?False\s*\)/;

function classesFreezingThemselves(program: Program): Set<string> {
  const out = new Set<string>();
  for (const cls of program.classes.values()) {
    const init = cls.isModule ? cls.methods.get('__init__') : undefined;
    if (init && FREEZES_WEIGHTS.test(init.node.text) && /\bself\.(?:parameters|requires_grad_|named_parameters)\s*\(|\bself\b[^\n]*\.parameters\s*\(/.test(init.node.text)) out.add(cls.key);
  }
  return out;
}

function classesRedefiningForward(program: Program): Set<string> {
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const fn of program.functions) {
    if (fn.name !== 'forward' || !fn.className) continue;
    if (seen.has(fn.className)) twice.add(fn.className);
    seen.add(fn.className);
  }
  return twice;
}

/**
 * `model.parameters()` / `model.named_parameters()` (and buffers): tensors where the model
 * is, parameters with grad; `for name, p in model.named_parameters()` and
 * `next(model.parameters())` see them.
 */
/** `parameters()`, `named_buffers()`: the methods that iterate over a module's tensors. */
const WEIGHT_ITERATORS = /^(named_)?(parameters|buffers)$/;
/** `children()`, `named_modules()`: the methods that iterate over its submodules. */
const SUBMODULE_ITERATORS = /^(named_)?(children|modules)$/;

function parametersOf(model: Value, method: string): Value | undefined {
  if (method === 'state_dict' && !model.placeless) {
    // A dict of detached tensors where the model is (its keys are names): `sd[name].numpy()`.
    const tensor = value('tensor', model.place, { grad: 'no', deviceText: model.deviceText, origin: model.origin });
    return value('other', UNTRACKED, { entries: new Map(), anyElement: tensor });
  }
  if (SUBMODULE_ITERATORS.test(method) && !model.placeless) {
    // `list(net.children())[:-1]`: the very submodules, where the model is.
    const part = value('module', model.place, { deviceText: model.deviceText, origin: model.origin });
    return value('other', UNTRACKED, { anyElement: method.startsWith('named_') ? value('other', UNTRACKED, { elements: [OTHER, part] }) : part });
  }
  if (!WEIGHT_ITERATORS.test(method) || model.placeless) return undefined;
  const tensor = value('tensor', model.place, {
    grad: method.endsWith('parameters') ? 'yes' : 'unknown', deviceText: model.deviceText, origin: model.origin,
  });
  return value('other', UNTRACKED, { anyElement: method.startsWith('named_') ? value('other', UNTRACKED, { elements: [OTHER, tensor] }) : tensor });
}

/** A tuple or list display's elements, each with its own node; any other argument as itself. */
function elementArgs(a: Arg): Arg[] {
  const n = unparen(a.node);
  if (!a.value.elements || (n.type !== 'tuple' && n.type !== 'list')) return [a];
  const nodes = n.namedChildren.filter((c) => c.type !== 'comment');
  if (nodes.length !== a.value.elements.length) return [a];
  return nodes.map((node, i) => ({ node, value: a.value.elements![i] }));
}

/**
 * `model(x)` runs `forward(x)` of the model's class: its inputs are on the model's device
 * when the model's place is known (the call fails otherwise, and that is reported here),
 * so tensors that forward creates without a device are seen meeting them.
 */
function recordForwardInputs(ctx: RoundContext, callee: Value, args: CallArguments, argValues: Arg[], noGrad: boolean): void {
  if (callee.kind !== 'module') return;
  if (!callee.className) {
    // A model chosen between classes of the program: each forward may run on these inputs.
    for (const className of callee.classChoices ?? []) recordForwardInputs(ctx, { ...callee, className, classChoices: undefined }, args, argValues, noGrad);
    return;
  }
  const forward = ctx.program.methodOf(callee.className, 'forward');
  if (!forward?.selfName) return;
  ctx.next.markPlainCall(forward.id);
  // `model(x)` runs forward as a call does: with gradients on unless the caller turned them off.
  ctx.next.markGradCall(forward.id, noGrad);
  const keywordNames = [...args.keywords.keys()];
  // forward's submodules are where the class's instances go (all of them, joined): its
  // inputs are taken to be there too, so two instances on two devices never make forward
  // look inconsistent with itself.
  const placed = (callee.className ? ctx.previous.classPlace(callee.className) : undefined) ?? callee;
  // A class that builds its submodules on a device it is given (`nn.Linear(..., device=device)`)
  // and is never moved as a whole is not "where the instance is": its inputs stay their own.
  const ownPlaces = placesOwnSubmodules(ctx, callee.className);
  forward.params.slice(1).forEach((p, i) => {
    const k = keywordNames.indexOf(p.name);
    const positional = !p.variadic && !args.hasSplat && i < args.positional.length ? argValues[i] : undefined;
    const given = positional ?? (k >= 0 ? argValues[args.positional.length + k] : undefined);
    // `forward(self, x, h=None)` called without h: h is None there (the state it builds is seen).
    let v = given ? withLiteralTruth(given.value, given.node)! : p.defaultNode ? (p.defaultNode.type === 'none' ? NONE : withLiteralTruth(OTHER, p.defaultNode)!) : UNKNOWN;
    if (v.kind === 'tensor' && placed.place !== UNTRACKED && !ownPlaces) {
      v = { ...v, place: placed.place, deviceText: placed.deviceText, origin: placed.origin, batch: undefined, factory: undefined };
    }
    ctx.next.addParam(forward.id, p.name, v);
  });
}

function evalTorchCall(ctx: RoundContext, ex: Evaluator, frame: Frame, call: Node, q: string, args: CallArguments): Value {
  const framework = frameworkCall(ctx, ex, frame, call, q) ?? partialWithDevice(ctx, ex, frame, call, q);
  if (framework) return framework;
  const transform = cpuTensorTransform(ctx, frame, call, q);
  if (transform) {
    evalArgs(ex, frame, args);
    return transform;
  }
  if (convertsToCpuTensor(q)) {
    evalArgs(ex, frame, args);
    return transformedTensor(frame, call, shortText(field(call, 'function') ?? call));
  }
  const requiresGrad = args.keywords.get('requires_grad')?.text === 'True';
  if (q === 'torch.device') {
    const first = args.positional[0] ?? args.keywords.get('type');
    if (!first) return UNKNOWN;
    const place = evalDevice(ctx, frame, first, (f, n) => ex.eval(f, n));
    return value('device', place, { deviceText: call.text, origin: { unit: frame.unit, node: call, what: 'device chosen here' } });
  }
  if (q === 'torch.accelerator.current_accelerator') return value('device', ACCEL, { deviceText: call.text });
  if (isDistributionClass(q)) return distributionOf(ex, frame, call, args);
  if (q === 'torch.set_default_device') {
    const first = args.positional[0] ?? args.keywords.get('device');
    if (first && isAnalysedModuleCode(ctx, frame)) {
      const place = evalDevice(ctx, frame, first, (f, n) => ex.eval(f, n));
      frame.env.set(DEFAULT_DEVICE_KEY, value('device', place, { deviceText: first.text }));
    }
    return OTHER;
  }
  if (q === 'torch.load') {
    // `torch.load(f, map_location=device)`: what was saved (a whole model, tensors) is loaded onto that device.
    const target = args.keywords.get('map_location') ?? args.positional[1];
    const where = target ? ex.eval(frame, target) : undefined;
    for (const n of args.positional) ex.eval(frame, n);
    if (!target || where?.kind !== 'device' || where.place === UNTRACKED) return UNKNOWN;
    return value('unknown', where.place, { deviceText: target.text, origin: { unit: frame.unit, node: call, what: `loaded onto ${target.text} here` } });
  }
  const legacy = legacyConstructorPlace(q);
  if (legacy) {
    // `torch.LongTensor(n).random_(8)`: a new tensor, unless it wraps a tensor (then it is that one's).
    const argValues = evalArgs(ex, frame, args);
    const wrapped = argValues[0] && argValues[0].value.kind === 'tensor' ? argValues[0].value : undefined;
    if (wrapped) return { ...wrapped, factory: undefined, scalar: undefined, batch: undefined };
    // `torch.Tensor([0], device=ctx)` raises for any ctx but the CPU ("legacy constructor
    // expects device type: cpu"): unless ctx is surely the CPU, no CPU tensor comes out of it.
    const given = args.keywords.get('device');
    const device = legacy === 'cpu' && given ? argValues.find((a) => a.node === given)?.value : undefined;
    if (device && !(device.kind === 'device' && device.place === CPU)) return value('tensor', UNTRACKED, { grad: 'no' });
    // The generic `torch.Tensor(...)` builds the default tensor type, which
    // `set_default_tensor_type('torch.cuda.FloatTensor')` makes a CUDA one; the typed ones stay on the CPU.
    if (q === 'torch.Tensor' && ctx.program.setsDefaultTensorType) return value('tensor', UNTRACKED, { grad: 'no' });
    const place = legacy === 'cpu' ? CPU : ACCEL;
    return value('tensor', place, {
      grad: 'no', deviceText: legacy === 'cpu' ? undefined : '"cuda"',
      origin: { unit: frame.unit, node: call, what: legacy === 'cpu' ? 'created on the CPU here' : 'created on "cuda" here' },
    });
  }
  const read = CPU_TENSOR_READERS.get(q);
  if (read) {
    evalArgs(ex, frame, args);
    const tensor = value('tensor', CPU, { grad: 'no', origin: { unit: frame.unit, node: call, what: `read onto the CPU by \`${shortText(field(call, 'function') ?? call)}(…)\` here` } });
    return read === 'tensor' ? tensor : value('other', UNTRACKED, { elements: read.map((isTensor) => (isTensor ? tensor : OTHER)) });
  }
  if (DEVICE_FACTORIES.has(q) || CPU_ONLY_FACTORIES.has(q) || LIKE_FACTORIES.has(q)) {
    const argValues = evalArgs(ex, frame, args);
    // `torch.tensor(t)` / `torch.as_tensor(t)` of a tensor copies it on t's device unless told otherwise.
    const copied = (q === 'torch.tensor' || q === 'torch.as_tensor') && argValues[0] && isTensorLike(argValues[0].value) && argValues[0].value.kind !== 'module'
      ? argValues[0].value : BUILT_FROM_TENSORS.has(q) ? sharedPlaceOf(argValues) : undefined;
    const sizeAt = SIZE_OF_NUMBERS_OVERLOAD.get(q);
    const fromTensors = copied !== undefined || (sizeAt !== undefined && args.positional.length <= sizeAt && !args.keywords.has('size') && !args.hasSplat);
    // `torch.arange(0, n, out=torch.cuda.LongTensor(n))` fills the tensor it is given, where that is.
    const outNode = args.keywords.get('out');
    const out = outNode ? argValues[args.positional.length + [...args.keywords.keys()].indexOf('out')]?.value : undefined;
    const like = LIKE_FACTORIES.has(q) ? argValues[0]?.value : out && isTensorLike(out) && out.kind !== 'module' ? out : copied;
    const device = givenDevice(ctx, ex, frame, call);
    const place = device ? device.place : like ? like.place : fromTensors ? UNTRACKED : defaultPlace(ctx, frame);
    // `torch.tensor(0.03 / n)`: arithmetic with a number that gave no array or tensor is a number too.
    const first = args.positional[0];
    const scalar = q === 'torch.tensor' && !!first && (isNumberLiteral(first) || ((isNumberExpression(first) || !!argValues[0]?.value.number) && !!argValues[0] && givesPythonNumber(argValues[0].value)));
    const oneDim = ONE_DIM_FACTORIES.has(q) || (q === 'torch.tensor' && !!args.positional[0] && isFlatNumberList(args.positional[0]));
    return value('tensor', place, {
      grad: requiresGrad ? 'yes' : 'no',
      scalar: scalar || undefined,
      oneDim: oneDim || undefined,
      deviceText: device?.text ?? like?.deviceText,
      origin: {
        unit: frame.unit, node: call, what: device?.text ? `created on ${device.text} here` : fromTensors ? 'made where its tensor arguments are' : createdWhat(place),
        // `c0 = torch.zeros_like(h0)` is made where h0 is: h0's creation is the step before.
        from: !device && LIKE_FACTORIES.has(q) ? like?.origin : undefined,
      },
      // Built from tensors, it is where they are: `device=` is no fix (torch.normal(mean, std) refuses it).
      factory: !device && !fromTensors && !outNode && !args.keywords.has('device') && DEVICE_FACTORIES.has(q) && !args.hasSplat ? { unit: frame.unit, node: call, scope: frame.id } : undefined,
    });
  }
  const argValues = evalArgs(ex, frame, args);
  const last = q.slice(q.lastIndexOf('.') + 1);
  // `pbar = tqdm(loader)`: the bar yields the loader's batches, so a loop over it later is the
  // loader's loop. As for `iter(...)`, a loader-like name of unknown value counts as one.
  if (PROGRESS_WRAPPERS.has(q) && argValues[0] && wrapsLoader(argValues[0])) return { ...argValues[0].value, kind: 'loader' };
  const keeping = TENSOR_KEEPING_FUNCTIONS.get(q);
  if (keeping) {
    // `np.squeeze(t)` runs `t.squeeze()`, `rearrange(x, "b c h w -> b (h w) c")` reshapes x:
    // a tensor where it is, nothing converted (a batch no longer as it came).
    const first = argValues[0]?.value;
    if (first?.kind === 'tensor') {
      const kept: Value = { ...first, batch: undefined, factory: undefined, grad: keeping.keepsGraph ? first.grad : 'no' };
      return keeping.reshapes ? { ...kept, scalar: undefined, oneDim: undefined, elements: undefined } : kept;
    }
    if (!keeping.reshapes) return OTHER;
  }
  // `np.log(0.01)`, `math.sqrt(d)`: a function of numbers alone gives one number, no array.
  if ((NUMPY_CONVERTERS.has(q) || q.startsWith('math.')) && argValues.length && argValues.every((a) => a.value.number)) return NUMBER;
  if (NUMPY_CONVERTERS.has(q)) {
    const first = argValues[0];
    // `np.array([t1, t2])`, `np.mean(losses)`: each tensor in the list is converted.
    const converted = first && !isTensorLike(first.value) ? containedValues(first.value) : [];
    if (first && converted.length === 0) ctx.events.numpyConversion(frame, call, first.node, first.value, 'function');
    for (const v of converted) if (v.kind === 'tensor') ctx.events.numpyConversion(frame, call, first.node, v, 'elements');
    return NDARRAY;
  }
  if (convertsArrayArguments(q)) {
    // `roc_curve(truth, scores)`, `plt.plot(losses)`, `plt.Rectangle((x0, y0), w, h)`: each
    // array argument (or each tensor of a list or tuple argument) is converted.
    for (const a of argValues) {
      if (isTensorLike(a.value) && a.value.kind !== 'module') ctx.events.numpyConversion(frame, call, a.node, a.value, 'argument');
      else for (const v of containedValues(a.value)) if (v.kind === 'tensor') ctx.events.numpyConversion(frame, call, a.node, v, 'elements');
    }
    return OTHER;
  }
  if (SAME_TENSOR_WRAPPERS.has(q) && argValues[0] && isTensorLike(argValues[0].value)) {
    // Not as a loader batch: `Variable(imgs.type(Tensor))` read as the unmoved batch reaching
    // the model (DD002) in GAN code that converts every batch; before this row a wrapped
    // batch was unknown, and it stays so for DD002.
    const wrapped = { ...argValues[0].value, batch: undefined };
    return args.keywords.get('requires_grad')?.text === 'True' ? { ...wrapped, grad: 'yes' } : wrapped;
  }
  if (q === 'torch.nn.Parameter' || q === 'torch.nn.parameter.Parameter') {
    const data = argValues[0]?.value;
    // `nn.Parameter(stats, requires_grad=False)`: a frozen statistic that moves with the module and carries no graph.
    const requiresGrad = args.keywords.get('requires_grad') ?? args.positional[1];
    const frozen = requiresGrad?.type === 'false';
    return value('tensor', data?.place ?? UNTRACKED, { grad: frozen ? 'no' : 'yes', origin: data?.origin, deviceText: data?.deviceText, parameter: true });
  }
  const inputsNode = modelRunnerInputs(q, args);
  if (inputsNode && argValues[0] && (argValues[0].value.kind === 'module' || argValues[0].value.place !== UNTRACKED)) {
    // `torch.onnx.export(model, (x, h), path)`, `torch.jit.trace(model, x)`: they run the
    // model on those inputs, so a CPU input of a model on an accelerator fails there.
    const inputs = argValues.filter((a) => a.node === inputsNode).flatMap(elementArgs)
      .filter((a) => isTensorLike(a.value) && a.value.kind !== 'module');
    ctx.events.moduleCall(frame, call, argValues[0].node, { ...argValues[0].value, kind: 'module' }, inputs);
  }
  if (WRAPPER_MODULES.has(q)) return wrapped(q, argValues[0]?.value);
  if (TENSOR_DATASETS.has(q) && !args.hasSplat) return rowsOf(argValues.map((a) => a.value));
  // `TensorDataset(*[t.to(device) for t in arrays])`: every column is one of the list's items.
  if (TENSOR_DATASETS.has(q) && argValues.length === 0 && args.splats.length === 1) {
    const column = ex.eval(frame, args.splats[0]!).anyElement;
    if (column && isTensorLike(column)) return rowsOf([column]);
  }
  if (DATALOADER_CLASSES.has(q)) {
    const placedBy = collatePlacement(ctx, call, argValues);
    const columnsPlacedBy = placedBy ? undefined : collateColumnPlacements(call, argValues);
    return value('loader', UNTRACKED, { origin: { unit: frame.unit, node: call, what: 'loader created here' }, ...(placedBy ? { placedBy } : {}), ...(columnsPlacedBy ? { columnsPlacedBy } : {}) });
  }
  if (/^torch\.optim\.[A-Z]/.test(q)) return value('optimizer');
  if (/^torch\.nn\.(modules\.\w+\.)?[A-Z]\w*$/.test(q)) {
    const holding = MODULE_CONTAINERS.has(last) ? heldModulesPlace(ex, frame, call, args, argValues) : undefined;
    if (holding) return holding;
    // `nn.Sequential(nn.ReplicationPad2d(4), RandomCrop(84))`: holding only modules without
    // parameters, the container has none either; it runs where its input is.
    if (MODULE_CONTAINERS.has(last) && holdsOnlyPlaceless(ex, frame, args, argValues)) return value('module', UNTRACKED, { placeless: true, torchClasses: [`torch.nn.${last}`] });
    if (MODULE_CONTAINERS.has(last) && argValues.length === 0 && args.splats.length === 0) return createdModule(ctx, frame, call, givenDevice(ctx, ex, frame, call), { emptyContainer: true });
    // `nn.Sequential(T.MelSpectrogram(), Resize(...))`: buffers and parameter-free steps, no parameters.
    if (MODULE_CONTAINERS.has(last) && holdsNoParameters(args, argValues)) return createdModule(ctx, frame, call, givenDevice(ctx, ex, frame, call), { noParameters: true });
    const withoutState = normalizationWithoutState(last, (k) => args.keywords.get(k)?.text, args.positional.length) && !args.hasSplat;
    if (withoutState) return value('module', UNTRACKED, { placeless: true, torchClasses: [`torch.nn.${last}`] });
    if (!isPlacelessModuleClass(last)) return createdModule(ctx, frame, call, givenDevice(ctx, ex, frame, call));
    // `nn.CrossEntropyLoss(weight=w)`, `BCEWithLogitsLoss(pos_weight=p)`: the loss holds
    // that tensor as a buffer, so it is where the tensor is (and moves with .to()).
    const held = ['weight', 'pos_weight'].map((k) => args.keywords.get(k)).find((n) => n !== undefined);
    const tensor = held ? argValues.find((a) => a.node === held)?.value : undefined;
    const reduction = args.keywords.get('reduction');
    const scalarOutput = lossReturnsScalar(last, reduction && (stringLiteralValue(reduction) ?? '?'), args.keywords.get('reduce')?.text) || undefined;
    if (tensor && tensor.kind === 'tensor' && tensor.place !== UNTRACKED) {
      return value('module', tensor.place, {
        deviceText: tensor.deviceText, origin: { unit: frame.unit, node: call, what: `built with \`${held!.text}\`${tensor.place === CPU ? ' on the CPU' : ''} here` },
        factory: { unit: frame.unit, node: call, scope: frame.id }, scalarOutput,
      });
    }
    return value('module', UNTRACKED, { placeless: true, torchClasses: [`torch.nn.${last}`], scalarOutput });
  }
  if (isPretrainedModelLoad(q) && !pretrainedLoadPlaces(args.keywords, args.hasSplat)) {
    // `factory`: DD001's fix moves it where it is loaded (`from_pretrained(...).to(device)`).
    return value('module', defaultPlace(ctx, frame), {
      origin: { unit: frame.unit, node: call, what: 'loaded on the CPU here' }, factory: { unit: frame.unit, node: call, scope: frame.id },
    });
  }
  // Placed by its loader (`device_map="auto"`): a module, where the analysis cannot say.
  if (isPretrainedModelLoad(q)) return value('module', UNTRACKED);
  if (isParameterFreeLibraryModule(q)) return value('module', UNTRACKED, { placeless: true });
  if (isModelZooConstructor(q)) return createdModule(ctx, frame, call, undefined, isMetricConstructor(q) ? { gradlessOutput: true } : isBufferOnlyModuleConstructor(q) ? { noParameters: true } : {});
  if (GRADIENT_NORM_FUNCTIONS.has(q)) {
    // `norm = clip_grad_norm_(model.parameters(), 1.0)`: `np.isnan(norm)` converts a GPU tensor.
    const given = argValues[0]?.value;
    const weight = given && (isTensorLike(given) ? given : given.anyElement);
    return weight && isTensorLike(weight) && weight.place !== UNTRACKED
      ? value('tensor', weight.place, { grad: 'no', scalar: true, deviceText: weight.deviceText, origin: { unit: frame.unit, node: call, what: 'the gradient norm, computed where the parameters are, here' } })
      : value('tensor', UNTRACKED, { grad: 'no', scalar: true });
  }
  if (isTensorFunction(q)) {
    const tensors = flattenTensorArgs(withoutAnyDeviceArguments(argValues, args, [q]), q);
    ctx.events.tensorsReachConsumer(frame, tensors);
    const result = ex.tensorOperation(frame, call, tensors, /loss|cross_entropy|kl_div/.test(last) ? 'consumer' : 'op');
    if (isNonTensorResult(last)) return OTHER;
    const operands = tensors.filter((t) => isTensorLike(t.value));
    if (POINTWISE_FUNCTIONS.has(last) && operands.length && operands.every((t) => t.value.scalar)) return { ...result, scalar: true };
    // `torch.max(x)`, `torch.sum(x)`: a reduction over every element is 0-dim, as `x.max()` is.
    if (FULL_REDUCTIONS.has(last) && q === `torch.${last}` && args.positional.length === 1 && !args.hasSplat && !args.keywords.has('dim') && !args.keywords.has('axis')) return { ...result, scalar: true };
    if (INTEGER_RESULT_FUNCTIONS.has(last)) return { ...result, grad: 'no' };
    return VALUES_INDICES_FUNCTIONS.has(last) ? { ...result, grad: result.grad === 'no' ? 'no' : 'unknown' } : result;
  }
  if (PROBING_SUMMARIES.has(q) && argValues[0]) {
    probeSummary(ctx, ex, frame, call, args, argValues[0]);
    return OTHER;
  }
  // A function from another module (a training `engine.train(model=...)`) may move the model.
  if (!q.startsWith('torch.')) forgetMovableModules(frame, argValues);
  if (GRAPH_LOADER.test(q)) {
    // A loader over a graph whose features were moved (`data.to(device, 'x', 'y')`, for
    // faster sampling) yields batches partly on the accelerator: not known to be on the CPU.
    const source = args.positional[0] ?? args.keywords.get('data') ?? args.keywords.get('dataset');
    const from = source && argValues.find((a) => a.node === source)?.value;
    if ((!source && args.hasSplat) || (from && from.place !== UNTRACKED && hasAccel(from.place))) return value('other');
    return value('loader', UNTRACKED, { graph: true, origin: { unit: frame.unit, node: call, what: 'loader created here' } });
  }
  // Another library's loader yields its own batch types.
  if ((!q.startsWith('torch.') && /Loader$/.test(last)) || LIBRARY_BATCH_ITERATORS.test(q)) return value('other');
  return UNKNOWN;
}

/**
 * A container built empty, after its first fill: where the modules put in it are (a move of
 * the empty container moved nothing), or not known when what went in is not a known module
 * (`add_module(name, layer)` of a layer the analysis cannot place).
 */
function filledContainer(recv: Value, method: string, given: Arg[]): Value {
  const added = (method === 'add_module' || method === 'register_module' || method === 'insert' ? given[1] : given[0])?.value;
  const placedModule = (m: Value) => (m.kind === 'module' || m.kind === 'unknown') && m.place !== UNTRACKED;
  const modules = !added ? [] : placedModule(added) ? [added] : containedValues(added);
  const placed = modules.length > 0 && modules.every(placedModule) ? modules.reduce((a, b) => joinValues(a, b)) : undefined;
  if (!placed) return { ...recv, emptyContainer: undefined, place: UNTRACKED, origin: undefined, deviceText: undefined };
  return placed.place === recv.place
    ? { ...recv, emptyContainer: undefined }
    : { ...recv, emptyContainer: undefined, place: placed.place, origin: placed.origin, deviceText: placed.deviceText };
}


/**
 * `nn.Sequential(encoder, head)`, `nn.Sequential(*list(net.children())[:-1])`: a container of
 * modules built elsewhere is where they are (the join of their places); one of a place not
 * known is not known. Undefined when it is given no module built elsewhere: then it is
 * built here, on the CPU, as its freshly made layers are.
 */
function heldModulesPlace(ex: Evaluator, frame: Frame, call: Node, args: CallArguments, argValues: Arg[]): Value | undefined {
  const given = [...argValues.map((a) => a.value), ...args.splats.map((n) => ex.eval(frame, n))];
  const modules = given.flatMap((v) => (v.kind === 'module' ? [v] : containedValues(v).filter((e) => e.kind === 'module')));
  const builtElsewhere = (m: Value) => m.origin !== undefined && (m.origin.unit !== frame.unit || !isInside(m.origin.node, call));
  if (modules.length === 0 || !modules.some(builtElsewhere)) return undefined;
  const placed = modules.filter((m) => !m.placeless);
  if (placed.length === 0) return undefined;
  const joined = placed.reduce((a, b) => joinValues(a, b));
  return value('module', joined.place, { deviceText: joined.deviceText, origin: joined.origin, factory: { unit: frame.unit, node: call, scope: frame.id } });
}

/** Every module the container is given is one without parameters (and it is given some, all in view). */
function holdsOnlyPlaceless(ex: Evaluator, frame: Frame, args: CallArguments, argValues: Arg[]): boolean {
  if (args.keywords.size > 0) return false;
  const values = [...argValues.map((a) => a.value), ...args.splats.map((n) => ex.eval(frame, n))];
  // A list whose items are not known (filled elsewhere) counts as itself, no module.
  const given = values.flatMap((v) => (v.kind !== 'module' && isContainer(v) && containedValues(v).length > 0 ? containedValues(v) : [v]));
  return given.length > 0 && given.every((v) => v.kind === 'module' && v.placeless === true);
}

/**
 * The container is given a module that keeps buffers only, and nothing that may hold
 * parameters: the others are modules without any, or objects that are no module the
 * analysis knows (a torchvision transform).
 */
function holdsNoParameters(args: CallArguments, argValues: Arg[]): boolean {
  if (args.keywords.size > 0 || args.splats.length > 0) return false;
  const given = argValues.map((a) => a.value);
  const mayHoldParameters = (v: Value) => v.kind === 'module' && !v.placeless && !v.noParameters;
  return given.some((v) => v.kind === 'module' && v.noParameters === true) && !given.some(mayHoldParameters) && given.every((v) => v.kind === 'module' || v.kind === 'other' || v.kind === 'unknown');
}

function isInside(node: Node, outer: Node): boolean {
  return node.startIndex >= outer.startIndex && node.endIndex <= outer.endIndex;
}

/** torchsummary's summary: the model meets a probe input made on its `device` argument ("cuda" unless told). */
function probeSummary(ctx: RoundContext, ex: Evaluator, frame: Frame, call: Node, args: CallArguments, model: Arg): void {
  if (model.value.kind !== 'module' || args.hasSplat) return;
  const deviceNode = args.keywords.get('device') ?? args.positional[3];
  const literal = deviceNode && stringLiteralValue(deviceNode);
  const given = deviceNode && literal === undefined ? ex.eval(frame, deviceNode) : undefined;
  const place = !deviceNode ? ACCEL : literal !== undefined ? (isAcceleratorDeviceString(literal) ? ACCEL : UNTRACKED)
    : given?.kind === 'device' ? given.place : UNTRACKED;
  if (!hasAccel(place)) return;
  const sizeNode = args.positional[1] ?? args.keywords.get('input_size') ?? call;
  const probe = value('tensor', place, { grad: 'no', deviceText: deviceNode?.text, origin: { unit: frame.unit, node: call, what: `made by summary on ${deviceNode?.text ?? '"cuda"'} here` } });
  ctx.events.moduleCall(frame, call, model.node, model.value, [{ node: sizeNode, value: probe }]);
}

/**
 * Factories that build a tensor from other tensors (a sparse tensor from its indices and
 * values, a complex one from its real and imaginary parts): without `device=` it is where
 * those are, not on the CPU.
 */
/** `register_buffer("name", t)` / `register_parameter("name", p)`: the attribute it defines, holding a tensor that follows the module. */
function registeredState(ex: Evaluator, frame: Frame, method: string, args: CallArguments): { name: string; value: Value } | undefined {
  const keyword = STATE_REGISTRATIONS.get(method);
  if (keyword === undefined || args.hasSplat) return undefined;
  const nameNode = args.positional[0] ?? args.keywords.get('name');
  const name = nameNode && stringLiteralValue(nameNode);
  const tensorNode = args.positional[1] ?? args.keywords.get(keyword);
  if (!name || !/^\w+$/.test(name) || !tensorNode) return undefined;
  const v = ex.eval(frame, tensorNode);
  // `register_buffer("mask", None)`: a slot filled later, nothing to place yet.
  if (v.isNone || (v.kind !== 'tensor' && v.kind !== 'unknown')) return undefined;
  return { name, value: { ...v, kind: 'tensor', parameter: true, factory: undefined } };
}

/** `Categorical(logits=x)`, `Normal(mean, std)`: a distribution where its parameter tensors are. */
function distributionOf(ex: Evaluator, frame: Frame, call: Node, args: CallArguments): Value {
  const params = evalArgs(ex, frame, args).map((a) => a.value).filter((v) => isTensorLike(v) && v.kind !== 'module');
  const placed = params.find((v) => v.place !== UNTRACKED);
  // Where none of its parameters is known, neither are its samples: unknown, as any other call's
  // result (a tensor of untracked place would hide the place of what it is combined with).
  if (!placed) return UNKNOWN;
  return value('other', placed.place, {
    distribution: true, grad: params.some((v) => v.grad === 'yes') ? 'yes' : 'no', deviceText: placed.deviceText,
    origin: { unit: frame.unit, node: call, what: 'made from its parameters here' },
  });
}

/** `probs.sample()`, `probs.log_prob(action)`: a tensor where the distribution's parameters are; an argument meets them. */
function distributionMethod(ctx: RoundContext, ex: Evaluator, frame: Frame, call: Node, objNode: Node, recv: Value, method: string, args: CallArguments): Value {
  const operands = evalArgs(ex, frame, args).filter((a) => isTensorLike(a.value) && a.value.kind !== 'module');
  if (operands.length) ctx.events.tensorOperation(frame, call, [{ node: objNode, value: { ...recv, kind: 'tensor', distribution: undefined } }, ...operands], 'op');
  const keepsGraph = DISTRIBUTION_TENSOR_METHODS.get(method) === true;
  return value('tensor', recv.place, {
    grad: keepsGraph ? recv.grad : 'no', deviceText: recv.deviceText,
    origin: { unit: frame.unit, node: call, what: `drawn from \`${shortText(objNode)}\` here` },
  });
}

/** `weight = torch.ones(n)` (or `weight: Tensor = ...`) as a statement of the function's text. */
function rebindsName(text: string, name: string): boolean {
  return new RegExp(`^\\s*${name}\\s*(:[^=\\n]*)?=(?!=)`, 'm').test(text);
}

/** A number, a string, a flag: a value that is no tensor, module or object and holds none. */
function holdsNoTensor(v: Value | undefined): boolean {
  // `[[10, 13], [16, 30]]`: a list of lists of numbers is as plain as a number.
  if (v?.elements && v.kind === 'other' && !v.entries && !v.anyElement) return v.elements.every(holdsNoTensor);
  return v !== undefined && v.kind === 'other' && v.place === UNTRACKED && !v.className && v.classKey === undefined && v.functionId === undefined
    && !v.elements && !v.entries && !v.anyElement && !v.isNone;
}

/** The place the parts share (the first tracked one), if any is a tensor. */
function sharedPlaceOf(args: Arg[]): Value | undefined {
  const parts = args.slice(0, 3).map((a) => a.value).filter((v) => isTensorLike(v) && v.kind !== 'module');
  return parts.find((v) => v.place !== UNTRACKED) ?? parts[0];
}

/** Functions that run their first argument, a model, on example inputs: the inputs' expression. */
function modelRunnerInputs(q: string, args: CallArguments): Node | undefined {
  const keyword = MODEL_RUNNERS.get(q);
  if (keyword === undefined || args.hasSplat) return undefined;
  return args.positional[1] ?? args.keywords.get(keyword);
}

const MODEL_RUNNERS = new Map([
  ['torch.onnx.export', 'args'], ['torch.jit.trace', 'example_inputs'], ['torch.export.export', 'args'],
]);

/**
 * The default device set so far by the analysed file's module code (`torch.set_default_device`),
 * kept in the environment so that branches and loops join it; no Python name looks like it.
 */
const DEFAULT_DEVICE_KEY = '<default device>';

/**
 * Where the `def` statement keeps what a default that reads a name (`train_data=X_train`)
 * was when the `def` ran: Python evaluates defaults then, not at each call, so a later
 * `X_train = X_train.to(device)` does not change what the parameter defaults to.
 */
export function definedDefaultKey(fnId: number, param: string): string {
  return `<default ${fnId}.${param}>`;
}

/** Where a factory without `device=` puts its tensor: the CPU, unless a default device is set. */
function defaultPlace(ctx: RoundContext, frame: Frame) {
  const scoped = frame.defaultDevices[frame.defaultDevices.length - 1];
  if (scoped !== undefined) return scoped;
  if (!ctx.program.setsDefaultDevice) return CPU;
  if (ctx.program.defaultDeviceFollowsModuleCode && isAnalysedModuleCode(ctx, frame)) return frame.env.get(DEFAULT_DEVICE_KEY)?.place ?? CPU;
  return UNTRACKED;
}

function isAnalysedModuleCode(ctx: RoundContext, frame: Frame): boolean {
  return frame.id === -1 && ctx.program.units[frame.unit]?.module === 0;
}

function createdWhat(place: Place): string {
  return place === CPU ? 'created on the CPU here' : 'created on the default device here';
}

/** A new module: on its `device=` (or `**kwargs`) device, else the default device (`with torch.device(d):`). */
function createdModule(ctx: RoundContext, frame: Frame, call: Node, device?: { place: Place; text?: string }, extra: Partial<Value> = {}): Value {
  const place = device ? device.place : defaultPlace(ctx, frame);
  const what = device?.text ? `created on ${device.text} here` : createdWhat(place);
  return value('module', place, { ...extra, deviceText: device?.text, origin: { unit: frame.unit, node: call, what }, factory: { unit: frame.unit, node: call, scope: frame.id } });
}

const NON_TENSOR_TORCH = /^(is_\w+|set_\w+|get_\w+|manual_seed|seed|initial_seed|save|load|compile|no_grad|enable_grad|inference_mode|autocast|use_deterministic_algorithms|typename|numel|result_type|promote_types|can_cast|finfo|iinfo|device|Size|Generator|empty_cache|synchronize)$/;

function isTensorFunction(q: string): boolean {
  if (LIBRARY_TENSOR_FUNCTIONS.test(q)) return true;
  const m = /^torch\.(?:(nn\.functional|linalg|fft|special|sparse)\.)?([a-z_]\w*)$/.exec(q);
  if (!m) return false;
  return !NON_TENSOR_TORCH.test(m[2]) || m[2] === 'equal' || m[2] === 'allclose';
}

function isNonTensorResult(name: string): boolean {
  return NON_TENSOR_TORCH.test(name) || name === 'equal' || name === 'allclose';
}

/**
 * The arguments that must meet the others: less those one of `apis` takes on any device
 * (ANY_DEVICE_ARGUMENTS). A callee that may be such an API is no evidence that they must meet.
 */
function withoutAnyDeviceArguments(argValues: Arg[], args: CallArguments, apis: readonly string[]): Arg[] {
  const skipped = new Set<Node>();
  for (const api of apis) {
    const free = ANY_DEVICE_ARGUMENTS.get(api);
    if (!free) continue;
    for (const i of free.positions) if (args.positional[i]) skipped.add(args.positional[i]!);
    for (const k of free.keywords) if (args.keywords.get(k)) skipped.add(args.keywords.get(k)!);
  }
  return skipped.size === 0 ? argValues : argValues.filter((a) => !skipped.has(a.node));
}

/** `torch.cat([a, b])`: the tensors are the list's elements. */
function flattenTensorArgs(args: Arg[], q: string): Arg[] {
  if (!/^torch\.(cat|concat|concatenate|stack|hstack|vstack|dstack|column_stack|block_diag|broadcast_tensors)$/.test(q)) return args;
  const first = args[0];
  const seq = first && unparen(first.node);
  if (!seq) return args;
  if (seq.type !== 'list' && seq.type !== 'tuple') {
    // `torch.cat(outputs)` of a list grown with append: its elements, at the argument. A
    // sequence whose elements are not known (a loader's batch of views) is where it is.
    const held = containedValues(first.value);
    if (held.length === 0) return args;
    return [...held.map((v) => ({ node: first.node, value: v })), ...args.slice(1)];
  }
  return elementArgs(first);
}

/** Calls of the program's own functions and classes: record the call site, use the summary. */
function evalLocalCall(ctx: RoundContext, ex: Evaluator, frame: Frame, call: Node, name: string, args: CallArguments): Value | undefined {
  // The definition in effect here (a `def` binds its name when it runs), else a local
  // variable that shadows it, else the module's last definition (a call from a function
  // body runs after the whole module ran).
  const bound = frame.env.get(name) ?? frame.outer?.get(name);
  if (bound?.functionId !== undefined && !bound.lambdas) return callFunction(ctx, ex, frame, call, ctx.program.functions[bound.functionId], args);
  if (bound?.functionChoices || bound?.lambdas) return callCallables(ctx, ex, frame, call, bound, args, evalArgs(ex, frame, args));
  const boundClass = bound?.classKey ? ctx.program.classes.get(bound.classKey) : undefined;
  if (boundClass) return instantiate(ctx, ex, frame, call, boundClass, args);
  if (frame.env.has(name)) return undefined;
  const fn = ctx.program.localFunction(frame.unit, name);
  if (fn) return callFunction(ctx, ex, frame, call, fn, args);
  const cls = ctx.program.localClass(frame.unit, name);
  if (cls) return instantiate(ctx, ex, frame, call, cls, args);
  if (name === 'dict') return deviceKwargsCall(ctx, ex, frame, call);
  if (name === 'isinstance' && args.positional.length === 2 && !args.hasSplat && args.keywords.size === 0) {
    const truth = isinstanceOutcome(ex.eval(frame, args.positional[0]!), ctx.program.importsAt(frame.unit).qualify(args.positional[1]!));
    return truth === undefined ? OTHER : value('other', UNTRACKED, { truth });
  }
  if (name === 'int') {
    evalArgs(ex, frame, args);
    return INTEGER;
  }
  if (name === 'map') {
    const mapped = mapWithLambda(ex, frame, args);
    if (mapped) return mapped;
  }
  // `list(zip(users, items, ratings))`: rows of a row of each; `list(rows)` is those rows;
  // `list(net.parameters())[0]` one of the model's parameters.
  if (name === 'zip' && !args.hasSplat && args.keywords.size === 0) return rowsOf(evalArgs(ex, frame, args).map((a) => a.value));
  const listed = (name === 'list' || name === 'tuple') && args.positional.length === 1 && !args.hasSplat ? unparen(args.positional[0]) : undefined;
  const listedCallee = listed?.type === 'call' ? field(listed, 'function') : undefined;
  const listsParameters = listedCallee?.type === 'attribute' && /^(named_)?(parameters|buffers|children|modules)$/.test(field(listedCallee, 'attribute')?.text ?? '');
  // `batch = tuple(t.to(device) for t in batch)`: every item is what the generator makes.
  const comprehension = listed?.type === 'generator_expression' || listed?.type === 'list_comprehension';
  if (listed && (listed.type === 'identifier' || listsParameters || comprehension || (listed.type === 'call' && listedCallee?.text === 'zip'))) {
    const items = ex.eval(frame, listed);
    if (items.kind === 'other' && items.anyElement && !items.entries) return items;
    return UNKNOWN;
  }
  // `pbar = enumerate(loader)`, iterated later (loops.ts): the loader's batches, each with its index.
  if (name === 'enumerate' && args.positional.length === 1 && !args.hasSplat && args.keywords.size === 0) {
    const [loader] = evalArgs(ex, frame, args);
    return loader && wrapsLoader(loader) ? { ...loader.value, kind: 'loader', enumerated: true } : UNKNOWN;
  }
  if (name === 'next' || name === 'iter') {
    const inner = args.positional[0];
    const v = inner ? ex.eval(frame, inner) : UNKNOWN;
    const isLoader = v.kind === 'loader' || (v.kind === 'unknown' && !v.className && inner !== undefined && LOADER_LIKE_NAME.test(dottedKey(unparen(inner)) ?? ''));
    if (name === 'iter') return isLoader ? { ...v, kind: 'loader' } : v.anyElement ? v : UNKNOWN;
    if (!isLoader && v.anyElement) return v.anyElement;
    // `next(iter(loader))`: one batch, on the CPU (or where the framework that made the loader puts it), outside any loop;
    // a graph loader's is a graph, as a loop's batch is (loops.ts).
    const batch = !isLoader ? UNKNOWN : v.placedBy ? value('tensor', v.placedBy.place, { grad: 'no', deviceText: v.placedBy.deviceText })
      : value('tensor', CPU, { grad: 'no', graph: v.graph, origin: { unit: frame.unit, node: call, what: 'loaded on the CPU here' } });
    return isLoader && v.enumerated ? value('other', UNTRACKED, { elements: [INTEGER, batch] }) : batch;
  }
  return undefined;
}

/**
 * `map(lambda t: t.to(device), (a, b))`: the lambda applied to each element, so that
 * `a, b = map(...)` unpacks the moved tensors (a list or tuple written out, or a value whose
 * elements are known; otherwise its any-element).
 */
function mapWithLambda(ex: Evaluator, frame: Frame, args: CallArguments): Value | undefined {
  const [fn, seq] = args.positional;
  if (args.positional.length !== 2 || args.hasSplat || args.keywords.size || fn?.type !== 'lambda' || !seq) return undefined;
  // One plain parameter (`lambda t: ...`); not `lambda: ...`, `lambda *ts: ...` or defaults.
  const params = children(field(fn, 'parameters') ?? fn.parent ?? fn);
  const param = field(fn, 'parameters') && params.length === 1 && params[0]!.type === 'identifier' ? params[0]! : undefined;
  const body = field(fn, 'body');
  if (!param || !body) return undefined;
  const apply = (element: Value): Value => {
    const outside = frame.env;
    frame.env = outside.clone();
    frame.env.set(param.text, element);
    try {
      return ex.eval(frame, body);
    } finally {
      frame.env = outside;
    }
  };
  const items = ex.eval(frame, seq);
  if (items.elements) return value('other', UNTRACKED, { elements: items.elements.map(apply) });
  return items.anyElement ? value('other', UNTRACKED, { anyElement: apply(items.anyElement) }) : UNKNOWN;
}

/**
 * A value that may be one of several of the program's functions or lambdas (`create_net =
 * create_vgg_ssd` on one path, `lambda n: create_lite(n, width)` on another): each runs with
 * the call's arguments, and the call gives any of their results.
 */
function callCallables(ctx: RoundContext, ex: Evaluator, frame: Frame, call: Node, callee: Value, args: CallArguments, argValues: Arg[]): Value {
  const functions = functionIdsOf(callee).map((id) => ctx.program.functions[id]);
  // A nested def returned and called elsewhere (`default_init(s)(shape)` of a closure over
  // `device`) would read its enclosing function's names in the wrong scope: as for lambdas,
  // only where that scope is the caller's own.
  if (functions.some((fn) => fn.parent !== -1 && fn.parent !== frame.id)) return UNKNOWN;
  const results = functions.map((fn) => callFunction(ctx, ex, frame, call, fn, args, 0, argValues));
  if (callee.lambdas) results.push(callLambdas(ex, frame, callee.lambdas, args, argValues) ?? UNKNOWN);
  return results.length ? results.reduce((a, b) => joinValues(a, b)) : UNKNOWN;
}

/** Lambdas applied inside lambdas, at most: a lambda that returns itself applied must end. */
const MAX_LAMBDA_DEPTH = 4;
let lambdaDepth = 0;

/**
 * `makers[kind]()` of `makers = {"flat": lambda: torch.randn(n, w, device=dev), ...}`, `act(x)`
 * of `act = lambda t: t.relu()`: each lambda's body with the call's arguments bound, joined.
 * Only where its free names mean what they meant where it was written: called in the scope
 * that evaluated it (its variables as they are now), or written at module level. Undefined
 * when a parameter or argument is of a form not followed (`*args`, a keyword it lacks).
 */
function callLambdas(ex: Evaluator, frame: Frame, lambdas: NonNullable<Value['lambdas']>, args: CallArguments, argValues: readonly Arg[]): Value | undefined {
  if ((lambdas.scope !== frame.id && !lambdas.moduleLevel) || args.hasSplat || lambdaDepth >= MAX_LAMBDA_DEPTH) return undefined;
  const results: Value[] = [];
  // `lambda model: train_epoch(model, it)` moving the model in place: the caller's argument, as a call of a def moves it.
  const modulesAfter = new Map<string, { before: Value; after: Value[] }>();
  for (const node of lambdas.nodes) {
    const bound = lambdaBindings(ex, frame, node, args, argValues);
    const body = field(node, 'body');
    if (!bound || !body) return undefined;
    const outside = frame.env;
    // Called where it was made: its body reads that scope's variables; made at module level
    // and called in a function: only the module's (the function's locals are not its own).
    frame.env = lambdas.scope === frame.id ? outside.clone() : new Env();
    for (const [name, { value: v }] of bound) frame.env.set(name, v);
    lambdaDepth++;
    try {
      results.push(ex.eval(frame, body));
      for (const [name, { value: before, node: argNode }] of bound) {
        const key = argNode && before.kind === 'module' ? dottedKey(argNode) : undefined;
        if (!key) continue;
        const kept = modulesAfter.get(key) ?? { before, after: [] };
        kept.after.push(frame.env.get(name) ?? before);
        modulesAfter.set(key, kept);
      }
    } finally {
      lambdaDepth--;
      frame.env = outside;
    }
  }
  // Only a module some lambda moved: one none touched keeps the caller's binding as it was.
  for (const [key, { before, after }] of modulesAfter) {
    if (after.some((v) => !sameValue(v, before))) frame.env.set(key, after.reduce((a, b) => joinValues(a, b)));
  }
  return results.reduce((a, b) => joinValues(a, b));
}

/** The lambda's parameters bound to the call's arguments (defaults where left out), with the argument each came from; undefined for other forms. */
function lambdaBindings(ex: Evaluator, frame: Frame, node: Node, args: CallArguments, argValues: readonly Arg[]): Map<string, { value: Value; node?: Node }> | undefined {
  const params = field(node, 'parameters');
  const bound = new Map<string, { value: Value; node?: Node }>();
  const given = new Map([...args.keywords.keys()].map((k, i) => [k, argValues[args.positional.length + i]] as const));
  let position = 0;
  for (const p of params ? children(params) : []) {
    const name = p.type === 'identifier' ? p : p.type === 'default_parameter' ? field(p, 'name') : null;
    if (!name || name.type !== 'identifier') return undefined;
    const arg = position < args.positional.length ? argValues[position] : given.get(name.text);
    position++;
    const defaultNode = p.type === 'default_parameter' ? field(p, 'value') : null;
    const v = arg?.value ?? (defaultNode ? ex.eval(frame, defaultNode) : undefined);
    if (!v) return undefined;
    given.delete(name.text);
    bound.set(name.text, { value: v, node: arg?.node });
  }
  return position >= args.positional.length && given.size === 0 ? bound : undefined;
}

/**
 * A class one of whose methods moves its own instance (`self.cuda()` in `__init__`): where a
 * call site saw an instance is not where its layers are.
 */
function movesItself(ctx: RoundContext, className: string | undefined): boolean {
  if (!className) return true;
  return ctx.program.classLineage(className).some((key) => [...ctx.program.classes.get(key)?.methods.values() ?? []]
    .some((m) => !!m.selfName && movedParamsOf(ctx.bodyFact(m, 'movedParams')).has(m.selfName)));
}

function inheritsFrom(ctx: RoundContext, classKey: string, base: string | undefined): boolean {
  return !!base && ctx.program.classLineage(classKey).includes(base);
}

/**
 * A call of one of the program's functions (this module's or an imported one's, or a
 * method with `skip` 1 for its `self`): what it returns for these arguments, and the
 * modules it moved in place, from its parametric summary; the joined summary otherwise.
 */
function callFunction(
  ctx: RoundContext, ex: Evaluator, frame: Frame, call: Node, fn: FunctionInfo, args: CallArguments, skip = 0, evaluated?: Arg[], module?: Arg, receiver?: Arg,
  onSelf?: { key: string; className: string; building?: boolean },
  onInstance?: { key: string; value: Value },
  interpreted?: FollowedCall,
): Value {
  const site = recordCallSite(ctx, ex, frame, fn, args, skip, evaluated);
  const placedReceiver = receiver && fn.selfName && receiver.value.kind === 'module' && !receiver.value.placeless &&
    (receiver.value.place === CPU || receiver.value.place === ACCEL) && !movesItself(ctx, fn.className) ? receiver : undefined;
  const bound = new Map(site.bound);
  if (placedReceiver) bound.set(RECEIVER, placedReceiver.value);
  // A base-class method runs for the instance's class: its `self.debug(...)` is the override.
  const selfClass = onSelf?.className ?? (fn.selfName ? receiver?.value.className : undefined);
  if (selfClass && selfClass !== fn.className && (onSelf || inheritsFrom(ctx, selfClass, fn.className))) {
    bound.set(SELF_CLASS, value('other', UNTRACKED, { className: selfClass }));
  }
  if (onSelf?.building && fn.selfName) bound.set(BUILDING, OTHER);
  const result = ctx.callInContext(fn, bound, frame, call);
  if (!result) {
    ctx.next.markPlainCall(fn.id);
    return computedUnderNoGrad(frame, ctx.previous.returnOf(fn.id) ?? UNKNOWN);
  }
  ctx.next.markContextCall(fn.id);
  if (interpreted) interpreted.ran = true;
  // `self.init_model()` that moved `self.gen`: this method's instance has it moved from here on.
  if (onSelf) for (const [attr, v] of result.selfWrites ?? []) frame.env.set(`${onSelf.key}.${attr}`, v);
  if (onInstance) movedOnInstance(frame, onInstance, result.selfWrites);
  for (const m of result.meetings) {
    // The method's own layers met an accelerator on the CPU: the receiver is what to move.
    const arg = m.param === RECEIVER ? placedReceiver : site.args.find((a) => a.param === m.param);
    const value = m.param === RECEIVER ? placedReceiver?.value : site.bound.get(m.param);
    if (!arg || !value) continue;
    if (interpreted?.quiet) {
      interpreted.met?.add(m.param);
      continue;
    }
    // Inside another function interpreted for its call site: that caller's parameter, if it is one.
    if (frame.meetings) {
      if (value.param) frame.meetings.push({ ...m, param: value.param });
    } else {
      ctx.events.argumentMeetsAccelerator(frame, call, { node: arg.node, value }, m.other, { unit: fn.unit, node: m.at }, module);
    }
  }
  for (const { node, param } of site.args) {
    const before = site.bound.get(param);
    const after = result.params.get(param);
    const key = dottedKey(node);
    // `def prepare(model, device): model.to(device)` moves the caller's model too.
    if (key && before?.kind === 'module' && after?.kind === 'module' && after.origin?.what.startsWith('moved')) {
      frame.env.set(key, before.holds ? { ...after, holds: before.holds } : after);
      moveHeldModules(frame, key, before, after);
    }
  }
  // `h = overlay(x, label)` returning a copy of its CPU parameter, inside a function whose
  // CPU inputs are reported at its calls: h is still that caller's argument.
  const from = result.returnedParam ? site.bound.get(result.returnedParam) : undefined;
  if (result.returned && from?.param) return computedUnderNoGrad(frame, { ...result.returned, param: from.param });
  return computedUnderNoGrad(frame, result.returned ?? ctx.previous.returnOf(fn.id) ?? UNKNOWN);
}

/**
 * A function called under `torch.no_grad()` runs under it, wherever it is defined: what it
 * computes carries no graph. An `nn.Parameter` it hands back still requires grad.
 */
function computedUnderNoGrad(frame: Frame, v: Value): Value {
  if (frame.noGrad === 0) return v;
  if (v.kind === 'tensor') return v.grad === 'yes' && !v.parameter ? { ...v, grad: 'no' } : v;
  // `return out, {"pre": out * 2}`: what a tuple, list or dict holds was computed under it too.
  if (!isContainer(v)) return v;
  const under = (e: Value) => computedUnderNoGrad(frame, e);
  const out: Value = { ...v };
  if (v.elements) out.elements = v.elements.map(under);
  if (v.entries) out.entries = new Map([...v.entries].map(([k, e]) => [k, under(e)]));
  if (v.anyElement) out.anyElement = under(v.anyElement);
  return out;
}

/** `DataParallel(model)`, `torch.compile(model)`: the module given, where it is; a scattering wrapper moves the inputs. */
function wrapped(wrapper: string, model: Value | undefined): Value {
  const inner = model ?? UNKNOWN;
  return INPUT_SCATTERING_WRAPPERS.has(wrapper) ? { ...inner, kind: 'module', movesInputs: true } : inner;
}

/** `Net(...)`: an instance of one of the program's classes; an nn.Module subclass starts on the CPU. */
function instantiate(ctx: RoundContext, ex: Evaluator, frame: Frame, call: Node, built: ClassInfo, args: CallArguments): Value {
  const cls = ctx.classFacts(built);
  const init = ctx.program.methodOf(cls.key, '__init__');
  if (init) ctx.next.markPlainCall(init.id);
  if (cls.isLoader) return instantiateLoader(ctx, ex, frame, call, cls, init, args);
  if (cls.wraps) {
    const argValues = evalArgs(ex, frame, args);
    if (init) recordCallSite(ctx, ex, frame, init, args, 1, argValues);
    const given = args.keywords.get('module');
    return wrapped(cls.wraps, (given ? argValues.find((a) => a.node === given) : argValues[0])?.value);
  }
  const site = init ? recordCallSite(ctx, ex, frame, init, args, 1) : undefined;
  if (!init) evalArgs(ex, frame, args);
  // `TopK(2)` of a class that only keeps its constructor's arguments: given plain values, it holds nothing.
  // `weight=None` left as given (not rebound to a tensor in `__init__`) is as plain as a number.
  const plain = (p: string) => holdsNoTensor(site!.bound.get(p)) || (!!site!.bound.get(p)?.isNone && !!init && !rebindsName(field(init.node, 'body')?.text ?? init.node.text, p));
  const holdsNothing = cls.placeless || (site !== undefined && cls.placelessGiven?.every(plain));
  if (cls.isModule && holdsNothing) return value('module', UNTRACKED, { placeless: true, className: cls.key });
  // A model-parallel class is on no single device: its submodules are where it put them.
  if (placesOwnSubmodules(ctx, cls.key)) return value('module', UNTRACKED, { className: cls.key });
  // A wrapper that owns nothing is where the modules it keeps are.
  const kept = cls.isModule && site ? ctx.programFact('wrapper module classes', wrapperClasses).get(cls.key) : undefined;
  const wrapper = kept && site ? wrapperInstance(cls, kept, site.bound, { unit: frame.unit, node: call }) : undefined;
  if (wrapper) return wrapper;
  if (!cls.isModule) return value('other', UNTRACKED, { className: cls.key, holds: site && heldModules(ctx, cls, site.bound) });
  const placedBy = init && site ? constructorDevice(ctx, init, site.bound) : undefined;
  // A class that may freeze its own weights (`p.requires_grad = False` over `self.parameters()`,
  // `self.requires_grad_(False)`, maybe under a constructor flag): its output need not have a graph.
  const freezes = ctx.programFact('module classes that may freeze their own weights', classesFreezingThemselves).has(cls.key);
  return createdModule(ctx, frame, call, placedBy, { className: cls.key, holds: site && heldModules(ctx, cls, site.bound), ...(freezes ? { gradlessOutput: true } : {}) });
}

/**
 * `Detector(weights, device=d)` of a class whose `__init__` hands that parameter on as a
 * device (`attempt_load(w, device=device)`, `self.to(device)`): built there, as a torch.nn
 * layer built with `device=` is. A constructor that only keeps it (`self.device = device`)
 * places nothing: the instance starts on the CPU.
 */
/**
 * `AudioLoader(dataset, batch_size=1)` of a DataLoader subclass: a loader as DataLoader's own,
 * placed by the dataset or `collate_fn` it is given; a class whose methods move tensors
 * (its own collation) puts them where the analysis does not follow.
 */
function instantiateLoader(ctx: RoundContext, ex: Evaluator, frame: Frame, call: Node, cls: ClassInfo, init: FunctionInfo | undefined, args: CallArguments): Value {
  const argValues = evalArgs(ex, frame, args);
  if (init) recordCallSite(ctx, ex, frame, init, args, 1, argValues);
  const moves = [...cls.methods.values()].some((m) => ctx.bodyFact(m, 'placesOnDevice') === true);
  const placedBy = moves ? { framework: 'collate_fn', place: UNTRACKED, deviceText: 'its device' } : collatePlacement(ctx, call, argValues);
  return value('loader', UNTRACKED, { origin: { unit: frame.unit, node: call, what: 'loader created here' }, className: cls.key, ...(placedBy ? { placedBy } : {}) });
}

function constructorDevice(ctx: RoundContext, init: FunctionInfo, bound: ReadonlyMap<string, Value>): { place: Place; text?: string } | undefined {
  for (const name of movedParamsOf(ctx.bodyFact(init, 'placingParams'))) {
    const v = bound.get(name);
    // Without the device's text: a submodule built so is where its module is put, not placed
    // apart from its siblings as a model-parallel stage is (ownPlacement.ts).
    if (v?.kind === 'device' && v.place !== UNTRACKED) return { place: v.place };
  }
  return undefined;
}

/** The modules an instance keeps of those its `__init__` was given (Value.holds), or undefined. */
function heldModules(ctx: RoundContext, cls: ClassInfo, bound: ReadonlyMap<string, Value>): Value[] | undefined {
  const stored = ctx.programFact('parameters module classes store', storedParameters).get(cls.key) ?? [];
  const held = stored.map((p) => bound.get(p)).filter((v): v is Value => !!v && v.kind === 'module' && !v.placeless && !Object.isFrozen(v));
  return held.length ? held : undefined;
}

/** Builtins that never move a module they are given. */
const PURE_BUILTINS = new Set(['print', 'len', 'isinstance', 'issubclass', 'str', 'repr', 'type', 'id', 'hasattr', 'getattr', 'list', 'tuple', 'sorted', 'sum', 'iter', 'next', 'enumerate', 'zip', 'vars', 'dir', 'hash', 'format', 'callable']);

/**
 * A module handed to code that may call `.to()` on it (a training helper from another
 * file, `trainer.fit(model)`) may come back on any device: forget its place.
 */
function forgetMovableModules(frame: Frame, args: Arg[], keep?: (key: string, index: number) => boolean): void {
  args.forEach((a, i) => {
    if (a.value.kind !== 'module' || a.value.place === UNTRACKED || a.value.placeless) return;
    const key = dottedKey(a.node);
    if (key && !keep?.(key, i)) frame.env.set(key, { ...a.value, place: UNTRACKED, origin: undefined, deviceText: undefined, factory: undefined });
  });
}

interface CallSite {
  /** Each parameter's value at this call (defaults included; unknown where nothing binds it). */
  bound: Map<string, Value>;
  /** Argument expressions with the parameter each binds. */
  args: Array<{ node: Node; param: string }>;
}

/**
 * Joins this call's argument values into the callee's parameter summary; `evaluated` holds
 * them when the caller has already evaluated the arguments (positional, then keywords).
 */
function recordCallSite(ctx: RoundContext, ex: Evaluator, frame: Frame, fn: FunctionInfo, args: CallArguments, skip: number, evaluated?: Arg[]): CallSite {
  ctx.next.markGradCall(fn.id, frame.noGrad > 0);
  const positional = evaluated ? evaluated.slice(0, args.positional.length).map((a) => a.value) : args.positional.map((n) => ex.eval(frame, n));
  const keywordValues = evaluated?.slice(args.positional.length);
  const keywords = new Map([...args.keywords].map(([k, n], i) => [k, keywordValues ? keywordValues[i].value : ex.eval(frame, n)] as const));
  const params = fn.params.slice(skip);
  // The function's own body says whether it moves a parameter in place.
  const moved = movedParamsOf(ctx.bodyFact(fn, 'movedParams'));
  const movedParams = new Set(params.filter((p) => moved.has(p.name)).map((p) => p.name));
  const rest = params.findIndex((p) => p.rest);
  const paramOf = (i: number, keyword?: string) => keyword ?? (rest >= 0 && i >= rest ? params[rest].name : params[i]?.name);
  forgetMovableModules(frame, [
    ...args.positional.map((node, i) => ({ node, value: positional[i], param: paramOf(i) })),
    ...[...args.keywords].map(([k, node]) => ({ node, value: keywords.get(k)!, param: k })),
  ].filter((a) => a.param !== undefined && movedParams.has(a.param)));
  const bound = new Map<string, Value>();
  const argNodes: CallSite['args'] = [];
  const unpacked = unpackedKeywords(ex, frame, args);
  params.forEach((p, i) => {
    let v: Value | undefined = !p.variadic && !args.hasSplat ? withLiteralTruth(positional[i], args.positional[i]) : undefined;
    if (v) argNodes.push({ node: args.positional[i], param: p.name });
    const keyword = args.keywords.get(p.name);
    if (!v && keyword) {
      v = withLiteralTruth(keywords.get(p.name), keyword);
      argNodes.push({ node: keyword, param: p.name });
    }
    if (!v) v = unpacked.entries.get(p.name);
    if (!v && p.defaultNode && (!args.hasSplat || unpacked.complete)) {
      const key = definedDefaultKey(fn.id, p.name);
      v = withLiteralTruth(frame.env.get(key) ?? frame.outer?.get(key) ?? ex.eval(frame, p.defaultNode), p.defaultNode);
    }
    ctx.next.addParam(fn.id, p.name, v ?? UNKNOWN);
    bound.set(p.name, v ?? UNKNOWN);
  });
  return { bound, args: argNodes };
}

/**
 * `True` / `False` written at the call, or as the default a call leaves in place: the callee's
 * `if unnormalize:` is decided for this call (`scale(x)` with `unnormalize=False` never runs
 * the branch that moves a statistic to the GPU). A flag only a variable gives stays undecided.
 */
function withLiteralTruth(v: Value | undefined, node: Node | undefined): Value | undefined {
  const n = node ? unparen(node) : undefined;
  if (!v || (n?.type !== 'true' && n?.type !== 'false')) return v;
  return { ...v, truth: n.type === 'true' };
}

/** A loader, or an unknown value whose name says loader (`dataloader` from `from utils import *`). */
function wrapsLoader(arg: Arg): boolean {
  const v = arg.value;
  return v.kind === 'loader' || (v.kind === 'unknown' && !v.className && LOADER_LIKE_NAME.test(dottedKey(unparen(arg.node)) ?? ''));
}

/**
 * What `**kw` arguments bind: the string keys of dicts whose keys are known (timm's
 * `dd = {'device': device, 'dtype': dtype}` passed on as `Block(..., **dd)`), and whether those
 * are all the call unpacks (no `*args`, no dict of unknown keys), so that the parameters left
 * out take their defaults as in a call without `**`.
 */
function unpackedKeywords(ex: Evaluator, frame: Frame, args: CallArguments): { entries: Map<string, Value>; complete: boolean } {
  const entries = new Map<string, Value>();
  let complete = true;
  for (const node of args.splats) {
    const v = node.parent?.type === 'dictionary_splat' ? ex.eval(frame, node) : undefined;
    if (!v?.entries || v.anyElement) complete = false;
    for (const [key, entry] of v?.entries ?? []) entries.set(key, entry);
  }
  return { entries, complete };
}

function evalMethodCall(
  ctx: RoundContext, ex: Evaluator, frame: Frame, call: Node, callee: Node, args: CallArguments, discarded: boolean,
): Value {
  const result = evalMethodCallOnce(ctx, ex, frame, call, callee, args, discarded);
  if (result.kind === 'module' || !isTensorLike(result) || result.grad === 'no') return result;
  // `.long()`, `.to(torch.uint8)`: an integer tensor never requires grad.
  const imports = ctx.program.importsAt(frame.unit);
  const dtypes = [...args.positional, args.keywords.get('dtype')].map((n) => n && (imports.qualify(n) ?? stringLiteralValue(n)));
  return isIntegerCast(field(callee, 'attribute')?.text ?? '', dtypes) ? { ...result, grad: 'no' } : result;
}

/**
 * The program's method that `super().name` or `super(Cls, self).name` names in a method of
 * one of the program's classes: the first base class of the method's class that has it.
 */
function superMethod(ctx: RoundContext, frame: Frame, objNode: Node, method: string): { fn: FunctionInfo; selfName: string; instance: string } | undefined {
  const own = frame.fn;
  if (objNode.type !== 'call' || field(objNode, 'function')?.text !== 'super' || !own?.selfName || !own.className) return undefined;
  const base = ctx.program.classLineage(own.className)[1];
  const fn = base ? ctx.program.methodOf(base, method) : undefined;
  if (!fn?.selfName) return undefined;
  return { fn, selfName: own.selfName, instance: instanceClass(frame) ?? own.className };
}

function evalMethodCallOnce(
  ctx: RoundContext, ex: Evaluator, frame: Frame, call: Node, callee: Node, args: CallArguments, discarded: boolean,
): Value {
  const objNode = field(callee, 'object');
  const method = field(callee, 'attribute')?.text ?? '';
  if (!objNode) return UNKNOWN;
  const inherited = superMethod(ctx, frame, objNode, method);
  if (inherited) {
    // `super().__init__(...)`: the base class's method runs for this very instance (its
    // `self.build()` is the subclass's override), and what it leaves on `self` is here after.
    const own = frame.env.get(RECEIVER);
    const receiver = own ? { node: objNode, value: { ...own, param: RECEIVER } } : undefined;
    return callFunction(ctx, ex, frame, call, inherited.fn, args, 1, undefined, undefined, receiver, { key: inherited.selfName, className: inherited.instance });
  }
  const recvKey = dottedKey(objNode);
  // On `self`: the instance's class, which in a base-class method called for a subclass is the subclass.
  const ownClass = frame.fn?.selfName && recvKey === frame.fn.selfName ? instanceClass(frame) : undefined;
  const recv = ownClass ? value('other', UNTRACKED, { className: ownClass }) : ex.eval(frame, objNode);
  const framed = frameworkMethod(ctx, ex, frame, call, objNode, recv, method);
  if (framed) return framed;
  const userMethod = ctx.program.methodOf(recv.className, method);
  // A module's `to`/`cuda`/`cpu` is torch's move (an override calls it too); a plain class's is its own.
  if (userMethod && (!['to', 'cuda', 'cpu'].includes(method) || ctx.program.ownsMoveMethod(recv.className, method))) {
    // `self.rep(h)` in a method followed for one call: the same instance receives it (and what
    // it meets there is that call's receiver's to move).
    const own = ownClass ? frame.env.get(RECEIVER) : undefined;
    const receiver = own ? { node: objNode, value: { ...own, param: RECEIVER } } : ownClass ? undefined : { node: objNode, value: recv };
    const onSelf = ownClass && recvKey ? { key: recvKey, className: ownClass, building: isBuilding(ctx, frame) } : undefined;
    const onInstance = !ownClass && recvKey && recv.kind === 'other' && recv.className ? { key: recvKey, value: recv } : undefined;
    return callFunction(ctx, ex, frame, call, userMethod, args, userMethod.selfName ? 1 : 0, undefined, undefined, receiver, onSelf, onInstance);
  }
  if (recv.distribution && DISTRIBUTION_TENSOR_METHODS.has(method)) return distributionMethod(ctx, ex, frame, call, objNode, recv, method, args);
  // `self.register_buffer("scale", t)` in a method: state the module keeps and moves with itself, like a parameter.
  const registered = ownClass && recvKey ? registeredState(ex, frame, method, args) : undefined;
  if (registered) {
    frame.env.set(`${recvKey}.${registered.name}`, registered.value);
    return NONE;
  }
  // `net.type(torch.cuda.FloatTensor)`, `net.type(dtype)` with such a type: Module.type casts the weights in place, moving them.
  const typeTarget = method === 'type' && recv.kind === 'module' && args.positional.length === 1 ? legacyTypeTarget(ctx, ex, frame, args.positional[0]!) : undefined;
  if (method === 'to' || method === 'cuda' || method === 'cpu' || typeTarget) {
    // `model.eval().to(device)`: the module method returned the module, which moves in place.
    const movedKey = recvKey ?? (recv.kind === 'module' ? selfReturningBase(objNode) : undefined);
    const moved = evalMove(ctx, ex, frame, call, objNode, movedKey, recv, method, discarded, typeTarget);
    if (!typeTarget?.text.endsWith("'s device")) return moved;
    // A name holding a tensor type is no device to write in a fix (`.to(Tensor)` would not move).
    const placed = { ...moved, deviceText: undefined };
    if (movedKey && frame.env.get(movedKey) === moved) frame.env.set(movedKey, placed);
    return placed;
  }
  // `model.generate(**inputs)` (Hugging Face) runs the model's forward on its inputs, under
  // torch.no_grad(): the token ids it returns carry no graph.
  if (method === 'generate' && (recv.kind === 'module' || (recv.kind === 'unknown' && recv.place !== UNTRACKED))) {
    return evalValueCall(ctx, ex, frame, call, objNode, { ...recv, kind: 'module', gradlessOutput: true }, args);
  }
  // `net.add_module("fc", nn.Linear(...))` on a container built empty: from now on a move moves what it holds.
  // A method torch's modules do not have, given something (`seq.add(layer)` of a helper the
  // project attached to nn.Module), may fill it too: it then holds what it was given.
  const projectFill = recv.emptyContainer === true && !FILLS_CONTAINER.has(method) && !KEEPS_CONTAINER_EMPTY.has(method) && args.positional.length > 0;
  if (recv.emptyContainer && recvKey && (FILLS_CONTAINER.has(method) || projectFill)) {
    const filled = filledContainer(recv, method, evalArgs(ex, frame, args));
    frame.env.set(recvKey, filled);
    return method === 'add_module' || method === 'register_module' ? NONE : projectFill ? UNKNOWN : filled;
  }
  // `batch.update(c=c)` on a dict the code built: it holds what it is given under those keys
  // (another mapping whose keys are not known leaves none of them known).
  if (method === 'update' && recvKey && recv.entries && !args.hasSplat && args.positional.length <= 1) {
    const other = args.positional[0] ? ex.eval(frame, args.positional[0]) : undefined;
    const entries = other && !other.entries ? undefined : new Map([...recv.entries, ...(other?.entries ?? [])]);
    for (const [k, n] of args.keywords) entries?.set(k, ex.eval(frame, n));
    frame.env.set(recvKey, { ...recv, entries });
    return NONE;
  }
  // `self.history.append(x)` on an attribute whose value is not tracked: whatever has an `append` holds what it is given.
  const growable = recv.elements || recv.anyElement || (method === 'append' && recv.kind === 'unknown' && recv.place === UNTRACKED && !recv.className);
  if ((method === 'append' || method === 'extend') && recvKey && growable) {
    // `outputs.append(model(x))`: the list holds what was appended (any element, any count).
    const added = args.positional[0] ? ex.eval(frame, args.positional[0]) : UNKNOWN;
    if (method === 'append' && args.positional[0]) ctx.events.valueAccumulated(frame, call, objNode, { node: args.positional[0], value: added }, 'append');
    const items = method === 'extend' ? (containedValues(added).length ? containedValues(added) : [UNKNOWN]) : [added];
    const all = [...containedValues(recv), ...items];
    frame.env.set(recvKey, { ...recv, elements: undefined, entries: undefined, anyElement: all.reduce((a, b) => joinValues(a, b)) });
    return OTHER;
  }
  // `np.array(anchors).reshape(-1, 2)`: NumPy's methods give NumPy values, never a tensor.
  if (recv.ndarray) {
    evalArgs(ex, frame, args);
    return NDARRAY;
  }
  if (method === 'numpy') {
    // `.numpy(force=True)` detaches and copies to the host itself.
    if (args.keywords.get('force')?.text !== 'True') ctx.events.numpyConversion(frame, call, objNode, recv, 'method');
    return NDARRAY;
  }
  // `encode(text).view(-1, 1)`: only a tensor has this method, so the result is one (where, unknown).
  if (recv.kind === 'unknown' && recv.place === UNTRACKED && !recv.className && TENSOR_ONLY_METHODS.has(method)) {
    evalArgs(ex, frame, args);
    return value('tensor', UNTRACKED);
  }
  // `next(self.parameters()).device` in a module's method: where the class's instances are,
  // as its submodules are (attributeOn), not a device the analysis knows nothing of.
  const ownModule = recv.kind === 'other' && recv.className ? ctx.program.classes.get(recv.className) : undefined;
  if (ownModule?.isModule && WEIGHT_ITERATORS.test(method)) {
    evalArgs(ex, frame, args);
    const placed = ctx.previous.classPlace(ownModule.key);
    // A class never moved anywhere: where its weights are is not known here (as attributeOn says).
    const parameters = parametersOf(value('module', placed?.place ?? UNTRACKED, { deviceText: placed?.deviceText, origin: placed?.origin }), method);
    if (parameters) return parameters;
  }
  if (recv.kind !== 'tensor' && recv.kind !== 'module' && !(recv.kind === 'unknown' && recv.place !== UNTRACKED)) {
    // `self.model(x)`, `trainer.loss_fn(out, y)`: calling an attribute that holds a model or loss.
    return evalValueCall(ctx, ex, frame, call, callee, ex.attributeOn(frame, callee, ownClass ? undefined : recv), args);
  }
  const argValues = evalArgs(ex, frame, args);
  const tensorRecv = recv.kind === 'tensor' || (recv.kind === 'unknown' && recv.place !== UNTRACKED);
  if (recv.kind === 'module') {
    if (method === 'requires_grad_') return moduleGradSet(frame, objNode, recvKey, recv, args);
    if (MODULE_SELF_METHODS.has(method)) return recv;
    const parameters = parametersOf(recv, method);
    if (parameters) return parameters;
    if (method === 'forward') return evalValueCall(ctx, ex, frame, call, objNode, recv, args);
    const submodule = calledSubmodule(ex, frame, callee, recv, method);
    if (submodule) return evalValueCall(ctx, ex, frame, call, callee, submodule, args);
    return computedWhereTheModelIs(ex, frame, call, objNode, recv, argValues, args) ?? UNKNOWN;
  }
  if (!tensorRecv) return UNKNOWN;
  // An object known only by its place (a library's model moved with `.to()`): a method no
  // tensor has (`model.test(...)`) says nothing of its result, unless its inputs are there too.
  if (recv.kind === 'unknown' && !isTensorMethod(method)) return computedWhereTheModelIs(ex, frame, call, objNode, recv, argValues, args) ?? UNKNOWN;
  if (method === 'requires_grad_' && recvKey) frame.env.set(recvKey, { ...recv, grad: 'yes' });
  if (NON_TENSOR_METHODS.has(method)) return OTHER;
  const operands = argValues.filter((a) => isTensorLike(a.value) && a.value.kind !== 'module');
  // `kind = mat.type()`: the name of mat's tensor type ('torch.cuda.FloatTensor'), which says its device.
  if (method === 'type' && args.positional.length === 0 && args.keywords.size === 0) {
    // Of a tensor whose place is not known (a forward's input), so is the type's: `.type(U.type())` puts a tensor where U is.
    return recv.kind === 'tensor' || recv.kind === 'unknown' ? value('other', UNTRACKED, { tensorType: recv.place }) : OTHER;
  }
  if (method === 'type' && args.positional[0]) {
    // Legacy `x.type(torch.cuda.FloatTensor)` moves; `x.type(torch.FloatTensor)` brings back to the CPU.
    const q = ctx.program.importsAt(frame.unit).qualify(args.positional[0]) ?? '';
    if (/^torch\.cuda\.\w+Tensor$/.test(q)) return { ...recv, kind: 'tensor', place: ACCEL, deviceText: '"cuda"', origin: { unit: frame.unit, node: call, what: 'moved to "cuda" here' }, factory: undefined, batch: undefined };
    if (/^torch\.\w+Tensor$/.test(q)) return { ...recv, kind: 'tensor', place: CPU, origin: { unit: frame.unit, node: call, what: 'moved to the CPU here' }, factory: undefined, batch: undefined };
    // `dtypeFloat = torch.cuda.FloatTensor if cuda else torch.FloatTensor`: where the name's type is, per path.
    const typed = argValues[0]?.value.tensorType;
    const text = args.positional[0].text;
    // No device text: `Tensor` names a type, and `.to(Tensor)` would be no fix.
    if (typed !== undefined) return { ...recv, kind: 'tensor', place: typed, deviceText: undefined, origin: { unit: frame.unit, node: call, what: `moved to \`${text}\`'s device here` }, factory: undefined, batch: undefined };
  }
  if (method === 'type_as') {
    // `a.type_as(b)` takes b's type, and with it b's device (torch.cuda.FloatTensor).
    const other = operands[0];
    return other
      ? { ...recv, kind: 'tensor', place: other.value.place, deviceText: `${other.node.text}.device`, origin: other.value.origin, factory: undefined, scalar: undefined, batch: undefined }
      : value('tensor');
  }
  // What a method of an nn.Parameter returns is a plain tensor (an in-place one returns the parameter itself).
  const parameter = method.endsWith('_') ? recv.parameter : undefined;
  if (method === 'detach') return { ...recv, grad: 'no', factory: undefined, kind: 'tensor', parameter };
  if (operands.length && ELEMENTWISE_METHODS.has(method)) {
    ctx.events.tensorOperation(frame, call, [{ node: objNode, value: recv }, ...operands], 'op');
  }
  const grad = frame.noGrad > 0 ? 'no' : DIFFERENTIABLE_METHODS.has(method) ? recv.grad : recv.grad === 'no' ? 'no' : 'unknown';
  // `w.sum()` over every element is 0-dim, which may meet accelerator tensors (like a scalar).
  const keepsShape = SHAPE_KEEPING_METHODS.has(method) && operands.every((o) => o.value.scalar || !isTensorLike(o.value));
  const scalar = (FULL_REDUCTIONS.has(method) && args.positional.length === 0 && !args.keywords.has('dim') && !args.keywords.has('axis'))
    || (recv.scalar === true && keepsShape);
  const oneDim = recv.oneDim && keepsShape;
  // A batch stays a batch through views and casts: moving it at the loop's top fixes them all.
  return { ...recv, kind: 'tensor', grad, factory: undefined, scalar: scalar || undefined, oneDim: oneDim || undefined, elements: undefined, parameter };
}

/** Methods of tensors that neither NumPy arrays nor modules nor Hugging Face's BatchEncoding have. */
const TENSOR_ONLY_METHODS = new Set(['unsqueeze', 'permute', 'contiguous', 'masked_fill', 'view', 'expand', 'narrow', 'type_as', 'long', 'int', 'unsqueeze_']);

const FULL_REDUCTIONS = new Set(['sum', 'mean', 'prod', 'max', 'min', 'amax', 'amin', 'norm', 'std', 'var', 'median', 'nansum', 'nanmean', 'all', 'any', 'count_nonzero']);

/**
 * `G.eval().requires_grad_(False)`: the module (under its name, also at the head of a chain of
 * methods returning it) no longer makes outputs that require grad by itself.
 */
function moduleGradSet(frame: Frame, objNode: Node, recvKey: string | undefined, recv: Value, args: CallArguments): Value {
  const flag = args.positional[0] ?? args.keywords.get('requires_grad');
  const updated = { ...recv, gradlessOutput: flag?.text === 'False' || undefined };
  const key = recvKey ?? selfReturningBase(objNode);
  if (key) frame.env.set(key, updated);
  return updated;
}

/** `model.eval().train()` → `model`: the name a chain of module methods that return the module starts from. */
function selfReturningBase(node: Node): string | undefined {
  let n = unparen(node);
  while (n.type === 'call') {
    const callee = field(n, 'function');
    const object = callee?.type === 'attribute' ? field(callee, 'object') : null;
    if (!object || !MODULE_SELF_METHODS.has(field(callee!, 'attribute')?.text ?? '')) return undefined;
    n = unparen(object);
  }
  return n.type === 'identifier' || n.type === 'attribute' ? dottedKey(n) : undefined;
}

/** Tensor methods beyond those the tables above name: casts, comparisons, selections, in-place fills. */
const OTHER_TENSOR_METHODS = new Set([
  'long', 'int', 'bool', 'byte', 'char', 'short', 'type', 'argmax', 'argmin', 'topk', 'sort', 'argsort', 'round',
  'floor', 'ceil', 'trunc', 'sign', 'nonzero', 'unique', 'new_zeros', 'new_ones', 'new_full', 'new_empty',
  'new_tensor', 'fill_', 'zero_', 'copy_', 'clamp_', 'detach_', 'repeat_interleave', 'tile', 'unfold', 'log1p',
  'expm1', 'sin', 'cos', 'abs_', 'floor_divide', 'remainder', 'fmod', 'cumprod', 'logsumexp', 'softplus', 'isnan',
  'isinf', 'isfinite', 'half', 'pin_memory', 'share_memory_', 'as_strided', 'index_put_', 'put_', 'masked_scatter',
]);

function isTensorMethod(method: string): boolean {
  return DIFFERENTIABLE_METHODS.has(method) || TENSOR_EVIDENCE_METHODS.has(method) || ELEMENTWISE_METHODS.has(method)
    || FULL_REDUCTIONS.has(method) || OTHER_TENSOR_METHODS.has(method);
}

/** Methods that combine the receiver with tensor arguments, which must share its device. */
const ELEMENTWISE_METHODS = new Set([
  'add', 'sub', 'mul', 'div', 'matmul', 'mm', 'bmm', 'dot', 'add_', 'sub_', 'mul_', 'div_', 'masked_fill',
  'masked_fill_', 'where', 'index_select', 'gather', 'scatter', 'scatter_', 'scatter_add', 'scatter_add_',
  'index_add', 'index_add_', 'eq', 'ne', 'lt', 'gt', 'le', 'ge', 'maximum', 'minimum', 'cross', 'outer', 'lerp',
]);

/**
 * A module moved in place moves for every name of it: after `policy = model`,
 * `policy.to(device)` moves `model` too. Names holding this very value are the same object.
 */
function moveAliases(frame: Frame, movedKey: string, recv: Value, moved: Value): void {
  if (Object.isFrozen(recv)) return; // a shared constant (UNKNOWN), not one object
  for (const key of frame.env.keys()) if (key !== movedKey && frame.env.get(key) === recv) frame.env.set(key, moved);
}

/**
 * `trainer.prepare()` whose body moves `self.model` in place (or hands it to code that may):
 * the instance's module is moved, and so is the one its construction was given, under every
 * name of it (`Trainer(net)`: `net`). Only moves and forgettings are taken: what else the
 * method left on `self` is its class's summary, less than the caller knows of this instance.
 */
function movedOnInstance(frame: Frame, instance: { key: string; value: Value }, writes: ReadonlyMap<string, Value> | undefined): void {
  const moved = [...writes ?? []].filter(([, v]) => v.kind === 'module' && !v.placeless && (v.origin?.what.startsWith('moved') || (v.place === UNTRACKED && !v.origin)));
  if (moved.length === 0) return;
  for (const [attr, v] of moved) frame.env.set(`${instance.key}.${attr}`, v);
  const held = instance.value.holds ?? [];
  // One module kept and one moved: it is that one. Otherwise which went where is not known.
  const [only] = moved;
  for (const h of held) {
    const now = held.length === 1 && moved.length === 1 ? { ...h, place: only[1].place, deviceText: only[1].deviceText, origin: only[1].origin }
      : { ...h, place: UNTRACKED, origin: undefined, deviceText: undefined, factory: undefined };
    moveAliases(frame, instance.key, h, now);
  }
}

/** `learner.to(device)` moves the model `Learner(model)` keeps, under every name of it. */
function moveHeldModules(frame: Frame, movedKey: string, recv: Value, moved: Value): void {
  const what = `moved with ${movedKey}${moved.deviceText ? ` to ${moved.deviceText}` : ''} here`;
  for (const held of recv.holds ?? []) {
    moveAliases(frame, movedKey, held, { ...held, place: moved.place, deviceText: moved.deviceText, origin: moved.origin && { ...moved.origin, what } });
  }
}

/** A legacy tensor type as a place: `torch.cuda.FloatTensor`, `torch.FloatTensor`, or a name holding one per path. */
function legacyTypeTarget(ctx: RoundContext, ex: Evaluator, frame: Frame, node: Node): Extract<DeviceTarget, { kind: 'device' }> | undefined {
  const q = ctx.program.importsAt(frame.unit).qualify(node) ?? '';
  if (/^torch\.cuda\.\w+Tensor$/.test(q)) return { kind: 'device', place: ACCEL, text: '"cuda"' };
  if (/^torch\.\w+Tensor$/.test(q)) return { kind: 'device', place: CPU, text: '"cpu"' };
  const typed = ex.eval(frame, node).tensorType;
  return typed === undefined ? undefined : { kind: 'device', place: typed, text: `\`${node.text}\`'s device` };
}

/**
 * The statement holding `call` is followed, in its block, by a `del` of `key` or of what holds
 * it (`self.enhancer.model = self.enhancer.model.to("cpu")`, then `del self.enhancer`), before
 * any other statement reads it: the moved object is torn down.
 */
function deletedRightAfter(call: Node, key: string): boolean {
  let statement: Node = call;
  while (statement.parent && statement.parent.type !== 'block' && statement.parent.type !== 'module') statement = statement.parent;
  const block = statement.parent;
  if (!block) return false;
  const siblings = children(block);
  for (const next of siblings.slice(siblings.findIndex((c) => c.id === statement.id) + 1)) {
    if (next.type === 'comment') continue;
    if (next.type !== 'delete_statement') return false;
    const targets = children(next).flatMap((c) => (c.type === 'expression_list' ? children(c) : [c])).map((t) => t.text);
    if (targets.some((t) => key === t || key.startsWith(`${t}.`))) return true;
    if (new RegExp(`(^|[^\\w.])${key.replace(/[.]/g, '\\.')}\\b`).test(next.text)) return false;
  }
  return false;
}

/** `.to(...)`, `.cuda()`, `.cpu()`: a new tensor, or a module moved in place. */
function evalMove(
  ctx: RoundContext, ex: Evaluator, frame: Frame, call: Node, objNode: Node, recvKey: string | undefined,
  recv: Value, method: string, discarded: boolean, given?: DeviceTarget,
): Value {
  const target = given ?? (method === 'to' ? toTarget(ctx, frame, call, (f, n) => ex.eval(f, n))
    : { kind: 'device' as const, place: method === 'cuda' ? ACCEL : CPU, text: method === 'cuda' ? '"cuda"' : '"cpu"' });
  // `nn.Sequential().cuda()`: nothing in it yet, nothing moves; what is added later is made where it is made.
  if (recv.emptyContainer && recv.kind === 'module') return recv;
  const evidence = recvKey && !recv.foreign ? frame.evidence.get(recvKey) : undefined;
  const kind = recv.kind === 'unknown' && evidence !== 'both' && evidence ? evidence : recv.kind;
  ctx.events.valueMoved(frame, call, objNode, recv, target.kind === 'dtype' ? UNTRACKED : target.place);
  // A graph batch moves in place, as a module does: its `.to()` as a statement is no mistake.
  if (discarded) ctx.events.discardedMove(frame, call, objNode, recv, recv.graph ? 'module' : kind === 'tensor' && recv.kind === 'unknown' && ctx.programFact('objects that may move themselves in place', mayMoveInPlace) ? 'unknown' : kind);
  if (target.kind === 'dtype') return recv;
  // `data.to(device, 'x', 'y')` (torch_geometric) moves those attributes of the graph in place.
  const someAttributes = method === 'to' && callArguments(call).positional.slice(1).some((n) => stringLiteralValue(n) !== undefined);
  if (recv.graph || someAttributes) {
    const moved: Value = { ...recv, place: target.place, deviceText: target.text, origin: { unit: frame.unit, node: call, what: `moved to ${target.text} here` } };
    if (recvKey) frame.env.set(recvKey, moved);
    return moved;
  }
  if (recv.entries && recv.anyElement && !recv.batch) {
    // A mapping of tensors (a BatchEncoding) moves them all, in place, and returns itself.
    const origin = { unit: frame.unit, node: call, what: `moved to ${target.text} here` };
    const moveOne = (v: Value): Value => (isTensorLike(v) ? { ...v, place: target.place, deviceText: target.text, origin } : v);
    const mapping: Value = { ...recv, anyElement: moveOne(recv.anyElement), entries: new Map([...recv.entries].map(([k, v]) => [k, moveOne(v)])) };
    if (recvKey) frame.env.set(recvKey, mapping);
    return mapping;
  }
  const moved: Value = {
    kind: kind === 'tensor' || kind === 'module' ? kind : 'unknown',
    place: target.place,
    grad: recv.grad,
    placeless: recv.placeless,
    // A wrapper on some paths over a module left on the CPU on the others: moved, that module's inputs must follow.
    movesInputs: recv.movesInputs && !recv.plainOnCpu,
    pipeline: recv.pipeline,
    gradlessOutput: recv.gradlessOutput,
    noParameters: recv.noParameters,
    scalarOutput: recv.scalarOutput,
    // `x.sum().cpu()` is still 0-dim: on the CPU it may meet tensors on any device.
    scalar: kind === 'tensor' ? recv.scalar : undefined,
    oneDim: kind === 'tensor' ? recv.oneDim : undefined,
    className: recv.className,
    classChoices: recv.classChoices,
    deviceText: target.text,
    origin: { unit: frame.unit, node: call, what: `moved to ${target.text} here` },
    ...(recv.holds ? { holds: recv.holds } : {}),
  };
  if (kind === 'module' && recvKey && !recv.placeless) {
    frame.env.set(recvKey, moved);
    moveAliases(frame, recvKey, recv, moved);
    moveHeldModules(frame, recvKey, recv, moved);
  }
  // Also of an item whose kind is not known: only the modules the container holds are moved.
  if (kind !== 'tensor' && !recv.placeless) moveWalkedContainer(frame, objNode, moved);
  // A mapping batch (`model(**batch)`, a Hugging Face BatchEncoding) moves its tensors in place.
  if (kind === 'unknown' && recv.batch && recvKey) frame.env.set(recvKey, { ...moved, batch: undefined });
  // `model.cpu()` as a statement, on a value of unknown kind (a `torch.hub.load` model): written
  // for its effect, so taken as a module moved in place. Were it a tensor, that statement would
  // do nothing, and the uses after it are not known to be where it was.
  else if (kind === 'unknown' && discarded && recvKey && recv.place !== UNTRACKED) frame.env.set(recvKey, moved);
  // The class's own methods (forward) see their submodules and parameters where instances go.
  // Not a move to free the GPU right before the object is deleted (`m = m.to("cpu")`, then
  // `del m`): no method runs on it after that.
  if (kind === 'module' && recv.className && !(recvKey && deletedRightAfter(call, recvKey))) {
    for (const cls of ctx.program.classLineage(recv.className)) ctx.next.addClassPlace(cls, moved);
  }
  return recv.placeless ? recv : moved;
}

