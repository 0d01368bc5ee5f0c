// DD021 fixed-device-in-forward: `self.device = device` in `__init__`, then
// `torch.zeros(..., device=self.device)` or `.to(self.device)` in `forward`. The attribute
// records where the module was meant to be when it was built, not where it is: after a
// later `model.to(other)` / `.cuda()`, or in the replicas DataParallel runs on other GPUs
// (their attributes are copies of cuda:0's), the new tensors land beside the wrong device.
// The input's own device is always right; the fix writes `device=x.device`.
import type { Node } from '../../python/pyNode';
import { callArguments, field, unparen } from '../../python/syntax';
import type { ClassInfo, FunctionInfo, Rule, RuleFrame as Frame, RuleHost } from '../ruleApi';
import { DEVICE_FACTORIES } from '../torchApi';
import type { Fix } from '../types';
import { callerPosition, callsNamed, passesParameter } from './shared/callSites';
import { shortText } from './shared/describe';
import { ruleMessage } from './shared/message';
import { bodyNodes, isSelfAttribute, moduleMethodAt, selfAttributeWrites } from './shared/moduleCode';

export const fixedDeviceInForward: Rule = (host) => {
  // One finding per forward and attribute: its fix rewrites every use there.
  const reported = new Set<string>();
  return {
    call: (frame, call, qualified) => {
      if (host.program.units[frame.unit]?.module !== 0) return;
      const deviceArg = fixedDeviceArgument(call, qualified);
      if (!deviceArg) return;
      const at = moduleMethodAt(host.program, call);
      if (!at || at.fn.name !== 'forward' || at.cls.lightning) return;
      const attr = field(unparen(deviceArg), 'attribute')?.text;
      if (!attr || !DEVICE_NAME.test(attr) || !isSelfAttribute(deviceArg, at.fn.selfName!, attr)) return;
      const key = `${at.fn.id}:${attr}`;
      if (reported.has(key)) return;
      const init = setOnlyInInit(at.cls, attr);
      if (!init) return;
      const why = evidence(host, at.cls, init);
      if (!why) return;
      reported.add(key);
      report(host, frame, call, deviceArg, at.cls, at.fn, init, why);
    },
  };
};

/** An attribute that names a device (`device`, `_device`, `dev`, `gpu`): `.to(self.dtype)` is a cast. */
const DEVICE_NAME = /dev|gpu|cuda/i;

/** The `device=` of a torch factory, or the target of `.to(...)` (positional or `device=`): the node that names the device. */
function fixedDeviceArgument(call: Node, qualified: string | undefined): Node | undefined {
  const args = callArguments(call);
  if (qualified && DEVICE_FACTORIES.has(qualified)) return args.keywords.get('device');
  const callee = field(call, 'function');
  if (qualified || callee?.type !== 'attribute' || field(callee, 'attribute')?.text !== 'to') return undefined;
  return args.keywords.get('device') ?? args.positional[0];
}

/** The `self.<attr> = ...` of `__init__`, when no other method (nor a property of that name) sets it. */
function setOnlyInInit(cls: ClassInfo, attr: string): Node | undefined {
  if (cls.methods.has(attr)) return undefined; // a property computes it
  const init = cls.methods.get('__init__');
  if (!init) return undefined;
  const writes = selfAttributeWrites(init, attr);
  if (writes.length === 0) return undefined;
  for (const [name, fn] of cls.methods) if (name !== '__init__' && selfAttributeWrites(fn, attr).length > 0) return undefined;
  return writes[0];
}

/**
 * Why the stored device can differ from where the module is, or undefined when the code
 * gives no sign that it does: a device the caller passes in, with nothing that moves the
 * model elsewhere, is where the caller also puts the model (`Seq2Seq(enc, dec, device).to(device)`).
 */
function evidence(host: RuleHost, cls: ClassInfo, write: Node): string | undefined {
  const right = write.type === 'assignment' ? field(write, 'right') : null;
  if (!right) return undefined;
  const init = cls.methods.get('__init__')!;
  // `torch.device(cfg.MODEL.DEVICE)`, `args.device`: read from what the caller passes, so the caller's choice too.
  const read = new Set([...bodyNodes(right), right].filter((n) => n.type === 'identifier').map((n) => n.text));
  const param = init.params.slice(1).find((p) => read.has(p.name));
  if (!param) return `\`${shortText(right, 30)}\` is chosen by the module itself, not where it is moved to`;
  // `self.to(self.device)` in __init__: the module is built where the attribute says.
  if (movesItselfTo(init, write)) return dataParallelEvidence(host);
  if (param.defaultNode) return defaultEvidence(host, cls, init, param.name, param.defaultNode) ?? dataParallelEvidence(host);
  return dataParallelEvidence(host);
}

/**
 * The constructor's default applies: a construction the program shows leaves it out, or the
 * program constructs the class nowhere (a model file whose users are elsewhere). Where every
 * construction passes it, the caller chooses the device, as it chooses where the model goes.
 */
function defaultEvidence(host: RuleHost, cls: ClassInfo, init: FunctionInfo, param: string, defaultNode: Node): string | undefined {
  const position = callerPosition(init, param);
  const sites = host.programFact(`DD021 constructions of ${cls.name}`, (program) => callsNamed(program, new Set([cls.name])).get(cls.name) ?? []);
  // A construction through `*args`/`**kwargs` may pass it: no evidence of the default.
  const omitting = sites.find((call) => !passesParameter(call, param, position, true));
  const defaultText = `\`${param}\` defaults to \`${shortText(defaultNode, 20)}\``;
  if (omitting) return `\`${shortText(omitting, 30)}\` leaves it out, and the constructor's ${defaultText}`;
  return sites.length === 0 ? `the constructor's ${defaultText} when a caller moves the model instead` : undefined;
}

function dataParallelEvidence(host: RuleHost): string | undefined {
  const dp = host.deviceChoice().dataParallel;
  return dp ? `this file uses DataParallel (line ${dp.startPosition.row + 1}), whose replicas keep cuda:0's attribute` : undefined;
}

/** `self.to(self.<attr>)` in `__init__`, with the attribute the write sets. */
function movesItselfTo(init: FunctionInfo, write: Node): boolean {
  const self = init.selfName;
  const target = field(write, 'left');
  if (!self || !target) return false;
  for (const n of bodyNodes(init.body)) {
    if (n.type !== 'call') continue;
    const callee = field(n, 'function');
    if (callee?.type !== 'attribute' || field(callee, 'attribute')?.text !== 'to' || unparen(field(callee, 'object')!).text !== self) continue;
    const first = callArguments(n).positional[0] ?? callArguments(n).keywords.get('device');
    if (first && unparen(first).text === target.text) return true;
  }
  return false;
}

/** Names of forward inputs that are tensors by convention, when the body does not say. */
const TENSOR_LIKE_NAME = /^(x|xs|inp|inputs?|input_ids|ids|tokens|src|tgt|seq|feats?|features|h|hidden|z|img|imgs|images?|data|logits|q|query|audio|signal|points|coords)$/;

/** forward's first input when it is a tensor, by its name or by how the body uses it (`x.shape`, `x.size(…)`, `x.device`). */
function firstTensorInput(fn: FunctionInfo): string | undefined {
  const first = fn.params[1];
  if (!first || first.variadic || first.defaultNode) return undefined;
  if (TENSOR_LIKE_NAME.test(first.name)) return first.name;
  for (const n of bodyNodes(fn.body)) {
    if (n.type !== 'attribute') continue;
    const object = field(n, 'object');
    if (object?.type === 'identifier' && object.text === first.name && /^(shape|size|device|dtype|ndim|dim)$/.test(field(n, 'attribute')?.text ?? '')) return first.name;
  }
  return undefined;
}

/** Every `device=self.<attr>` / `.to(self.<attr>)` in the forward, in source order: the fix rewrites them all. */
function usesInForward(fn: FunctionInfo, deviceArg: Node): Node[] {
  const attr = field(unparen(deviceArg), 'attribute')?.text;
  const uses: Node[] = [];
  for (const n of bodyNodes(fn.body)) {
    if (n.type !== 'call') continue;
    const callee = field(n, 'function');
    const args = callArguments(n);
    const named = args.keywords.get('device');
    const to = callee?.type === 'attribute' && field(callee, 'attribute')?.text === 'to' ? named ?? args.positional[0] : named;
    if (to && isSelfAttribute(to, fn.selfName!, attr)) uses.push(to);
  }
  return uses.some((u) => u.id === deviceArg.id) ? uses : [deviceArg];
}

function report(host: RuleHost, frame: Frame, call: Node, deviceArg: Node, cls: ClassInfo, fn: FunctionInfo, init: Node, why: string): void {
  const attr = deviceArg.text;
  const input = firstTensorInput(fn);
  const uses = usesInForward(fn, deviceArg);
  const more = uses.length > 1 ? ` (and ${uses.length - 1} more time${uses.length > 2 ? 's' : ''} in this forward)` : '';
  host.report({
    unit: frame.unit,
    code: 'DD021',
    node: deviceArg,
    message: ruleMessage((q) => ({
      problem: `${q(attr)} in forward is fixed when the module was built`,
      action: input ? `use ${q(`${input}.device`)}` : 'use the input\'s device',
      why: `\`${shortText(call, 40)}\` in \`${cls.name}.forward\` uses it${more}: after a later ` +
        '`.to(...)` / `.cuda()`, or in the replicas DataParallel runs on the other GPUs, the module and its inputs are elsewhere and this ' +
        `tensor is not ("Expected all tensors to be on the same device"); here ${why}.`,
    })),
    related: host.related({ unit: frame.unit, node: init }, `\`${attr}\` is set here, when the module is built`),
    fixes: input ? [useInputDevice(uses, input, frame.unit)] : [],
  });
}

function useInputDevice(uses: readonly Node[], input: string, unit: number): Fix {
  return {
    title: `Use ${input}.device`,
    edits: uses.map((u) => ({ range: { start: { line: u.startPosition.row, character: u.startPosition.column }, end: { line: u.endPosition.row, character: u.endPosition.column } }, newText: `${input}.device`, cellIndex: unit })),
    preferred: true,
  };
}
