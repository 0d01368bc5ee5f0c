// DD002 batch-not-moved: in a loop over a data loader, batch elements reach a model or
// loss that is (or may be) on an accelerator and are never moved. One finding per loop,
// fixed by moving the batch at the top of the loop body.
import type { Node } from '../../python/pyNode';
import { field, nodeRange } from '../../python/syntax';
import type { Checker } from '../checker';
import type { Arg } from '../expressions';
import type { Frame } from '../frame';
import { insertFirstInBlock } from '../fixes';
import type { Fix } from '../types';
import type { LoaderLoop, Value } from '../values';
import { deviceTextFor } from './deviceMismatch';
import { accelPhrase, canReference, lineOf, shortText } from './describe';

interface Reached {
  node: Node;
  value: Value;
}

interface LoopState {
  reached: Map<string, Reached>;
  used: Set<string>;
  /** Batch names used as containers (`batch["x"]`, `batch[0]`): moved element-wise. */
  containers: Map<string, 'dict' | 'list'>;
}

export class LoopTracker {
  private readonly states = new Map<LoaderLoop, LoopState>();

  constructor(private readonly checker: Checker) {}

  private state(loop: LoaderLoop): LoopState {
    let s = this.states.get(loop);
    if (!s) this.states.set(loop, (s = { reached: new Map(), used: new Set(), containers: new Map() }));
    return s;
  }

  noteUsed(frame: Frame, args: Arg[]): void {
    for (const a of args) {
      const b = a.value.batch;
      if (!b || !frame.loops.includes(b.loop)) continue;
      const s = this.state(b.loop);
      s.used.add(b.name);
      if (b.container) s.containers.set(b.name, b.container);
    }
  }

  noteReached(frame: Frame, arg: Arg, other: Reached): void {
    const b = arg.value.batch;
    if (!b || !frame.loops.includes(b.loop)) return;
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
    const where = model.value.place ? `${accelPhrase(model.value)}${lineOf(model.value)}` : 'may be on an accelerator (this function takes a device)';
    const target = field(loop.node, 'left') ?? loop.node;
    this.checker.report({
      unit: loop.unit,
      code: 'DD002',
      node: target,
      message: `Batches from \`${loop.loaderText}\` reach \`${modelName}\`, which ${where}, but ${list} ` +
        `${names.length === 1 ? 'is' : 'are'} never moved: PyTorch raises "Expected all tensors to be on the same device".`,
      related: [
        ...this.checker.related(model.value.origin, `\`${modelName}\` ${model.value.origin?.what ?? 'placed here'}`),
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
    const cls = className ? this.checker.program.classes.get(className) : undefined;
    return selfName && cls?.node.text.includes(`${selfName}.device`) ? `${selfName}.device` : undefined;
  }

  private fixes(frame: Frame, loop: LoaderLoop, names: string[], s: LoopState, model: Reached): Fix[] {
    const dev = deviceTextFor(frame, model) ?? this.deviceParameter(frame);
    const body = field(loop.node, 'body');
    if (!dev || !body || names.length === 0) return [];
    const unit = this.checker.program.units[loop.unit];
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

