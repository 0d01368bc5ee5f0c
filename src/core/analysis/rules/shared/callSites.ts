// The calls the program's text makes of a function or class by name (`Net(...)`,
// `layers.Net(...)`), and whether a call passes a given parameter. Rules that judge a
// parameter's default ask these: a default that every call overrides never applies.
import type { Node } from '../../../python/pyNode';
import { callArguments, children, field } from '../../../python/syntax';
import type { FunctionInfo, ProgramView } from '../../ruleApi';

/**
 * Every call in the program whose callee is `name` or `something.name` and is the program's
 * own: a callee an import names counts only when it names a project module's member, so
 * torch's `nn.Linear(...)` is no call of the project's class `Linear`. `units`: where to
 * look (the analysed file's own units, say); every unit of the program by default.
 * `methods`: the names that are methods, which any object may be called with
 * (`sampler.sample(...)`); another name is called bare or through its module, so
 * `net.train()` is no call of the program's function `train`.
 */
export function callsNamed(program: ProgramView, names: ReadonlySet<string>, units = program.units, methods: ReadonlySet<string> = names): Map<string, Node[]> {
  const calls = new Map<string, Node[]>();
  if (names.size === 0) return calls;
  for (const unit of units) {
    const imports = program.importsAt(unit.index);
    const stack: Node[] = [unit.root];
    while (stack.length) {
      const n = stack.pop()!;
      const callee = n.type === 'call' ? field(n, 'function') : null;
      const name = callee?.type === 'identifier' ? callee.text : callee?.type === 'attribute' ? field(callee, 'attribute')?.text : undefined;
      if (name && names.has(name)) {
        const qualified = imports.qualify(callee!);
        const byObject = qualified === undefined && callee!.type === 'attribute';
        if ((qualified === undefined && (!byObject || methods.has(name))) || (qualified !== undefined && program.member(unit.index, qualified))) {
          calls.set(name, [...(calls.get(name) ?? []), n]);
        }
      }
      stack.push(...children(n));
    }
  }
  return calls;
}

/** The name callers call `fn` by: its class's for a constructor (`Net(...)` runs `__init__`). */
export function calledAs(program: ProgramView, fn: FunctionInfo): string {
  const cls = fn.name === '__init__' && fn.className !== undefined ? program.classes.get(fn.className) : undefined;
  return cls?.name ?? fn.name;
}

/** Where a caller passes `param` of `fn` positionally (callers do not pass `self`); Infinity: only by keyword. */
export function callerPosition(fn: FunctionInfo, param: string): number {
  const params = fn.params.filter((p) => p.name !== fn.selfName);
  const at = params.findIndex((p) => p.name === param);
  return at < 0 || params[at]!.variadic ? Infinity : at;
}

/** Whether `call` passes the parameter (by keyword or position); `splat`: what a `*args`/`**kw` call counts as. */
export function passesParameter(call: Node, param: string, position: number, splat: boolean): boolean {
  const args = callArguments(call);
  if (args.keywords.has(param) || args.positional.length > position) return true;
  return args.hasSplat ? splat : false;
}
