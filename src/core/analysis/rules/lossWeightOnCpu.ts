// DD017 loss-weight-on-cpu: a loss built with class weights on the CPU (`weight=`,
// `pos_weight=`, also passed to a functional loss) is called with logits and targets on
// an accelerator. Reported at the weight; the fix moves it (`weight=w.to(device)`) or,
// for an inline factory, creates it there (`torch.tensor([...], device=device)`).
import type { Node } from '../../python/pyNode';
import { callArguments, field } from '../../python/syntax';
import type { RuleFrame as Frame } from '../ruleApi';
import { addDeviceKeyword, appendMove } from '../fixes';
import { cpuModuleMeeting, operationMeetings } from '../values';
import type { Rule, RuleHost } from '../ruleApi';
import { DEVICE_FACTORIES } from '../torchApi';
import type { Fix } from '../types';
import type { Arg, Located } from '../values';
import { accelPhrase, lineOf, shortText } from './shared/describe';
import { code, ruleMessage } from './shared/message';
import { deviceTextFor } from './shared/deviceText';
import { functionalLossWeight, heldLossWeight, LossWeight } from './shared/lossWeight';
import { plainTensorAttribute } from './shared/tensorAttribute';

export const lossWeightOnCpu: Rule = (host) => ({
  moduleCall: (frame, _call, calleeNode, callee, args) => {
    const meeting = cpuModuleMeeting({ node: calleeNode, value: callee }, args);
    const held = meeting && !callee.param ? heldLossWeight(host.program, callee) : undefined;
    if (held) report(host, frame, held, { node: calleeNode, value: callee }, meeting!.other);
  },
  argumentMeetsAccelerator: (frame, _call, arg, other, inside) => {
    const held = arg.value.kind === 'module' ? heldLossWeight(host.program, arg.value) : undefined;
    if (held) report(host, frame, held, arg, other, inside);
  },
  tensorOperation: (frame, _node, args) => {
    for (const m of operationMeetings(args)) {
      if (m.cpu.value.param || plainTensorAttribute(host.program, frame, m.cpu, m.other)) continue; // a plain module attribute is DD016's
      const weight = functionalLossWeight(host.program, frame.unit, frame.id, m.cpu);
      if (weight) report(host, frame, weight, m.cpu, m.other);
    }
  },
});

function report(c: RuleHost, frame: Frame, site: LossWeight, loss: Arg, other: Arg, inside?: Located): void {
  const weightName = shortText(site.weight);
  const lossName = shortText(loss.node === site.weight ? field(site.call, 'function') ?? site.call : loss.node);
  const otherName = shortText(other.node);
  const dev = deviceTextFor(frame, other);
  const usable = dev && (site.scope === frame.id || /^["'\d]/.test(dev) || globalAtModuleLevel(frame, site, dev)) ? dev : undefined;
  const where = inside ?? { unit: frame.unit, node: loss.node };
  c.report({
    unit: site.unit,
    code: 'DD017',
    subject: loss.node,
    node: site.weight,
    message: ruleMessage((q) => ({
      problem: `${q(lossName)}'s ${site.keyword} is on the CPU`,
      action: usable ? `move it with ${code(`.to(${usable})`)}` : 'move it to the input\'s device',
      why: `\`${lossName}\` gets its ${site.keyword} \`${weightName}\` on the CPU, but is called with \`${otherName}\`, which ` +
        `${accelPhrase(other.value)}${lineOf(other.value)}: the weighted loss raises "Expected all tensors to be on the same device".` +
        `${usable ? ` Put the weights on the same device: ${site.keyword}=${shortText(site.weight, 30)}.to(${usable}).` : ''}`,
    })),
    related: [
      ...c.related(where, `\`${lossName}\` meets \`${otherName}\` here`),
      ...c.related(other.value.origin, `\`${otherName}\` ${other.value.origin?.what ?? 'placed here'}`),
    ],
    fixes: usable ? fixesFor(c, frame, site, loss, usable) : [],
  });
}

/**
 * A loss built at module level, used in a top-level function: the device name can be
 * written at the constructor when it is one of the module's globals.
 */
function globalAtModuleLevel(frame: Frame, site: LossWeight, dev: string): boolean {
  const root = /^[A-Za-z_]\w*/.exec(dev)?.[0];
  return site.scope === -1 && frame.fn?.parent === -1 && !!root && !!frame.outer?.has(root);
}

function fixesFor(c: RuleHost, frame: Frame, site: LossWeight, loss: Arg, dev: string): Fix[] {
  const fixes: Fix[] = [];
  const name = shortText(site.weight, 30);
  // The weights' own factory: inline (`weight=torch.tensor([...])`), or, for a functional
  // loss, the one in this scope the argument came from.
  const inline = site.weight.type === 'call' && isDeviceFactory(c, site.unit, site.weight) ? site.weight : undefined;
  const made = loss.node === site.weight && loss.value.factory?.scope === frame.id ? loss.value.factory.node : undefined;
  const factory = inline ?? made;
  const created = factory ? addDeviceKeyword(factory, dev, site.unit) : undefined;
  if (created) fixes.push({ title: `Create the weights on ${dev} (add device=${dev})`, edits: created, preferred: true });
  fixes.push({ title: `Move the weights: ${site.keyword}=${name}.to(${dev})`, edits: appendMove(site.weight, dev, site.unit), preferred: fixes.length === 0 });
  return fixes;
}

function isDeviceFactory(c: RuleHost, unit: number, call: Node): boolean {
  const callee = field(call, 'function');
  const q = callee ? c.program.importsAt(unit).qualify(callee) : undefined;
  const args = callArguments(call);
  return !!q && DEVICE_FACTORIES.has(q) && !args.keywords.has('device') && !args.hasSplat;
}
