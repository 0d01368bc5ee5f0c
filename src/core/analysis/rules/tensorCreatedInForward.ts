// DD015 tensor-created-in-forward: inside a method of an nn.Module (forward, a helper it
// calls, a Lightning step), a torch factory without `device=` makes a CPU tensor that
// meets the module's inputs or parameters, which are on an accelerator once the module
// is moved there. Reported at the factory; the fix creates it on the input's device.
import type { Node } from '../../python/pyNode';
import { callArguments, field } from '../../python/syntax';
import type { RuleFrame as Frame } from '../ruleApi';
import { addDeviceKeyword, insertAt } from '../fixes';
import { moduleCallMeetings, operationMeetings } from '../values';
import type { Rule, RuleHost } from '../ruleApi';
import type { Fix, TextEdit } from '../types';
import { Arg, hasAccel } from '../values';
import { accelPhrase, lineOf, SAME_DEVICE, shortText } from './shared/describe';
import { ruleMessage } from './shared/message';
import { ForwardFactory, forwardFactory } from './shared/forwardFactory';
import { functionalLossWeight } from './shared/lossWeight';
import { isSelfAttribute } from './shared/moduleCode';

export const tensorCreatedInForward: Rule = (host) => ({
  moduleCall: (frame, _call, calleeNode, callee, args) => {
    for (const m of moduleCallMeetings({ node: calleeNode, value: callee }, args)) check(host, frame, m.cpu, m.other);
  },
  tensorOperation: (frame, _node, args) => {
    for (const m of operationMeetings(args)) check(host, frame, m.cpu, m.other);
  },
});

function check(c: RuleHost, frame: Frame, cpu: Arg, other: Arg): void {
  if (cpu.value.param) return; // the caller's argument: its own call reports it
  // The weights of a functional loss made in a step (`F.cross_entropy(..., weight=torch.tensor(...))`) are DD017's.
  if (functionalLossWeight(c.program, frame.unit, frame.id, cpu)) return;
  const site = forwardFactory(c.program, frame, cpu, other);
  if (!site) return;
  const name = shortText(cpu.node);
  const otherName = shortText(other.node);
  const method = `${site.cls.name}.${site.fn.name}`;
  const factory = shortText(field(site.call, 'function') ?? site.call, 30);
  const dev = deviceFor(frame, site, other);
  const where = { unit: frame.unit, node: cpu.node };
  c.report({
    unit: site.unit,
    code: 'DD015',
    subject: cpu.node,
    node: site.call,
    message: ruleMessage((q) => ({
      problem: `${q(cpu.node)} is created on the CPU in forward`,
      action: dev ? `pass ${q(`device=${dev}`)}` : 'create it on the inputs\' device',
      why: `In \`${method}\`, ${factory} has no device=, and \`${name}\` meets \`${otherName}\`, which ` +
        `${accelPhrase(other.value)}${lineOf(other.value)}: once the module is on a GPU, ${SAME_DEVICE}`,
    })),
    related: [
      ...c.related(where, `\`${name}\` meets \`${otherName}\` here`),
      ...c.related(other.value.origin, `\`${otherName}\` ${other.value.origin?.what ?? 'placed here'}`),
    ],
    fixes: dev ? fixesFor(site, dev) : [],
  });
}

/**
 * The device to create the tensor on: the method's first tensor input (`x.device`), the
 * Lightning module's own `self.device`, else the device of the module's parameters when
 * what it meets is the module's own (a submodule, a parameter).
 */
function deviceFor(frame: Frame, site: ForwardFactory, other: Arg): string | undefined {
  const self = site.fn.selfName!;
  if (site.cls.lightning) return `${self}.device`;
  if (frame.fn?.id === site.fn.id) {
    for (const p of site.fn.params.slice(1)) {
      const v = frame.env.get(p.name);
      // An input that is (or may be) on the accelerator: a CPU-only one (`lengths`) would not move the tensor.
      if (!p.variadic && v?.kind === 'tensor' && hasAccel(v.place) && !v.elements && !v.entries && !v.anyElement) return `${p.name}.device`;
    }
  }
  // A forward whose CPU tensor is returned and met by the caller: its first input, read there as a tensor.
  const input = site.fn.name === 'forward' ? site.fn.params.slice(1).find((p) => !p.variadic) : undefined;
  if (input && frame.fn?.id !== site.fn.id && new RegExp(`\\b${input.name}\\.(shape|device|size\\(|dim\\(|dtype)`).test(site.fn.node.text)) return `${input.name}.device`;
  const ownSide = other.value.kind === 'module' || isSelfAttribute(other.node, self) || other.node.text.startsWith(`${self}.`);
  return ownSide ? `next(${self}.parameters()).device` : undefined;
}

const LIKE_ABLE = new Set(['zeros', 'ones', 'empty', 'rand', 'randn']);

function fixesFor(site: ForwardFactory, dev: string): Fix[] {
  const fixes: Fix[] = [];
  const edits = addDeviceKeyword(site.call, dev, site.unit);
  if (edits) fixes.push({ title: `Create it on the input's device: device=${dev}`, edits, preferred: true });
  const like = likeFix(site, dev);
  if (like) fixes.push({ ...like, preferred: fixes.length === 0 });
  return fixes;
}

/**
 * `torch.zeros(x.shape)` / `torch.zeros(x.size())` → `torch.zeros_like(x)`, when the shape
 * is exactly the input's. A second choice: the result then also takes x's dtype.
 */
function likeFix(site: ForwardFactory, dev: string): Omit<Fix, 'preferred'> | undefined {
  const input = /^(\w+)\.device$/.exec(dev)?.[1];
  const callee = field(site.call, 'function');
  const args = callArguments(site.call);
  if (!input || input === site.fn.selfName || !callee || callee.type !== 'attribute' || args.positional.length !== 1) return undefined;
  if (!LIKE_ABLE.has(field(callee, 'attribute')?.text ?? '')) return undefined;
  const shape: Node = args.positional[0];
  if (shape.text !== `${input}.shape` && shape.text.replace(/\s+/g, '') !== `${input}.size()`) return undefined;
  const edits: TextEdit[] = [
    insertAt({ line: callee.endPosition.row, character: callee.endPosition.column }, '_like', site.unit),
    { range: { start: { line: shape.startPosition.row, character: shape.startPosition.column }, end: { line: shape.endPosition.row, character: shape.endPosition.column } }, newText: input, cellIndex: site.unit },
  ];
  return { title: `Use ${callee.text}_like(${input}) (its device and dtype)`, edits };
}
