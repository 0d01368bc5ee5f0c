// DD001 device-mismatch: a value exactly on the CPU meets a module or a non-scalar
// tensor whose place contains an accelerator. Batch elements inside their loader loop
// are left to DD002, which fixes the whole loop at once: they are handed over as
// `batchReachedAccelerator` events, not reported.
import type { Node } from '../../python/pyNode';
import { descendants, dottedKey, field, unparen } from '../../python/syntax';
import type { RuleFrame as Frame } from '../ruleApi';
import { addDeviceKeyword, appendMove } from '../fixes';
import type { OperationRole, Rule, RuleHost } from '../ruleApi';
import type { Fix } from '../types';
import { ACCEL, acceleratorSide, Arg, CpuBranch, EITHER, excludedByTests, hasAccel, isExactlyCpu, Located, UNTRACKED, Value } from '../values';
import { runningBatch } from './shared/batches';
import { accelPhrase, cpuModelHistory, INDEXED_ON_CPU, onGpu, lineOf, SAME_DEVICE, shortText } from './shared/describe';
import { ruleMessage } from './shared/message';
import { canReference, deviceTextFor, firstBindings, globalAbove, boundAbove, instanceAttributeAbove } from './shared/deviceText';
import { cpuModelGivenDeviceIds } from './shared/ddpDeviceIds';
import { cpuTensorToNccl } from './shared/ncclCollective';

export const deviceMismatch: Rule = (host) => ({
  moduleCall: (frame, _call, calleeNode, callee, args) => checkModuleCall(host, frame, calleeNode, callee, args),
  tensorOperation: (frame, _node, args, role) => checkTensorOperation(host, frame, args, role),
  argumentMeetsAccelerator: (frame, call, arg, other, inside, module) => checkArgument(host, frame, call, arg, other, inside, module),
  call: (frame, call, qualified) => {
    checkDdpWrap(host, frame, call, qualified);
    checkCollective(host, frame, call, qualified);
  },
});

/** `dist.all_reduce(t)` with t on the CPU in a file whose process group is NCCL's. */
function checkCollective(c: RuleHost, frame: Frame, call: Node, qualified: string | undefined): void {
  const found = cpuTensorToNccl(c, frame, call, qualified);
  if (!found) return;
  const name = shortText(found.tensor);
  const backendLine = found.backend.node.startPosition.row + 1;
  c.report({
    unit: frame.unit,
    code: 'DD001',
    node: found.tensor,
    message: ruleMessage((q) => ({
      problem: `${q(found.tensor)} is on the CPU, but NCCL takes CUDA tensors`,
      action: 'create it on the rank\'s GPU',
      why: `\`${found.collective}\` runs on this file's NCCL process group ("nccl" on line ${backendLine}), which takes CUDA tensors only: ` +
        'PyTorch raises "Tensors must be CUDA and dense" (PyTorch 2: "No backend type associated with device type cpu"). Or move it there before the collective.',
    })),
    related: [
      ...c.related(found.backend, 'the NCCL backend is named here'),
      ...c.related(found.value.origin, `\`${name}\` ${found.value.origin?.what ?? 'created here'}`),
    ],
    fixes: collectiveFixes(frame, found.value, name),
  });
}

/**
 * Create the tensor on the current CUDA device, the one NCCL works on (each rank sets it with
 * torch.cuda.set_device). Not `.cuda()` on the argument: collectives work in place, so the
 * result would land in a temporary copy.
 */
function collectiveFixes(frame: Frame, value: Value, name: string): Fix[] {
  const factory = value.factory;
  if (!factory || factory.scope !== frame.id) return [];
  const device = 'torch.cuda.current_device()';
  const edits = addDeviceKeyword(factory.node, device, factory.unit);
  return edits ? [{ title: `Create \`${name}\` on the rank's GPU (add device=${device})`, edits, preferred: true }] : [];
}

/** `DDP(model, device_ids=[rank])` with the model never moved: DDP raises when it is built. */
function checkDdpWrap(c: RuleHost, frame: Frame, call: Node, qualified: string | undefined): void {
  const found = cpuModelGivenDeviceIds(frame, call, qualified);
  if (!found) return;
  const name = shortText(found.model);
  const dev = found.deviceId.text;
  const fixable = /^[\w.]+$/.test(dev) && canReference(frame, dev);
  c.report({
    unit: frame.unit,
    code: 'DD001',
    node: found.model,
    message: ruleMessage((q) => ({
      problem: `${q(found.model)} is on the CPU, but DDP gets device_ids`,
      action: `move it to ${q(found.deviceId)} first`,
      why: `\`${name}\` was never moved, and DistributedDataParallel is given device_ids=[${shortText(found.deviceId)}]: ` +
        'it raises "device_ids ... only work with single-device/multiple-device GPU modules or CPU modules" when it is built.',
    })),
    related: c.related(found.value.origin, `\`${name}\` ${found.value.origin?.what ?? 'created here'}`),
    fixes: fixable ? [{ title: `Move \`${shortText(found.model, 30)}\` to ${dev} before wrapping it`, edits: appendMove(unparen(found.model), dev, frame.unit), preferred: true }] : [],
  });
}

/**
 * `helper(x)` with `x` on the CPU, where the helper uses it with an accelerator: reported at `x`.
 * `module(x)` whose forward does: the fix may name the module's device when the caller cannot
 * name the submodule's (`self.front`, moved to an `__init__` parameter).
 */
function checkArgument(c: RuleHost, frame: Frame, call: Node, arg: Arg, other: Arg, inside: Located, module?: Arg): void {
  if (runningBatch(frame, arg.value)) {
    c.emit.batchReachedAccelerator(frame, arg, other);
    return;
  }
  const name = shortText(arg.node);
  const otherName = shortText(other.node);
  const callee = calledName(call);
  if (arg.value.kind === 'module') return modelArgumentOnCpu(c, frame, call, arg, other, inside);
  c.report({
    onlyMaybe: onlyMaybeOn(other.value),
    unit: frame.unit,
    code: 'DD001',
    node: arg.node,
    subject: arg.node,
    cause: arg.value.origin,
    message: ruleMessage((q) => ({
      problem: `${q(arg.node)} is on the CPU, ${q(callee)} ${other.value.place === EITHER ? 'may use' : 'uses'} it on the GPU`,
      action: 'move it there',
      why: `\`${callee}\` uses it with \`${otherName}\` (line ${inside.node.startPosition.row + 1}), which ` +
        `${accelPhrase(other.value)}${lineOf(other.value)}: ${SAME_DEVICE}`,
    })),
    related: [
      ...c.related(inside, `\`${name}\` meets \`${otherName}\` here, inside \`${callee}\``),
      ...c.related(other.value.origin, `\`${otherName}\` ${other.value.origin?.what ?? 'placed here'}`),
      ...c.related(arg.value.origin, `\`${name}\` ${arg.value.origin?.what ?? 'created here'}`),
    ],
    fixes: deviceTextFor(frame, other) === undefined && module
      // Moved at the call only: the module may not exist yet where the argument was created.
      ? mismatchFixes(frame, { ...arg, value: { ...arg.value, factory: undefined } }, onInstanceDevice(other, module) ?? { node: module.node, value: { ...module.value, kind: 'module', deviceText: undefined } })
      : mismatchFixes(frame, arg, other),
  });
}

/**
 * What forward made on `self.device` is, at the call, on `smoother.device`: the instance's
 * attribute names it, also for a module without weights, whose `next(m.parameters())` raises.
 */
function onInstanceDevice(other: Arg, module: Arg): Arg | undefined {
  const text = other.value.deviceText;
  const instance = dottedKey(unparen(module.node));
  if (!text || !instance || !/^self\.\w+$/.test(text)) return undefined;
  return { node: module.node, value: { ...other.value, deviceText: `${instance}${text.slice('self'.length)}`, origin: undefined } };
}

/** `evaluate()`, `self.step()`: the function a call runs, for messages. */
function calledName(call: Node): string {
  const fn = field(call, 'function');
  return `${shortText(fn ?? call, 30)}()`;
}

/** `train(model, ...)` with `model` never moved, where train() calls it with inputs on an accelerator. */
function modelArgumentOnCpu(c: RuleHost, frame: Frame, call: Node, model: Arg, input: Arg, inside: Located): void {
  const name = shortText(model.node);
  const inputName = shortText(input.node);
  const callee = calledName(call);
  const dev = deviceTextFor(frame, input);
  const created = model.value.factory;
  const fixes: Fix[] = dev && created && movableWhereCreated(c, frame, created, dev)
    ? [{ title: `Move \`${shortText(model.node, 30)}\` to ${dev} where it is created`, edits: appendMove(created.node, dev, created.unit), preferred: true }]
    : [];
  c.report({
    onlyMaybe: onlyMaybeOn(input.value),
    unit: frame.unit,
    code: 'DD001',
    node: model.node,
    subject: model.node,
    message: ruleMessage((q) => ({
      problem: `${q(model.node)} is on the CPU, but ${q(callee)} ${input.value.place === EITHER ? 'may call' : 'calls'} it with GPU inputs`,
      action: 'move it there',
      why: `${cpuModelHistory(name, model.value)}, and \`${callee}\` calls it with \`${inputName}\` (line ${inside.node.startPosition.row + 1}), which ` +
        `${accelPhrase(input.value)}${lineOf(input.value)}: ${SAME_DEVICE}`,
    })),
    related: [
      ...c.related(inside, `\`${name}\` is called with \`${inputName}\` here, inside \`${callee}\``),
      ...c.related(input.value.origin, `\`${inputName}\` ${input.value.origin?.what ?? 'placed here'}`),
      ...c.related(model.value.origin, `\`${name}\` ${model.value.origin?.what ?? 'created here'}`),
    ],
    fixes,
  });
}

/**
 * The scope's own device variables all hold the CPU in this world (`device =
 * torch.device("cpu")` where `--no-accel` is set): it deals with no accelerator here, so a
 * model of unknown place is not one that may be on an accelerator.
 */
function onlyCpuDevicesHere(frame: Frame): boolean {
  const devices = frame.env.keys().filter((k) => /(^|[._])device$/i.test(k)).map((k) => frame.env.get(k)).filter((v) => v?.kind === 'device');
  return devices.length > 0 && devices.every((v) => isExactlyCpu(v!.place));
}

/**
 * The loop moves the batch somewhere (`if not args.use_cpu: points = points.cuda()`), on a
 * path this world did not take: the code decides when it moves, and a model of unknown place
 * is no evidence that this path needs it moved.
 */
function movedInLoop(batch: NonNullable<Value['batch']>): boolean {
  const body = field(batch.loop.node, 'body');
  if (!body) return false;
  // Its parts count (`mixture, lengths = data`, then `if args.cuda: mixture = mixture.cuda()`).
  const names = new Set([batch.name, ...namesUnpackedFrom(body, batch.name)]);
  return descendants(body).some((n) => {
    if (n.type !== 'call') return false;
    const callee = field(n, 'function');
    const receiver = callee?.type === 'attribute' ? field(callee, 'object') : undefined;
    return receiver?.type === 'identifier' && names.has(receiver.text) && /^(to|cuda)$/.test(field(callee!, 'attribute')?.text ?? '');
  });
}

/** The names a loop body assigns from `name` itself (`a, b = name`, `x = name[0]`). */
function namesUnpackedFrom(body: Node, name: string): string[] {
  const out: string[] = [];
  for (const n of descendants(body)) {
    if (n.type !== 'assignment') continue;
    const right = field(n, 'right');
    const source = right?.type === 'subscript' ? field(right, 'value') : right;
    if (source?.type !== 'identifier' || source.text !== name) continue;
    for (const target of descendants(field(n, 'left')!)) if (target.type === 'identifier') out.push(target.text);
  }
  return out;
}

function checkModuleCall(c: RuleHost, frame: Frame, calleeNode: Node, callee: Value, args: Arg[]): void {
  if (callee.movesInputs) return;
  if (callee.place === UNTRACKED) {
    // A model of unknown place: in a function that deals with devices it may be on one,
    // which is not evidence enough for DD001 but is for DD002's loop-wide finding.
    // Given a tensor the code itself put on the CPU (`model(x.to(device)).cpu()`), the call
    // runs on the CPU: a batch left there meets it.
    const cpuPeer = args.some((a) => isCpuOperand(a.value) && !runningBatch(frame, a.value));
    if (frame.deviceAware && !onlyCpuDevicesHere(frame) && !cpuPeer) {
      for (const a of args) {
        const batch = runningBatch(frame, a.value);
        if (isCpuOperand(a.value) && batch && !movedInLoop(batch)) c.emit.batchReachedAccelerator(frame, a, { node: calleeNode, value: callee });
      }
    }
    checkTensorOperation(c, frame, args, 'consumer');
    return;
  }
  if (isExactlyCpu(callee.place) && !callee.placeless) {
    const input = acceleratorSide(args);
    if (input) modelOnCpu(c, frame, { node: calleeNode, value: callee }, input);
    return;
  }
  if (!hasAccel(callee.place)) return;
  const model = { node: calleeNode, value: callee };
  if (callee.cpuWhen && !callee.param) {
    const input = args.find((a) => isOnAccelerator(a.value) && a.value.kind !== 'module');
    if (input) cpuOnOnePath(c, frame, model, input, callee.cpuWhen);
  }
  // A wrapper on some paths (DataParallel) takes CPU inputs: an input the code leaves on the
  // CPU on one path only is, as in the ImageNet example's `if args.gpu is not None:`, the
  // wrapper's path, which the analysis cannot tell apart from the plain module's.
  if (isOnAccelerator(callee) && callee.outputPlace === undefined) cpuOnSomePath(c, frame, args, model);
  for (const a of args) if (isCpuOperand(a.value)) mismatch(c, frame, a, model, 'consumer');
}

function checkTensorOperation(c: RuleHost, frame: Frame, args: Arg[], via: OperationRole): void {
  const other = acceleratorSide(args);
  if (!other) return;
  for (const a of args) if (a !== other && isCpuOperand(a.value)) mismatch(c, frame, a, other, via);
  if (isOnAccelerator(other.value)) cpuOnSomePath(c, frame, args.filter((a) => a !== other), other);
}

/** Tensors among `args` that a branch of an earlier `if` left on the CPU, meeting `other` on the accelerator. */
function cpuOnSomePath(c: RuleHost, frame: Frame, args: Arg[], other: Arg): void {
  for (const a of args) if (a.value.cpuWhen && a.value.kind === 'tensor' && !a.value.param) cpuOnOnePath(c, frame, a, other, a.value.cpuWhen);
}

/** Exactly on the accelerator, on every path: not a 0-dim tensor. */
function isOnAccelerator(v: Value): boolean {
  return v.place === ACCEL && !v.scalar && (v.kind === 'tensor' || v.kind === 'module');
}

/**
 * `model(x)` (or `a + b`) where one branch of an earlier `if` left `model` on the CPU and the
 * others moved it: on the path through that branch, the call meets GPU tensors.
 */
function cpuOnOnePath(c: RuleHost, frame: Frame, cpu: Arg, other: Arg, branch: CpuBranch): void {
  if (excludedByTests(branch, frame.tests)) return;
  const made = madeHereMetByImporter(c, frame, branch.value.factory ?? branch.value.origin);
  if (made) {
    reportCpuPathHere(c, frame, made, cpu, other, branch);
    return;
  }
  const name = shortText(cpu.node);
  const otherName = shortText(other.node);
  const dev = deviceTextFor(frame, other);
  const created = branch.value.factory;
  const isModule = cpu.value.kind === 'module';
  const edits = dev && created && created.scope === frame.id
    ? (isModule ? appendMove(created.node, dev, created.unit) : addDeviceKeyword(created.node, dev, created.unit) ?? appendMove(created.node, dev, created.unit))
    : undefined;
  c.report({
    onlyMaybe: onlyMaybeOn(other.value),
    unit: frame.unit,
    code: 'DD001',
    node: cpu.node,
    subject: cpu.node,
    message: ruleMessage((q) => ({
      problem: `${q(cpu.node)} stays on the CPU ${branch.what}`,
      action: 'move it to the GPU there too',
      why: `The other paths move \`${name}\`, and here it meets \`${otherName}\`, which ${accelPhrase(other.value)}${lineOf(other.value)}: ${SAME_DEVICE}`,
    })),
    related: [
      ...c.related(branch, `\`${name}\` stays on the CPU on this path`),
      ...c.related(branch.value.origin, `\`${name}\` ${branch.value.origin?.what ?? 'created here'}`),
      ...c.related(other.value.origin, `\`${otherName}\` ${other.value.origin?.what ?? 'placed here'}`),
    ],
    fixes: edits
      ? [{ title: `Move \`${shortText(cpu.node, 30)}\` to ${dev} where that branch creates it`, edits, preferred: true }]
      // A tensor moved where it is used is right on every path (moving one already there copies nothing).
      : dev && !isModule ? [{ title: `Move \`${shortText(cpu.node, 30)}\` to ${dev} here: .to(${dev})`, edits: appendMove(unparen(cpu.node), dev, frame.unit), preferred: true }] : [],
  });
}

/**
 * Whether `.to(dev)` appended where the model is created names a device that exists there:
 * the same scope (with `dev` bound above the creation), a quoted device, a module-level
 * creation below the global `dev`, or another method of the class that sets `self.device`
 * above the creation.
 */
function movableWhereCreated(c: RuleHost, frame: Frame, created: Located & { scope: number }, dev: string | undefined): boolean {
  const bindings = () => c.programFact('DD001 first module-level bindings', firstBindings);
  return (created.scope === frame.id && (!dev || boundAbove(frame, dev, created, bindings()))) || /^["']/.test(dev ?? '') ||
    (created.scope === -1 && !!dev && globalAbove(frame, dev, created, bindings())) ||
    (created.scope !== -1 && !!dev && instanceAttributeAbove(frame, dev, created));
}

/** The model itself was never moved, but its input was. */
function modelOnCpu(c: RuleHost, frame: Frame, model: Arg, input: Arg): void {
  if (model.value.param) return; // the caller's argument: reported at each call (checkArgument)
  const name = shortText(model.node);
  const inputName = shortText(input.node);
  const dev = deviceTextFor(frame, input);
  const created = model.value.factory;
  // A submodule met from outside (`model.encoder(x)`) was built with its instance: that is what to move.
  const holder = model.value.submoduleOfFactory && model.node.type === 'attribute' ? field(model.node, 'object') : undefined;
  const built = holder ?? model.node;
  // A submodule built in __init__ and called in forward (a model-parallel stage): a quoted
  // device ("cuda:1") means the same in the scope that built it.
  // One built by module code and met in a function: moved where it is built, if the device
  // the fix names is a global made above it.
  const fixes: Fix[] = dev && created && movableWhereCreated(c, frame, created, dev)
    ? [{ title: `Move \`${shortText(built, 30)}\` to ${dev} where it is created`, edits: appendMove(created.node, dev, created.unit), preferred: true }]
    : [];
  if (created && fixes.length) {
    // The mistake is the missing .to() where the model is built: say it there, once for
    // all its uses, with the use where PyTorch raises as related information. It is named
    // as it is built there (`classifier = nn.Linear(...)`, handed to a factory as `model`).
    const assigned = created.node.parent?.type === 'assignment' && unparen(field(created.node.parent, 'right') ?? created.node) === created.node
      ? field(created.node.parent, 'left') : undefined;
    const builtName = assigned?.type === 'identifier' && !holder ? assigned.text : undefined;
    c.report({
      onlyMaybe: onlyMaybeOn(input.value),
      unit: created.unit,
      code: 'DD001',
      node: created.node,
      subject: model.node,
      message: ruleMessage((q) => ({
        problem: `${q(builtName ?? built)} is created on the CPU and never moved`,
        action: `move it to ${q(dev ?? 'device')} here`,
        why: `\`${name}(…)\` on line ${model.node.startPosition.row + 1} gets \`${inputName}\`, which ${accelPhrase(input.value)}${lineOf(input.value)}: ${SAME_DEVICE}`,
      })),
      related: [
        ...c.related({ unit: frame.unit, node: model.node }, `\`${name}\` is called with \`${inputName}\` here`),
        ...c.related(input.value.origin, `\`${inputName}\` ${input.value.origin?.what ?? 'placed here'}`),
      ],
      fixes,
    });
    return;
  }
  c.report({
    onlyMaybe: onlyMaybeOn(input.value),
    unit: frame.unit,
    code: 'DD001',
    node: model.node,
    subject: model.node,
    message: ruleMessage((q) => ({
      problem: `${q(model.node)} is on the CPU, its input ${onGpu(input.value)}`,
      action: 'move it there',
      why: `${cpuModelHistory(name, model.value)}, and its input \`${inputName}\` ${accelPhrase(input.value)}${lineOf(input.value)}: ${SAME_DEVICE}`,
    })),
    related: [
      ...c.related(input.value.origin, `\`${inputName}\` ${input.value.origin?.what ?? 'placed here'}`),
      ...c.related(model.value.origin, `\`${name}\` ${model.value.origin?.what ?? 'created here'}`),
    ],
    fixes,
  });
}

/**
 * Where a file that imports the analysed one (interpreter.ts reportsIn) meets a value the
 * analysed file left on the CPU on one path while its other paths move it: the path that does
 * not is the analysed file's mistake, reported there. (A factory that never moves what it
 * builds leaves that to its callers: their files report it.) Undefined for a meeting in the
 * analysed file itself, or of a value made elsewhere.
 */
function madeHereMetByImporter(c: RuleHost, frame: Frame, made: Located | undefined): Located | undefined {
  return made && !c.program.inAnalysedFile(frame.unit) && c.program.inAnalysedFile(made.unit) ? made : undefined;
}

/** cpuOnOnePath's finding where madeHereMetByImporter holds: at what this file made, naming the other file's use. */
function reportCpuPathHere(c: RuleHost, frame: Frame, made: Located, cpu: Arg, other: Arg, branch: CpuBranch): void {
  const use = c.related({ unit: frame.unit, node: cpu.node }, `\`${shortText(cpu.node)}\` meets \`${shortText(other.node)}\` here`);
  const otherName = shortText(other.node);
  c.report({
    onlyMaybe: onlyMaybeOn(other.value),
    unit: made.unit,
    code: 'DD001',
    node: made.node,
    subject: made.node,
    message: ruleMessage((q) => ({
      problem: `${q(made.node)} stays on the CPU ${branch.what}`,
      action: 'move it to the GPU here too',
      why: `A file that imports this one uses it as \`${shortText(cpu.node)}\` with \`${otherName}\` on line ${cpu.node.startPosition.row + 1}, which ${accelPhrase(other.value)}${lineOf(other.value)}: ${SAME_DEVICE}`,
    })),
    related: [...use, ...c.related(other.value.origin, `\`${otherName}\` ${other.value.origin?.what ?? 'placed here'}`)],
    fixes: [],
  });
}

function isCpuOperand(v: Value): boolean {
  return isExactlyCpu(v.place) && !v.scalar && v.kind !== 'module' && v.kind !== 'device';
}

function mismatch(c: RuleHost, frame: Frame, cpu: Arg, other: Arg, via: OperationRole): void {
  if (cpu.value.param) return; // the caller's argument: reported at each call (checkArgument)
  if (via === 'consumer' && runningBatch(frame, cpu.value)) {
    c.emit.batchReachedAccelerator(frame, cpu, other);
    return;
  }
  const name = shortText(cpu.node);
  const otherName = shortText(other.node);
  c.report({
    onlyMaybe: onlyMaybeOn(other.value),
    unit: frame.unit,
    code: 'DD001',
    node: cpu.node,
    subject: cpu.node,
    cause: cpu.value.origin,
    message: ruleMessage((q) => ({
      problem: `${q(cpu.node)} is on the CPU, ${q(other.node)} ${onGpu(other.value)}`,
      action: 'move it there',
      why: `\`${otherName}\` ${accelPhrase(other.value)}${lineOf(other.value)}: ${via === 'index' ? INDEXED_ON_CPU : SAME_DEVICE}`,
    })),
    related: [
      ...c.related(other.value.origin, `\`${otherName}\` ${other.value.origin?.what ?? 'placed here'}`),
      ...c.related(cpu.value.origin, `\`${name}\` ${cpu.value.origin?.what ?? 'created here'}`),
    ],
    fixes: mismatchFixes(frame, cpu, other),
  });
}

function mismatchFixes(frame: Frame, cpu: Arg, other: Arg): Fix[] {
  const dev = deviceTextFor(frame, other);
  if (!dev) return [];
  const name = shortText(cpu.node, 30);
  const fixes: Fix[] = [];
  const factory = cpu.value.factory;
  if (factory && factory.scope === frame.id) {
    const edits = addDeviceKeyword(factory.node, dev, factory.unit);
    if (edits) fixes.push({ title: `Create \`${name}\` on ${dev} (add device=${dev})`, edits, preferred: true });
  }
  fixes.push({ title: `Move \`${name}\` to ${dev} here: .to(${dev})`, edits: appendMove(unparen(cpu.node), dev, frame.unit), preferred: fixes.length === 0 });
  return fixes;
}

/** The accelerator side is only maybe there: a place some test the world leaves open decides. */
function onlyMaybeOn(v: Value): true | undefined {
  return v.place === ACCEL ? undefined : true;
}
