// DD003 numpy-on-accelerator and DD010 numpy-requires-grad: `.numpy()` (or
// `np.array(t)`) needs a CPU tensor without autograd history. One fix covers both.
import type { Node } from '../../python/pyNode';
import { field, unparen } from '../../python/syntax';
import type { RuleFrame as Frame } from '../ruleApi';
import { appendAfter, mapElements } from '../fixes';
import type { NumpyConversionStyle, Rule, RuleHost } from '../ruleApi';
import { cpuOnThisPath, EITHER, hasAccel, UNTRACKED, Value } from '../values';
import { accelPhrase, lineOf, onGpu, shortText } from './shared/describe';
import { ruleMessage } from './shared/message';

type Conversion = 'accelerator' | 'grad';

/** DD003: the tensor converted is on an accelerator. */
export const numpyOnAccelerator: Rule = (host) => ({
  numpyConversion: (frame, call, recvNode, recv, style) => checkNumpyConversion(host, 'accelerator', frame, call, recvNode, recv, style),
});

/** DD010: the tensor converted requires grad. */
export const numpyRequiresGrad: Rule = (host) => ({
  numpyConversion: (frame, call, recvNode, recv, style) => checkNumpyConversion(host, 'grad', frame, call, recvNode, recv, style),
});

/** Both rules compute the fix for everything wrong with the conversion, so either one's fix leaves it working. */
function checkNumpyConversion(c: RuleHost, reports: Conversion, frame: Frame, call: Node, recvNode: Node, recv: Value, style: NumpyConversionStyle): void {
  const tensorish = recv.kind === 'tensor' || (recv.kind === 'unknown' && recv.place !== UNTRACKED);
  if (!tensorish) return;
  const onAccel = hasAccel(recv.place) && !cpuOnThisPath(recv, frame.tests);
  const grad = recv.grad === 'yes';
  if (!onAccel && !grad) return;
  const insert = `${grad ? '.detach()' : ''}${onAccel ? '.cpu()' : ''}`;
  const target = unparen(recvNode);
  const name = style === 'elements' ? `the tensors in \`${shortText(target)}\`` : shortText(target);
  // A list of tensors has no .cpu(): each element is converted instead.
  const fixes = [style === 'elements'
    ? { title: `Convert each tensor: [t${insert} for t in ${shortText(target, 30)}]`, edits: mapElements(target, insert, frame.unit), preferred: true }
    : {
      title: style === 'method' ? `Insert ${insert} before .numpy()` : `Convert \`${shortText(target, 30)}${insert}\` instead`,
      edits: appendAfter(target, insert, frame.unit),
      preferred: true,
    }];
  const startNode = style === 'method' ? field(field(call, 'function') ?? call, 'attribute') ?? call : style === 'argument' ? recvNode : call;
  const node = style === 'argument' ? recvNode : call;
  const conversion = style === 'method' ? '.numpy()' : shortText(field(call, 'function') ?? call) + '()';
  if (onAccel && reports === 'accelerator') {
    c.report({
      unit: frame.unit, code: 'DD003', node, startNode,
      message: ruleMessage((q) => ({
        problem: style === 'elements'
          ? `${q(conversion)} of ${recv.place === EITHER ? `tensors in ${q(target)} that may be on the GPU` : `GPU tensors in ${q(target)}`}`
          : `${q(conversion)} on ${q(target)}, which ${onGpu(recv)}`,
        action: `call \`.cpu()\`${style === 'elements' ? ' on each' : ''} first`,
        why: `${style === 'elements' ? name : `\`${name}\``} ${accelPhrase(recv).replace(/^is/, style === 'elements' ? 'are' : 'is')}${lineOf(recv)}, and ` +
          `${conversion} needs a CPU tensor ("can't convert cuda:0 device type tensor to numpy").`,
      })),
      related: c.related(recv.origin, `\`${shortText(target)}\` ${recv.origin?.what ?? 'placed here'}`),
      fixes,
    });
  }
  if (grad && reports === 'grad') {
    c.report({
      unit: frame.unit, code: 'DD010', node, startNode,
      message: ruleMessage((q) => ({
        problem: `${q(conversion)} on ${style === 'elements' ? `the tensors in ${q(target)}, which require` : `${q(target)}, which requires`} grad`,
        action: `call \`.detach()\`${style === 'elements' ? ' on each' : ''} first`,
        why: `${style === 'elements' ? name : `\`${name}\``} require${style === 'elements' ? '' : 's'} grad${frame.noGrad ? '' : ' (computed outside torch.no_grad())'}, and ` +
          `${conversion} raises "Can't call numpy() on Tensor that requires grad".`,
      })),
      related: c.related(recv.origin, `\`${shortText(target)}\` ${recv.origin?.what ?? 'computed here'}`),
      fixes,
    });
  }
}
