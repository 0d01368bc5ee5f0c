// DD012 non-blocking-without-pinned: `batch.to(device, non_blocking=True)` only overlaps
// the copy with computation when the batch sits in pinned (page-locked) host memory. A
// DataLoader built without `pin_memory=True` yields pageable tensors, so the flag does
// nothing; the fix asks the loader to pin its batches.
import type { Node } from '../../python/pyNode';
import { callArguments, children, field } from '../../python/syntax';
import type { RuleFrame as Frame } from '../ruleApi';
import { insertAt } from '../fixes';
import type { Rule, RuleHost } from '../ruleApi';
import { CPU, Place, UNTRACKED, Value } from '../values';
import { shortText } from './shared/describe';
import { ruleMessage } from './shared/message';

export const nonBlockingWithoutPinned: Rule = (host) => ({
  valueMoved: (frame, call, recvNode, recv, to) => checkMove(host, frame, call, recvNode, recv, to),
});

function checkMove(c: RuleHost, frame: Frame, call: Node, recvNode: Node, recv: Value, to: Place): void {
  const flag = callArguments(call).keywords.get('non_blocking');
  // Towards the CPU (or a dtype) pinning is not what decides; an unknown target may be either.
  if (!flag || flag.text !== 'True' || to === UNTRACKED || to === CPU) return;
  const loop = recv.batch?.loop;
  const loader = loop?.created;
  // Only a loader this file creates, so that the fix edits the analysed code.
  if (!loop || !loader || c.program.units[loader.unit]?.module !== 0 || loader.node.type !== 'call') return;
  if (!unpinned(loader.node)) return;
  const dataLoader = shortText(field(loader.node, 'function') ?? loader.node);
  const edit = addPinMemory(loader.node, loader.unit);
  c.report({
    unit: frame.unit,
    code: 'DD012',
    node: flag.parent ?? flag,
    message: ruleMessage((q) => ({
      problem: 'non_blocking=True needs pinned memory',
      action: `pass pin_memory=True to ${q(loop.loaderText)}`,
      why: `\`${shortText(recvNode)}\` comes from \`${loop.loaderText}\`, a ${dataLoader} created without pin_memory=True: ` +
        'its batches are in pageable host memory, so non_blocking=True cannot overlap the copy with computation.',
    })),
    related: c.related(loader, `${dataLoader} created without pin_memory=True here`),
    fixes: edit ? [{ title: `Add pin_memory=True to the ${dataLoader}`, edits: [edit], preferred: true }] : [],
  });
}

/** No `pin_memory=` or a literal `pin_memory=False`, and no `**kwargs` that might carry it. */
function unpinned(loader: Node): boolean {
  const args = callArguments(loader);
  if (args.splats.length > 0 || args.hasSplat) return false;
  const pin = args.keywords.get('pin_memory');
  return !pin || pin.text === 'False';
}

/** `DataLoader(ds, batch_size=8)` → `DataLoader(ds, batch_size=8, pin_memory=True)`; `pin_memory=False` → `True`. */
function addPinMemory(loader: Node, unit: number) {
  const pin = callArguments(loader).keywords.get('pin_memory');
  if (pin) return { range: { start: pos(pin, false), end: pos(pin, true) }, newText: 'True', cellIndex: unit };
  const list = field(loader, 'arguments');
  const items = list ? children(list) : [];
  if (!list || items.length === 0) return undefined;
  return insertAt(pos(items[items.length - 1], true), ', pin_memory=True', unit);
}

function pos(node: Node, end: boolean) {
  const p = end ? node.endPosition : node.startPosition;
  return { line: p.row, character: p.column };
}
