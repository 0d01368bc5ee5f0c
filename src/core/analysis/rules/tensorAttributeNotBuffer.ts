// DD016 tensor-attribute-not-buffer: `self.x = torch.…` in a module's `__init__` keeps a
// plain tensor, which `model.to(device)` does not move (it moves parameters and buffers).
// When it then meets the module's inputs or parameters on an accelerator, it is reported
// at the assignment; the fix registers it as a buffer.
import type { RuleFrame as Frame } from '../ruleApi';
import { insertAt } from '../fixes';
import { moduleCallMeetings, operationMeetings } from '../values';
import type { Rule, RuleHost } from '../ruleApi';
import type { Fix } from '../types';
import type { Arg } from '../values';
import { accelPhrase, lineOf, SAME_DEVICE, shortText } from './shared/describe';
import { ruleMessage } from './shared/message';
import { plainTensorAttribute, TensorAttribute } from './shared/tensorAttribute';

export const tensorAttributeNotBuffer: Rule = (host) => ({
  moduleCall: (frame, _call, calleeNode, callee, args) => {
    for (const m of moduleCallMeetings({ node: calleeNode, value: callee }, args)) check(host, frame, m.cpu, m.other);
  },
  tensorOperation: (frame, _node, args) => {
    for (const m of operationMeetings(args)) check(host, frame, m.cpu, m.other);
  },
});

/** Names of tables that can be rebuilt from the code (masks, rotary caches): kept out of the state_dict. */
const CACHE_NAME = /cache|cached|mask|freq|cos|sin|rope|rotary|causal/i;

function check(c: RuleHost, frame: Frame, cpu: Arg, other: Arg): void {
  if (cpu.value.param) return;
  const found = plainTensorAttribute(c.program, frame, cpu, other);
  if (!found) return;
  const self = found.init.selfName!;
  const attr = `${self}.${found.attr}`;
  const otherName = shortText(other.node);
  const where = { unit: frame.unit, node: cpu.node };
  c.report({
    unit: found.init.unit,
    code: 'DD016',
    subject: cpu.node,
    node: found.left,
    message: ruleMessage((q) => ({
      problem: `${q(attr)} is not a buffer, so .to() skips it`,
      action: 'register it as a buffer',
      why: `In \`${found.cls.name}\`, module.to(device) moves parameters and buffers, not plain attributes, and ` +
        `\`${shortText(cpu.node)}\` meets \`${otherName}\` on line ${where.node.startPosition.row + 1}, which ` +
        `${accelPhrase(other.value)}${lineOf(other.value)}: ${SAME_DEVICE} Register it as a buffer: ${self}.register_buffer("${found.attr}", …).`,
    })),
    related: [
      ...c.related(where, `\`${shortText(cpu.node)}\` meets \`${otherName}\` here`),
      ...c.related(other.value.origin, `\`${otherName}\` ${other.value.origin?.what ?? 'placed here'}`),
    ],
    fixes: found.fixable ? [registerBuffer(found)] : [],
  });
}

/** `self.pe = pe` → `self.register_buffer("pe", pe)`; a cache-like name is kept out of the state_dict. */
function registerBuffer(found: TensorAttribute): Fix {
  const self = found.init.selfName!;
  const persistent = CACHE_NAME.test(found.attr) ? ', persistent=False' : '';
  const { left, right } = found;
  const unit = found.init.unit;
  return {
    title: `Register \`${self}.${found.attr}\` as a buffer${persistent ? ' (not saved in the state_dict)' : ''}`,
    edits: [
      {
        range: { start: { line: left.startPosition.row, character: left.startPosition.column }, end: { line: right.startPosition.row, character: right.startPosition.column } },
        newText: `${self}.register_buffer("${found.attr}", `,
        cellIndex: unit,
      },
      insertAt({ line: right.endPosition.row, character: right.endPosition.column }, `${persistent})`, unit),
    ],
    preferred: true,
  };
}
