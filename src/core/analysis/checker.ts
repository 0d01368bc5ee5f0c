// Receives the interpreter's events and hands them to the rules; collects findings.
// Rules report only in the final round and outside a loop's first pass.
import type { Node } from '../python/pyNode';
import { nodeRange } from '../python/syntax';
import { ruleInfo } from './catalog';
import type { Arg } from './expressions';
import type { Frame } from './frame';
import type { Program } from './program';
import { checkModuleCall, checkTensorOperation } from './rules/deviceMismatch';
import { LoopTracker } from './rules/batchNotMoved';
import { checkNumpyConversion } from './rules/numpyConversion';
import { checkDiscardedMove } from './rules/discardedMove';
import type { Fix, RelatedLocation, RuleCode } from './types';
import type { Kind, LoaderLoop, Located, Value } from './values';

export interface UnitFinding {
  unit: number;
  code: RuleCode;
  message: string;
  node: Node;
  /** Optional narrower start (e.g. the `.numpy` attribute), else the node's range. */
  startNode?: Node;
  related: RelatedLocation[];
  fixes: Fix[];
  tags?: Array<'unnecessary' | 'deprecated'>;
}

export class Checker {
  readonly findings = new Map<string, UnitFinding>();
  readonly loops: LoopTracker;
  final = false;

  constructor(readonly program: Program) {
    this.loops = new LoopTracker(this);
  }

  quiet(frame: Frame): boolean {
    return !this.final || frame.muted > 0;
  }

  report(f: UnitFinding): void {
    const r = nodeRange(f.startNode ?? f.node);
    const end = nodeRange(f.node).end;
    const key = `${f.code}|${f.unit}|${r.start.line}:${r.start.character}|${end.line}:${end.character}`;
    if (!this.findings.has(key)) this.findings.set(key, f);
  }

  related(loc: Located | undefined, message: string): RelatedLocation[] {
    return loc ? [{ range: nodeRange(loc.node), message, cellIndex: loc.unit }] : [];
  }

  severityOf(code: RuleCode) {
    return ruleInfo(code).severity;
  }

  moduleCall(frame: Frame, call: Node, calleeNode: Node, callee: Value, args: Arg[]): void {
    if (this.quiet(frame)) return;
    checkModuleCall(this, frame, call, calleeNode, callee, args);
  }

  /** `via`: batches reaching a model or loss ("consumer") are DD002, the loop's fault; in other operations, DD001. */
  tensorOperation(frame: Frame, node: Node, args: Arg[], via: 'consumer' | 'op' = 'op'): void {
    if (this.quiet(frame)) return;
    checkTensorOperation(this, frame, node, args, via);
  }

  /** Batch elements passed to a model, loss or torch op are tensors the DD002 fix should move. */
  noteTensorConsumer(frame: Frame, args: Arg[]): void {
    if (this.quiet(frame)) return;
    this.loops.noteUsed(frame, args);
  }

  numpyConversion(frame: Frame, call: Node, recvNode: Node, recv: Value, style: 'method' | 'function'): void {
    if (this.quiet(frame)) return;
    checkNumpyConversion(this, frame, call, recvNode, recv, style);
  }

  discardedMove(frame: Frame, call: Node, recvNode: Node, recv: Value, kind: Kind): void {
    if (this.quiet(frame)) return;
    checkDiscardedMove(this, frame, call, recvNode, recv, kind);
  }

  loopFinished(frame: Frame, loop: LoaderLoop): void {
    if (this.quiet(frame)) return;
    this.loops.finish(frame, loop);
  }
}
