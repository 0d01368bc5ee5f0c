// DD002 batch-not-moved: in a loop over a data loader, batch elements reach a model or
// loss that is (or may be) on an accelerator and are never moved. One finding per loop,
// fixed by moving the batch at the top of the loop body. Which consumers are on an
// accelerator is DD001's analysis; it tells this rule through `batchReachedAccelerator`.
import type { Node } from '../../python/pyNode';
import { descendants, dottedKey, field, nodeRange } from '../../python/syntax';
import type { RuleFrame as Frame } from '../ruleApi';
import { insertFirstInBlock } from '../fixes';
import type { Rule, RuleHost } from '../ruleApi';
import type { Fix } from '../types';
import type { Arg, LoaderLoop } from '../values';
import { runningBatch } from './shared/batches';
import { accelPhrase, lineOf, SAME_DEVICE, shortText } from './shared/describe';
import { ruleMessage } from './shared/message';
import { canReference, deviceTextFor } from './shared/deviceText';

export const batchNotMoved: Rule = (host) => {
  const loops = new LoopTracker(host);
  return {
    tensorsReachConsumer: (frame, args) => loops.noteUsed(frame, args),
    batchReachedAccelerator: (frame, batch, consumer) => loops.noteReached(frame, batch, consumer),
    loopFinished: (frame, loop) => loops.finish(frame, loop),
  };
};

interface LoopState {
  /** Per batch name, the first consumer it reached: named in the message, and the fix's device. */
  reached: Map<string, Arg>;
  used: Set<string>;
  /** Batch names used as containers (`batch["x"]`, `batch[0]`): moved element-wise. */
  containers: Map<string, 'dict' | 'list'>;
}

/** Per loader loop (and so per round: a rule's state lives as long as its round). */
class LoopTracker {
  private readonly states = new Map<LoaderLoop, LoopState>();

  constructor(private readonly host: RuleHost) {}

  private state(loop: LoaderLoop): LoopState {
    let s = this.states.get(loop);
    if (!s) this.states.set(loop, (s = { reached: new Map(), used: new Set(), containers: new Map() }));
    return s;
  }

  noteUsed(frame: Frame, args: Arg[]): void {
    for (const a of args) {
      const b = runningBatch(frame, a.value);
      if (!b) continue;
      const s = this.state(b.loop);
      s.used.add(b.name);
      if (b.container) s.containers.set(b.name, b.container);
    }
  }

  noteReached(frame: Frame, arg: Arg, other: Arg): void {
    const b = runningBatch(frame, arg.value);
    if (!b) return;
    const s = this.state(b.loop);
    if (!s.reached.has(b.name)) s.reached.set(b.name, other);
    s.used.add(b.name);
    if (b.container) s.containers.set(b.name, b.container);
  }

  finish(frame: Frame, loop: LoaderLoop): void {
    const s = this.states.get(loop);
    this.states.delete(loop);
    if (!s) return;
    const reached = [...s.reached];
    if (reached.length === 0) return;
    const names = loop.targets.filter((n) => s.used.has(n) || s.reached.has(n));
    const [, model] = reached[0];
    const modelName = shortText(model.node);
    const list = names.map((n) => `\`${n}\``).join(', ');
    const where = model.value.place ? `${accelPhrase(model.value)}${lineOf(model.value)}` : 'may be on an accelerator (this code names a device or calls `.cuda()`)';
    const target = field(loop.node, 'left') ?? loop.node;
    this.host.report({
      unit: loop.unit,
      code: 'DD002',
      node: target,
      message: ruleMessage((q) => ({
        problem: `${names.length === 1 ? 'Batch' : 'Batches'} ${names.map(q).join(', ')} ${names.length === 1 ? 'is' : 'are'} never moved`,
        action: `move ${names.length === 1 ? 'it' : 'them'} to ${q(model.node)}'s device`,
        why: `Batches from \`${loop.loaderText}\` reach \`${modelName}\`, which ${where}, but ${list} ` +
          `${names.length === 1 ? 'is' : 'are'} never moved: ${SAME_DEVICE}`,
      })),
      related: [
        ...this.host.related(model.value.origin, `\`${modelName}\` ${model.value.origin?.what ?? 'placed here'}`),
        { range: nodeRange(model.node), message: `batch reaches \`${modelName}\` here`, cellIndex: frame.unit },
      ],
      fixes: this.fixes(frame, loop, names, s, model),
    });
  }

  /** In `def train(model, loader, device)` the device parameter is the target; in a trainer, `self.device`. */
  private deviceParameter(frame: Frame): string | undefined {
    const p = frame.fn?.params.find((x) => /device/i.test(x.name));
    if (p) return p.name;
    if (canReference(frame, 'device')) return 'device';
    const { selfName, className } = frame.fn ?? {};
    const cls = className ? this.host.program.classes.get(className) : undefined;
    return selfName && cls?.node.text.includes(`${selfName}.device`) ? `${selfName}.device` : undefined;
  }

  private fixes(frame: Frame, loop: LoaderLoop, names: string[], s: LoopState, model: Arg): Fix[] {
    // Written at the top of the loop body: a name the body binds later (`output = model(x)`)
    // does not exist yet in the first iteration.
    const found = deviceTextFor(frame, model);
    const dev = (found && !boundInLoop(loop.node, found) ? found : undefined) ?? producerDevice(frame, loop, model) ?? this.deviceParameter(frame);
    const body = field(loop.node, 'body');
    if (!dev || !body || names.length === 0) return [];
    const unit = this.host.program.units[loop.unit];
    const plain = names.filter((n) => !s.containers.has(n));
    const statements: string[] = [];
    if (plain.length) statements.push(`${plain.join(', ')} = ${plain.map((n) => `${n}.to(${dev})`).join(', ')}`);
    for (const n of names.filter((x) => s.containers.has(x))) {
      statements.push(s.containers.get(n) === 'dict'
        ? `${n} = {k: v.to(${dev}) for k, v in ${n}.items()}`
        : `${n} = [t.to(${dev}) for t in ${n}]`);
    }
    const edit = insertFirstInBlock(body, statements, unit.lines, unit.eol, loop.unit);
    return edit ? [{ title: `Move ${names.join(', ')} to ${dev} at the start of the loop`, edits: [edit], preferred: true }] : [];
  }
}

/** The loop (its targets or its body) binds the name `text` starts with. */
function boundInLoop(loop: Node, text: string): boolean {
  const root = /^[A-Za-z_]\w*/.exec(text)?.[0];
  if (!root) return false;
  for (const n of descendants(loop, (c) => c.type !== 'function_definition' && c.type !== 'class_definition' && c.type !== 'lambda')) {
    const target = n.type === 'assignment' || n.type === 'augmented_assignment' ? field(n, 'left') : n.type === 'for_statement' ? field(n, 'left') : null;
    if (target && descendants(target).some((d) => d.type === 'identifier' && d.text === root && d.parent?.type !== 'attribute')) return true;
  }
  return false;
}

/** `output = model(x)` in the loop: the device of `model`, the module that made the output the batch meets. */
function producerDevice(frame: Frame, loop: LoaderLoop, consumer: Arg): string | undefined {
  const made = consumer.value.origin?.node;
  const callee = made?.type === 'call' ? field(made, 'function') : undefined;
  const key = callee ? dottedKey(callee) : undefined;
  if (!key || consumer.value.kind !== 'tensor' || boundInLoop(loop.node, key) || !canReference(frame, key)) return undefined;
  return `next(${key}.parameters()).device`;
}

