// A function interpreted for one call site (callContexts.ts) reports nothing itself: the
// engine keeps what its parameters met, and the call site reports it at the argument.
import type { Node } from '../python/pyNode';
import { field } from '../python/syntax';
import { RECEIVER } from './callContexts';
import type { Frame } from './frame';
import { EVENT_NAMES, type AnalysisEvents } from './ruleApi';
import { cpuModuleMeeting, moduleCallMeetings, operationMeetings, type Arg, type Meeting, type Value } from './values';

/**
 * The events a round's interpreter emits: a function interpreted for one call site reports
 * nothing itself; it keeps its CPU parameters that meet an accelerator, which the call
 * site reports at its argument. Every other frame's events go on to the rules.
 */
export function withCallSiteCapture(events: AnalysisEvents): AnalysisEvents {
  const capturing = {} as Record<keyof AnalysisEvents, (frame: Frame, ...rest: never[]) => void>;
  for (const name of Object.keys(EVENT_NAMES) as Array<keyof AnalysisEvents>) {
    const forward = (events[name] as (frame: Frame, ...rest: never[]) => void).bind(events);
    capturing[name] = (frame, ...rest) => {
      if (frame.meetings) captureMeetings(frame, name, rest);
      else forward(frame, ...rest);
    };
  }
  return capturing as unknown as AnalysisEvents;
}

function captureMeetings(frame: Frame, name: keyof AnalysisEvents, rest: unknown[]): void {
  let meetings: Meeting[] = [];
  let at: Node | undefined;
  if (name === 'moduleCall') {
    const [, calleeNode, callee, args] = rest as [Node, Node, Value, Arg[]];
    const model = { node: calleeNode, value: callee };
    const cpuModel = cpuModuleMeeting(model, args);
    meetings = cpuModel ? [cpuModel] : moduleCallMeetings(model, args);
    at = calleeNode;
  } else if (name === 'tensorOperation') {
    const [node, args] = rest as [Node, Arg[]];
    meetings = operationMeetings(args);
    at = node;
  }
  for (const m of meetings) {
    // One of the instance's own layers on the CPU: the call's receiver is what met the accelerator.
    const param = m.cpu.value.param ?? (m.cpu.value.kind === 'module' && isOwnLayer(frame, m.cpu.node) ? RECEIVER : undefined);
    if (param && at) frame.meetings!.push({ param, other: m.other, at });
  }
}

/** `self.lstm` in a method followed for a call whose receiver's place is known. */
function isOwnLayer(frame: Frame, node: Node): boolean {
  const self = frame.fn?.selfName;
  return !!self && frame.env.has(RECEIVER) && node.type === 'attribute' && field(node, 'object')?.text === self;
}
