// Functions started by a process or thread launcher: `mp.Process(target=train, args=(rank,
// model, device))`, `mp.spawn(worker, args=(world_size, model))`, `threading.Thread(...)`.
// The target runs with the launch's arguments exactly as if it were called there, so its
// parameters get their values from the launch (a model left on the CPU that the target
// calls with GPU inputs is reported at the argument), not "no caller, unknown".
import type { Node } from '../python/pyNode';
import type { CallArguments } from '../python/syntax';
import { unparen } from '../python/syntax';
import type { Frame } from './frame';
import type { FunctionInfo } from './program';
import type { Evaluator, RoundContext } from './roundContext';
import type { Value } from './values';

/** Where a launcher takes its target and the target's arguments. */
interface Launcher {
  /** The target: a keyword, and its position where it may be passed positionally. */
  target: { keyword: string; position?: number };
  /** The tuple of positional arguments for the target. */
  args: { keyword: string; position?: number };
  /** Leading parameters the launcher fills itself (spawn's process index). */
  leading: number;
}

const PROCESS: Launcher = { target: { keyword: 'target', position: 1 }, args: { keyword: 'args', position: 3 }, leading: 0 };
const SPAWN: Launcher = { target: { keyword: 'fn', position: 0 }, args: { keyword: 'args', position: 1 }, leading: 1 };

/** Launchers by qualified name (the standard library's and torch.multiprocessing's). */
export const LAUNCHERS: ReadonlyMap<string, Launcher> = new Map([
  ['multiprocessing.Process', PROCESS],
  ['torch.multiprocessing.Process', PROCESS],
  ['threading.Thread', PROCESS],
  ['torch.multiprocessing.spawn', SPAWN],
  ['torch.multiprocessing.start_processes', SPAWN],
]);

/** Calls `fn` of the program with these arguments, skipping `skip` leading parameters (calls.ts's callFunction). */
export type RunFunction = (fn: FunctionInfo, args: CallArguments, skip: number) => Value;

/**
 * A launch of one of the program's functions: the target is called with the launch's
 * argument tuple (what it returns is not the launch's result). False where `qualified`
 * is no launcher or its target or arguments are not written out.
 */
export function launchProgramFunction(
  ctx: RoundContext, ex: Evaluator, frame: Frame, qualified: string, args: CallArguments, run: RunFunction,
): boolean {
  const launcher = LAUNCHERS.get(qualified);
  if (!launcher || args.hasSplat) return false;
  const target = argument(args, launcher.target.keyword, launcher.target.position);
  const fn = target ? programFunction(ctx, frame, target) : undefined;
  const tuple = argument(args, launcher.args.keyword, launcher.args.position);
  const elements = tuple ? unparen(tuple) : undefined;
  if (!fn || (elements && elements.type !== 'tuple' && elements.type !== 'list')) return false;
  const positional = elements ? elements.namedChildren.filter((c) => c.type !== 'comment') : [];
  if (positional.some((n) => n.type === 'list_splat')) return false;
  for (const [k, n] of args.keywords) if (k !== launcher.target.keyword && k !== launcher.args.keyword) ex.eval(frame, n);
  run(fn, { positional, keywords: new Map(), hasSplat: false, splats: [] }, launcher.leading);
  return true;
}

function argument(args: CallArguments, keyword: string, position?: number): Node | undefined {
  return args.keywords.get(keyword) ?? (position !== undefined ? args.positional[position] : undefined);
}

/** The program's function a target names (`train`, `workers.train`), as a call of it would find it. */
function programFunction(ctx: RoundContext, frame: Frame, target: Node): FunctionInfo | undefined {
  const node = unparen(target);
  if (node.type === 'identifier') {
    const bound = frame.env.get(node.text) ?? frame.outer?.get(node.text);
    if (bound?.functionId !== undefined) return ctx.program.functions[bound.functionId];
    if (frame.env.has(node.text)) return undefined;
    const local = ctx.program.localFunction(frame.unit, node.text);
    if (local) return local;
  }
  const q = ctx.program.importsAt(frame.unit).qualify(node);
  const member = q ? ctx.program.member(frame.unit, q) : undefined;
  if (member?.kind === 'function') return member.fn;
  // A bound method or another callable value: not followed.
  return undefined;
}
