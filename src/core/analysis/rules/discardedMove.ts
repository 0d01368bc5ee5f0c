// DD004 discarded-to-result: `x.to(device)` on a tensor returns a new tensor; as a bare
// statement it changes nothing. (On a module it moves in place, so modules never fire.)
// The fix assigns the result, unless the value's later uses show it unsafe (movedCopyUses.ts).
import type { Node } from '../../python/pyNode';
import { unparen } from '../../python/syntax';
import type { RuleFrame as Frame } from '../ruleApi';
import { insertAt, startOf } from '../fixes';
import type { Rule, RuleHost } from '../ruleApi';
import { ACCEL, Kind, Place, placeName, Value } from '../values';
import { shortText } from './shared/describe';
import { ruleMessage } from './shared/message';
import { MovedCopyUses } from './shared/movedCopyUses';

export const discardedMove: Rule = (host) => {
  const uses = new MovedCopyUses();
  // The destination of the move just made: the engine tells the move before its discarding.
  let lastMove: { call: Node; to: Place } | undefined;
  return {
    valueMoved: (_frame, call, _recvNode, recv, to) => {
      lastMove = { call, to };
      uses.moved(recv, to);
    },
    discardedMove: (frame, call, recvNode, recv, kind) => {
      // `x.to(device)` of a tensor already there returns x itself: discarding it loses nothing.
      const to = lastMove?.call === call ? lastMove.to : undefined;
      if (to !== undefined && alreadyThere(recv, to)) return;
      checkDiscardedMove(host, uses, frame, call, recvNode, recv, kind);
    },
    tensorOperation: (_frame, _node, args) => uses.operation(args.map((a) => a.value)),
    moduleCall: (_frame, _call, _calleeNode, callee, args) => uses.operation([{ ...callee, kind: 'module' }, ...args.map((a) => a.value)]),
    numpyConversion: (_frame, _call, _recvNode, recv) => uses.convertedOnHost(recv),
    call: (frame, call, qualified) => {
      if (qualified === undefined) uses.unknownCall(frame, call);
    },
  };
};

const ASSIGNABLE = new Set(['identifier', 'attribute', 'subscript']);

/**
 * The tensor is on the accelerator and the move sends it there. Not the CPU: "on the CPU" is
 * also what the analysis says of a value it saw no move of (an RPC model's output), where the
 * discarded `.to(out.device)` may be the bug.
 */
function alreadyThere(recv: Value, to: Place): boolean {
  return recv.place === ACCEL && to === ACCEL;
}

/** The last top-level expression of a notebook cell is displayed, not discarded. */
function isCellResult(call: Node): boolean {
  const statement = call.parent;
  const cell = statement?.parent;
  if (!statement || cell?.type !== 'module') return false;
  const last = cell.namedChildren.filter((c) => c.type !== 'comment').pop();
  return last?.id === statement.id;
}

/**
 * Whether the call is the statement's only expression, so that `name = ` in front of it
 * assigns the call's result. In `x.cuda(), y.cuda()` or `x.cuda(),` it would not (it
 * would assign a tuple or be a syntax error): those get the finding without a fix.
 */
function isWholeStatement(call: Node): boolean {
  const statement = call.parent;
  return statement?.type === 'expression_statement' && statement.codeChildren.length === 1 && statement.text.trimEnd() === call.text;
}

function checkDiscardedMove(c: RuleHost, uses: MovedCopyUses, frame: Frame, call: Node, recvNode: Node, recv: Value, kind: Kind): void {
  const target = unparen(recvNode);
  if (kind !== 'tensor' || recv.placeless || !ASSIGNABLE.has(target.type)) return;
  // A collated batch that may be a graph batch or a BatchEncoding: its `.to()` moves it in place.
  if (recv.batch?.mayBeObject) return;
  if (c.program.isNotebook && isCellResult(call)) return;
  const name = shortText(target);
  const callText = shortText(call, 50);
  c.report({
    unit: frame.unit,
    code: 'DD004',
    node: call,
    message: ruleMessage((q) => ({
      problem: `${q(call)} returns a copy that is discarded`,
      action: `assign it to ${q(target)}`,
      why: `This statement discards the moved copy, so \`${name}\` stays on ${placeName(recv.place)}: tensors are not moved in place (modules are).`,
    })),
    related: [],
    fixes: isWholeStatement(call)
      ? uses.fixesFor(call, recv, [{ title: `Assign the result: ${shortText(target, 30)} = ${callText}`, edits: [insertAt(startOf(call), `${target.text} = `, frame.unit)], preferred: true }])
      : [],
    tags: ['unnecessary'],
  });
}
