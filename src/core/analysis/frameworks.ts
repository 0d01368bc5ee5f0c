// Frameworks that place models and batches themselves, and the other ways code says
// where things are created (ANALYZER.md, "Frameworks own placement", "Device contexts").
// Lightning hooks get batches on `self.device`; Fabric's `setup`/`setup_dataloaders`,
// Accelerate's `prepare`, Ray Train's `prepare_model`/`prepare_data_loader` and timm's
// prefetching loaders put what they return on their device. A value that went through one of them is on the framework's device or of
// unknown place: never "never moved", never "on the CPU" by default. Also here:
// `**dict(device=d)` keyword dicts, `device=None` defaults, device context managers, and
// calls that return a module (`create_model`, `copy.deepcopy(m)`, `fuse_modules(m)`).
import type { Node } from '../python/pyNode';
import { callArguments, children, dottedKey, field, stringLiteralValue, unparen } from '../python/syntax';
import { evalDevice } from './devices';
import type { Env } from './env';
import type { Frame } from './frame';
import { DEVICE_HOOK, isModelFunctionName, isPipelineConstructor, PIPELINE_COMPONENTS } from './frameworkNames';
import type { FunctionInfo, Program } from './program';
import type { Evaluator, RoundContext } from './roundContext';
import { isAcceleratorDeviceString, MODEL_LIKE_NAME } from './torchApi';
import { importsFramework } from './frameworkImports';
import { Arg, CPU, EITHER, ACCEL, OTHER, Place, PlacedBy, UNTRACKED, Value, value } from './values';

// ---- framework objects: Accelerator, Fabric -------------------------------------------

const FRAMEWORK_CLASSES = new Map<string, 'accelerate' | 'fabric'>([
  ['accelerate.Accelerator', 'accelerate'], ['accelerate.accelerator.Accelerator', 'accelerate'],
  ['lightning.Fabric', 'fabric'], ['lightning.fabric.Fabric', 'fabric'], ['lightning.fabric.fabric.Fabric', 'fabric'],
  ['lightning_fabric.Fabric', 'fabric'], ['lightning_fabric.fabric.Fabric', 'fabric'],
]);

/** What a framework method returns: `each` argument placed, the first one placed, ... */
type MethodEffect = 'each' | 'module' | 'loaders' | 'setup' | 'same' | 'move' | 'context';

const FRAMEWORK_METHODS: Record<'accelerate' | 'fabric', Record<string, MethodEffect>> = {
  accelerate: {
    prepare: 'each', prepare_model: 'module', prepare_data_loader: 'loaders', prepare_optimizer: 'same',
    prepare_scheduler: 'same', unwrap_model: 'same', gather: 'same', gather_for_metrics: 'same', reduce: 'same',
    pad_across_processes: 'same', skip_first_batches: 'same',
  },
  fabric: {
    setup: 'setup', setup_module: 'module', setup_optimizers: 'same', setup_dataloaders: 'loaders', to_device: 'move',
    all_gather: 'same', all_reduce: 'same', broadcast: 'same', init_module: 'context', init_tensor: 'context',
  },
};


/** `Accelerator(cpu=True)`, `Fabric(accelerator="cuda")`: the device the framework places things on. */
function frameworkPlace(framework: 'accelerate' | 'fabric', call: Node): Place | undefined {
  const kw = callArguments(call).keywords;
  if (framework === 'accelerate') {
    if (kw.get('device_placement')?.text === 'False') return undefined; // nothing is moved for you
    return kw.get('cpu')?.text === 'True' ? CPU : EITHER;
  }
  const accel = kw.get('accelerator');
  const name = accel ? stringLiteralValue(accel) : undefined;
  if (name === undefined || name === 'auto') return EITHER;
  if (name === 'cpu') return CPU;
  return name === 'gpu' || name === 'tpu' || isAcceleratorDeviceString(name) ? ACCEL : EITHER;
}

/** The framework object a receiver is: by its value, or by its name in a file importing the framework. */
function frameworkOf(ctx: RoundContext, recvNode: Node, recv: Value): (PlacedBy & { framework: 'accelerate' | 'fabric' }) | undefined {
  const deviceText = `${recvNode.text}.device`;
  const known = recv.kind === 'other' ? recv.placedBy : undefined;
  if (known && (known.framework === 'accelerate' || known.framework === 'fabric')) return { ...known, framework: known.framework, deviceText };
  if (recv.kind !== 'unknown' || recv.place !== UNTRACKED || recv.className) return undefined;
  const name = (dottedKey(recvNode) ?? '').replace(/^.*\./, '');
  if (name === 'accelerator' && importsFramework(ctx.program, 'accelerate')) return { framework: 'accelerate', place: EITHER, deviceText };
  if (name === 'fabric' && importsFramework(ctx.program, 'fabric')) return { framework: 'fabric', place: EITHER, deviceText };
  return undefined;
}

/** `accelerator.device`, `fabric.device`. */
export function frameworkAttribute(ctx: RoundContext, objNode: Node, recv: Value, attr: string): Value | undefined {
  // `pipe.unet(latents, t)`: the pipeline moves its inputs itself, its component models do not.
  if (recv.pipeline && PIPELINE_COMPONENTS.has(attr)) {
    return value('module', recv.place, { deviceText: recv.deviceText, origin: recv.origin, grad: 'yes' });
  }
  if (attr !== 'device') return undefined;
  const fw = frameworkOf(ctx, objNode, recv);
  return fw && value('device', fw.place, { deviceText: fw.deviceText });
}

/** `accelerator.prepare(...)`, `fabric.setup(...)`, `fabric.setup_dataloaders(...)`, `fabric.to_device(x)`. */
export function frameworkMethod(
  ctx: RoundContext, ex: Evaluator, frame: Frame, call: Node, objNode: Node, recv: Value, method: string,
): Value | undefined {
  const fw = frameworkOf(ctx, objNode, recv);
  const effect = fw && FRAMEWORK_METHODS[fw.framework][method];
  if (!fw || !effect) return undefined;
  const args = callArguments(call);
  const argValues: Arg[] = args.positional.map((n) => ({ node: n, value: ex.eval(frame, n) }));
  for (const n of args.keywords.values()) ex.eval(frame, n);
  if (effect === 'context') return value('device', fw.place, { deviceText: fw.deviceText });
  const origin = { unit: frame.unit, node: call, what: `placed on ${fw.deviceText} by ${method}() here` };
  const placeOne = (a: Arg, as?: 'module' | 'loader'): Value => placed(frame, a, fw, origin, as);
  if (effect === 'same') return argValues[0] ? strip(argValues[0].value) : OTHER;
  if (effect === 'move') return argValues[0] ? moveTo(frame, argValues[0], fw, origin) : OTHER;
  if (effect === 'module') return argValues[0] ? placeOne(argValues[0], 'module') : OTHER;
  const moves = effect !== 'loaders' || args.keywords.get('move_to_device')?.text !== 'False';
  const results = argValues.map((a, i) => {
    if (effect === 'loaders') return moves ? placeOne(a, 'loader') : strip(a.value);
    if (effect === 'setup') return i === 0 ? placeOne(a, 'module') : strip(a.value);
    return placeOne(a);
  });
  return results.length === 1 ? results[0] : value('other', UNTRACKED, { elements: results });
}

function strip(v: Value): Value {
  return v.factory || v.batch ? { ...v, factory: undefined, batch: undefined } : v;
}

/** What a framework returns for one value it was given: a module on its device, a placing loader. */
function placed(frame: Frame, a: Arg, fw: PlacedBy, origin: Value['origin'], as?: 'module' | 'loader'): Value {
  const v = a.value;
  const key = dottedKey(unparen(a.node));
  let kind = as ?? v.kind;
  if (kind === 'unknown') kind = key && MODEL_LIKE_NAME.test(key) ? 'module' : key && /(loader|_dl)$/i.test(key) ? 'loader' : 'other';
  if (kind === 'loader') return value('loader', UNTRACKED, { placedBy: fw });
  if (kind === 'module') {
    if (v.placeless) return v;
    const moved = value('module', fw.place, { className: v.className, deviceText: fw.deviceText, origin });
    if (key && v.kind === 'module') frame.env.set(key, moved); // moved in place before it is wrapped
    return moved;
  }
  // Something the framework handed back that the analysis cannot see into: never a bare loader or model.
  return kind === 'other' && v.kind === 'unknown' ? value('other') : strip(v);
}

function moveTo(frame: Frame, a: Arg, fw: PlacedBy, origin: Value['origin']): Value {
  const v = a.value;
  if (v.kind === 'module') return placed(frame, a, fw, origin, 'module');
  if (v.kind !== 'tensor' && v.kind !== 'unknown') return v;
  return { ...v, place: fw.place, deviceText: fw.deviceText, origin, factory: undefined, batch: undefined, elements: undefined };
}

// ---- constructors and functions reached by qualified name ------------------------------

const TIMM_LOADERS = new Set([
  'timm.data.create_loader', 'timm.data.loader.create_loader', 'timm.data.create_naflex_loader',
  'timm.data.naflex_loader.create_naflex_loader', 'timm.data.PrefetchLoader', 'timm.data.loader.PrefetchLoader',
]);

/** Calls that return their (module) argument on the same device: copies, fusions, traces. */
const PLACE_KEEPING_CONVERTERS = new Set([
  'copy.deepcopy', 'torch.ao.quantization.fuse_modules', 'torch.quantization.fuse_modules',
  'torch.ao.quantization.fuse_modules_qat', 'torch.quantization.fuse_modules_qat', 'torch.fx.symbolic_trace',
  'torch.jit.freeze', 'torch.jit.optimize_for_inference', 'torch.nn.utils.fusion.fuse_conv_bn_eval',
  // Swaps BatchNorm layers for SyncBatchNorm ones holding the same tensors, in DDP launchers.
  'torch.nn.SyncBatchNorm.convert_sync_batchnorm', 'torch.nn.modules.batchnorm.SyncBatchNorm.convert_sync_batchnorm',
  'timm.layers.convert_sync_batchnorm', 'apex.parallel.convert_syncbn_model',
]);

/**
 * Calls that wrap their (module) argument in place, adding layers where its layers are:
 * moving the model they were given, before or after, moves the result (PEFT's adapters).
 */
const IN_PLACE_WRAPPERS = new Set([
  'peft.get_peft_model', 'peft.mapping.get_peft_model', 'peft.mapping_func.get_peft_model',
  'peft.PeftModel.from_pretrained', 'peft.peft_model.PeftModel.from_pretrained',
  'peft.prepare_model_for_kbit_training', 'peft.utils.other.prepare_model_for_kbit_training',
]);

/**
 * `Accelerator()`, `Fabric()`, timm's loaders: answered by what the framework does even in
 * the framework's own repository, where the name resolves to the project's implementation.
 */
export function isFrameworkEntryPoint(q: string): boolean {
  return FRAMEWORK_CLASSES.has(q) || TIMM_LOADERS.has(q);
}

/**
 * Ray Train's helpers, called in each worker's training function: `prepare_model` moves the
 * model to the worker's device (and wraps it for DDP), `prepare_data_loader` makes a loader
 * whose batches arrive there, unless `move_to_device=False`; `get_device()` is that device,
 * a GPU when the run's ScalingConfig asks for one.
 */
const RAY_TRAIN = new Map<string, 'module' | 'loader' | 'device'>(
  (['', 'train_loop_utils.'] as const).flatMap((inner) => [
    [`ray.train.torch.${inner}prepare_model`, 'module'],
    [`ray.train.torch.${inner}prepare_data_loader`, 'loader'],
    [`ray.train.torch.${inner}get_device`, 'device'],
  ] as Array<[string, 'module' | 'loader' | 'device']>),
);

/** The worker's device as Ray Train's code names it in messages. */
const RAY_DEVICE_TEXT = 'ray.train.torch.get_device()';

function rayTrainCall(frame: Frame, call: Node, effect: 'module' | 'loader' | 'device', argValues: Arg[], moves: boolean): Value {
  const by: PlacedBy = { framework: 'ray', place: EITHER, deviceText: RAY_DEVICE_TEXT };
  if (effect === 'device') return value('device', EITHER, { deviceText: RAY_DEVICE_TEXT });
  const given = argValues[0];
  if (!given) return OTHER;
  if (!moves) return strip(given.value);
  const origin = { unit: frame.unit, node: call, what: `placed on ${RAY_DEVICE_TEXT} by ${effect === 'module' ? 'prepare_model' : 'prepare_data_loader'}() here` };
  return placed(frame, given, by, origin, effect);
}

/**
 * Calls that hand their arguments back as they are, patched in place: apex's
 * `model, optimizer = amp.initialize(model, optimizer, opt_level="O1")` (one argument
 * back when given one).
 */
const ARGUMENT_RETURNING = new Set(['apex.amp.initialize', 'apex.amp.frontend.initialize']);

/**
 * Qualified calls the frameworks answer: `Accelerator()`, `Fabric()`, timm's loaders,
 * converters that keep a module's place, and other libraries' model factories.
 */
export function frameworkCall(ctx: RoundContext, ex: Evaluator, frame: Frame, call: Node, q: string): Value | undefined {
  const framework = FRAMEWORK_CLASSES.get(q);
  const isLoader = TIMM_LOADERS.has(q);
  const keeps = PLACE_KEEPING_CONVERTERS.has(q);
  const factory = !q.startsWith('torch.') && (isModelFunctionName(q) || /^timm\.(models\.)?create_model$/.test(q));
  const pipeline = isPipelineConstructor(q);
  const returnsArguments = ARGUMENT_RETURNING.has(q) || IN_PLACE_WRAPPERS.has(q);
  const ray = RAY_TRAIN.get(q);
  if (!framework && !isLoader && !keeps && !factory && !pipeline && !returnsArguments && !ray) return undefined;
  const args = callArguments(call);
  const argValues: Arg[] = args.positional.map((n) => ({ node: n, value: ex.eval(frame, n) }));
  for (const n of args.keywords.values()) ex.eval(frame, n);
  if (ray) return rayTrainCall(frame, call, ray, argValues, args.keywords.get('move_to_device')?.text !== 'False');
  if (framework) {
    const place = frameworkPlace(framework, call);
    return place === undefined ? value('other') : value('other', UNTRACKED, { placedBy: { framework, place, deviceText: '' } });
  }
  if (isLoader) return timmLoader(ctx, ex, frame, args);
  if (pipeline) return value('module', UNTRACKED, { movesInputs: true, pipeline: true });
  if (keeps) return argValues[0] ? strip(argValues[0].value) : OTHER;
  if (IN_PLACE_WRAPPERS.has(q)) return argValues[0]?.value ?? value('module');
  if (returnsArguments) return argValues.length === 1 ? argValues[0]!.value : value('other', UNTRACKED, { elements: argValues.map((a) => a.value) });
  forgetPlaces(frame, argValues);
  return value('module');
}

/** timm's `create_loader(..., device=d)` and `PrefetchLoader(loader, device=d)` prefetch batches onto `d` (cuda by default) unless `use_prefetcher=False`. */
function timmLoader(ctx: RoundContext, ex: Evaluator, frame: Frame, args: ReturnType<typeof callArguments>): Value {
  if (args.keywords.get('use_prefetcher')?.text === 'False') return value('loader');
  const device = args.keywords.get('device');
  const place = device ? evalDevice(ctx, frame, device, (f, n) => ex.eval(f, n)) : ACCEL;
  return value('loader', UNTRACKED, { placedBy: { framework: 'timm', place, deviceText: device?.text ?? '"cuda"' } });
}

/** A module handed to a function that returns a (possibly moved) module: its place is unknown now. */
function forgetPlaces(frame: Frame, args: Arg[]): void {
  for (const a of args) {
    const key = dottedKey(a.node);
    if (key && a.value.kind === 'module' && a.value.place !== UNTRACKED && !a.value.placeless) {
      frame.env.set(key, { ...a.value, place: UNTRACKED, origin: undefined, deviceText: undefined, factory: undefined });
    }
  }
}

/** `reparameterize_model(model)` through an unknown name: a converter returning a module of unknown place. */
export function convertsModel(calleeText: string, callee: Value, args: Arg[], frame: Frame): boolean {
  if (callee.kind !== 'unknown' || callee.place !== UNTRACKED || !/_(model|net|network)$/.test(calleeText)) return false;
  if (!isModelFunctionName(calleeText) && args[0]?.value.kind !== 'module') return false;
  forgetPlaces(frame, args);
  return true;
}

// ---- batches of loaders a framework placed -------------------------------------------

/** A batch element from a loader the framework placed: on its device, not a batch to move. */
export function placedBatch(frame: Frame, loaderNode: Node, loaderText: string, loader?: Value): Value | undefined {
  const by = loaderNamed(frame, loaderNode, loader)?.placedBy;
  return by && batchPlacedBy(frame, loaderNode, loaderText, by);
}

/** Per column of the loader's rows, the batch part it places, when it places some of them (values.ts columnsPlacedBy). */
export function placedBatchColumns(frame: Frame, loaderNode: Node, loaderText: string, loader?: Value): Array<Value | undefined> | undefined {
  // Also a loader joined with a value of unknown kind on another path (values.ts joinValues).
  return loaderNamed(frame, loaderNode, loader, true)?.columnsPlacedBy?.map((by) => by && batchPlacedBy(frame, loaderNode, loaderText, by));
}

function loaderNamed(frame: Frame, loaderNode: Node, loader?: Value, orUnknown = false): Value | undefined {
  const key = dottedKey(loaderNode);
  const v = loader ?? (key ? frame.env.get(key) ?? frame.outer?.get(key) : undefined);
  return v?.kind === 'loader' || (orUnknown && v?.kind === 'unknown') ? v : undefined;
}

function batchPlacedBy(frame: Frame, loaderNode: Node, loaderText: string, by: PlacedBy): Value {
  return value('tensor', by.place, {
    grad: 'no', deviceText: by.deviceText, origin: { unit: frame.unit, node: loaderNode, what: `loaded on ${by.deviceText} by ${loaderText}` },
  });
}

/**
 * Batch names passed as `model(**batch)` in the loop: mappings (a Hugging Face BatchEncoding,
 * whose `.to()` works in place), not tensors — of unknown kind, so DD004 needs other evidence.
 */
export function keywordBatchNames(loop: Node, names: string[]): Set<string> {
  const body = field(loop, 'body')?.text ?? '';
  return new Set(names.filter((n) => new RegExp(`\\*\\*\\s*${n}\\b`).test(body)));
}

// ---- device given in other ways -----------------------------------------------------

/**
 * Where `device=` or a `**kwargs` dict puts what a factory or module constructor creates;
 * undefined when neither says (the default device). `device=None` is the default;
 * a `**` dict of unknown content may hold any device (place not tracked).
 */
export function givenDevice(ctx: RoundContext, ex: Evaluator, frame: Frame, call: Node): { place: Place; text?: string } | undefined {
  const kw = callArguments(call).keywords.get('device');
  if (kw) {
    const n = unparen(kw);
    if (n.type === 'none' || ((n.type === 'identifier' || n.type === 'attribute') && ex.eval(frame, n).isNone)) return undefined;
    return { place: evalDevice(ctx, frame, kw, (f, x) => ex.eval(f, x)), text: kw.text };
  }
  const list = field(call, 'arguments');
  for (const a of list ? children(list) : []) {
    if (a.type !== 'dictionary_splat') continue;
    const inner = children(a)[0];
    const v = inner ? ex.eval(frame, inner) : undefined;
    return v?.kwargsDevice ? { place: v.kwargsDevice.place, text: v.kwargsDevice.text } : { place: UNTRACKED };
  }
  return undefined;
}

/**
 * `dict(device=d, dtype=t)`: a keyword dict, its values by key (they bind parameters when it is
 * passed on with `**`), that also passes its device on to a factory.
 */
export function deviceKwargsCall(ctx: RoundContext, ex: Evaluator, frame: Frame, call: Node): Value | undefined {
  const args = callArguments(call);
  if (args.positional.length || args.hasSplat) return undefined;
  const entries = new Map<string, Value>();
  for (const [k, n] of args.keywords) entries.set(k, ex.eval(frame, n));
  const device = args.keywords.get('device');
  const kwargs = device ? kwargsValue(ctx, ex, frame, device) : undefined;
  return value('other', UNTRACKED, { entries, kwargsDevice: kwargs?.kwargsDevice });
}

/** `{"device": d, "dtype": t}`. */
export function deviceKwargsDisplay(ctx: RoundContext, ex: Evaluator, frame: Frame, dict: Node): Value | undefined {
  const device = children(dict).find((p) => p.type === 'pair' && stringLiteralValue(field(p, 'key') ?? p) === 'device');
  const v = device && field(device, 'value');
  if (!v || children(dict).some((p) => p.type === 'dictionary_splat')) return undefined;
  return kwargsValue(ctx, ex, frame, v);
}

function kwargsValue(ctx: RoundContext, ex: Evaluator, frame: Frame, device: Node): Value | undefined {
  const n = unparen(device);
  if (n.type === 'none' || ex.eval(frame, n).isNone) return undefined;
  return value('other', UNTRACKED, { kwargsDevice: { place: evalDevice(ctx, frame, device, (f, x) => ex.eval(f, x)), text: device.text } });
}

/**
 * A `with` item that makes factories and new modules default to a device:
 * `with torch.device("cuda"):`, `with device:` (a device value), `with fabric.init_module():`.
 * `torch.cuda.device(i)` only selects the current CUDA device: not one of these.
 */
export function deviceContextPlace(q: string | undefined, v: Value): Place | undefined {
  if (v.kind !== 'device' || v.place === UNTRACKED || (q !== undefined && q !== 'torch.device')) return undefined;
  // `with torch.device("meta"):` builds shapes only; they are materialized later (`to_empty`).
  return /^torch\.device\(\s*['"]meta['"]/.test(v.deviceText ?? '') ? UNTRACKED : v.place;
}

// ---- Lightning (classes are marked in frameworkNames.ts) -----------------------------

/** Batch-carrying parameters of the hooks (before the transfer hooks, batches are still on the CPU). */
const ON_DEVICE_PARAMS = new Set(['batch', 'outputs']);

/** `validation_epoch_end(self, outputs)`: the list of what each `validation_step` returned. */
const EPOCH_END = /^(training|validation|test|predict)_epoch_end$/;

/**
 * In a Lightning hook, `self` is a module on the Trainer's device and the batch is already
 * there. `stepReturn`: what the class's method of that name returns (its summary), if known.
 */
export function enterFrameworkScope(program: Program, fn: FunctionInfo, env: Env, stepReturn: (method: string) => Value | undefined): void {
  const cls = fn.className ? program.classes.get(fn.className) : undefined;
  if (!cls?.lightning || !fn.selfName || !DEVICE_HOOK.test(fn.name) || /transfer/.test(fn.name)) return;
  const deviceText = `${fn.selfName}.device`;
  const where = { unit: fn.unit, node: field(fn.node, 'name') ?? fn.node };
  const module = { ...where, what: `on the Trainer's device in ${fn.name}` };
  env.set(fn.selfName, value('module', EITHER, { className: cls.key, deviceText, origin: module }));
  const stage = EPOCH_END.exec(fn.name)?.[1];
  fn.params.slice(1).forEach((p, i) => {
    // The Trainer collects what the step returned, as it was returned (`loss.cpu().numpy()` stays NumPy).
    const returned = stage && i === 0 ? stepReturn(`${stage}_step`) : undefined;
    if (returned) env.set(p.name, value('other', UNTRACKED, { anyElement: returned }));
    else if (ON_DEVICE_PARAMS.has(p.name) || (i === 0 && /_step$/.test(fn.name))) {
      const origin = { ...where, what: `moved to ${deviceText} by the Trainer before ${fn.name}` };
      env.set(p.name, value('tensor', EITHER, { grad: 'no', deviceText, origin }));
    }
  });
}
