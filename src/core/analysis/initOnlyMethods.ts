// Methods that run only while an nn.Module is being built: `__init__`, and the helpers it
// calls as `self.helper(...)` (`self.fc = nn.Linear(self.feature_size(), 512)`) that nothing
// else calls. The module has not been moved yet when they run (`model = Net().cuda()` moves it
// after `__init__` returns), so its submodules and parameters are where they were built, not
// where the program later moves the instance.
import type { Node } from '../python/pyNode';
import { children, field } from '../python/syntax';
import type { FunctionInfo, Program } from './program';
import type { RoundContext } from './roundContext';
import type { Frame } from './frame';
import { BUILDING } from './callContexts';
import { IMPORTS, namesUsed, usesAnyOf } from './moduleDemand';

const CONSTRUCTOR = '__init__';

/** `fn` runs only during its module's construction (see above). */
/**
 * `frame` runs a module's method while the instance is being built: `__init__`, a helper only
 * it calls, or a method `__init__` calls on `self` followed for that call.
 */
export function isBuilding(ctx: RoundContext, frame: Frame): boolean {
  return frame.env.has(BUILDING) || (!!frame.fn && runsOnlyDuringInit(ctx, frame.fn));
}

export function runsOnlyDuringInit(ctx: RoundContext, fn: FunctionInfo): boolean {
  if (!fn.selfName || !fn.className || !ctx.program.classes.get(fn.className)?.isModule) return false;
  // A taped read: an edit elsewhere that calls the helper after the move runs it again.
  return fn.name === CONSTRUCTOR || ctx.programFact('methods run only while their module is built', initOnlyMethods).includes(fn.id);
}

/**
 * The ids of module methods whose every mention in the program is a `self.name(...)` call
 * inside `__init__` or inside another such method, with at least one such call. A method
 * PyTorch calls by itself (`forward` through `module(x)`, a `__dunder__`) has calls that no
 * text shows, so it is never one.
 */
function initOnlyMethods(program: Program): number[] {
  const candidates = new Map<string, FunctionInfo[]>();
  for (const fn of program.functions) {
    if (!fn.selfName || !fn.className || fn.name === 'forward' || /^__\w+__$/.test(fn.name)) continue;
    if (!program.classes.get(fn.className)?.isModule) continue;
    candidates.set(fn.name, [...candidates.get(fn.name) ?? [], fn]);
  }
  if (candidates.size === 0) return [];
  // Each mention of a candidate's name: the method it is called from as `self.name(...)`, or null (any other use).
  const mentions = new Map<string, Array<FunctionInfo | null>>();
  const properties = new Set([...candidates].filter(([, fns]) => fns.some((fn) => fn.isProperty)).map(([name]) => name));
  for (const unit of program.units) {
    const statements = children(unit.root);
    for (let i = statements.length - 1; i >= 0; i--) {
      for (const m of mentionsOf(statements[i], candidates, properties)) {
        let list = mentions.get(m.name);
        if (!list) mentions.set(m.name, (list = []));
        list.push(selfCaller(program, m));
      }
    }
  }
  const initOnly = new Set<string>([...candidates.keys()].filter((name) => (mentions.get(name)?.length ?? 0) > 0));
  // A caller counts only while it runs during construction itself: drop names until none changes.
  const duringInit = (caller: FunctionInfo | null): boolean =>
    caller !== null && (caller.name === CONSTRUCTOR || (initOnly.has(caller.name) && candidates.get(caller.name)!.includes(caller)));
  for (let changed = true; changed;) {
    changed = false;
    for (const name of initOnly) {
      if (mentions.get(name)!.every(duringInit)) continue;
      initOnly.delete(name);
      changed = true;
    }
  }
  return [...initOnly].flatMap((name) => candidates.get(name)!.map((fn) => fn.id)).sort((a, b) => a - b);
}

/**
 * The mentions of candidate names in a top-level statement, kept per statement and per the
 * candidates it names itself: a module imported by many files is one statement set whose own
 * method names are candidates in every program that holds it, while the program's whole
 * candidate set differs from file to file (a key of those walked every module again per file).
 */
function mentionsOf(statement: Node, candidates: ReadonlyMap<string, unknown>, properties: ReadonlySet<string>): Mention[] {
  // namesUsed does not look into imports, which may name a candidate too.
  if (!IMPORTS.has(statement.type) && !usesAnyOf(namesUsed(statement), candidates)) return [];
  const named = identifiersIn(statement);
  const relevant = new Map<string, unknown>();
  if (named.size <= candidates.size) {
    for (const name of named) if (candidates.has(name)) relevant.set(name, true);
  } else {
    for (const name of candidates.keys()) if (named.has(name)) relevant.set(name, true);
  }
  if (relevant.size === 0) return [];
  const key = [...relevant.keys()].map((name) => (properties.has(name) ? `@${name}` : name)).sort().join(' ');
  let byKey = MENTIONS.get(statement);
  if (!byKey) MENTIONS.set(statement, (byKey = new Map()));
  let found = byKey.get(key);
  if (!found) byKey.set(key, (found = mentionsIn(statement, relevant, properties)));
  return found;
}

/** Trees never change (moduleTrees.ts): a statement's mentions per key, and its identifiers, are worked out once. */
const MENTIONS = new WeakMap<Node, Map<string, Mention[]>>();
const IDENTIFIERS = new WeakMap<Node, ReadonlySet<string>>();

/** Every identifier under `root`, imports included. */
function identifiersIn(root: Node): ReadonlySet<string> {
  let names = IDENTIFIERS.get(root);
  if (names) return names;
  const found = new Set<string>();
  const stack: Node[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type === 'identifier') found.add(node.text);
    else for (const child of node.namedChildren) stack.push(child);
  }
  IDENTIFIERS.set(root, (names = found));
  return names;
}

function isDefinitionName(node: Node): boolean {
  return node.parent?.type === 'function_definition' && field(node.parent, 'name') === node;
}

/** A mention of a candidate's name; for a `recv.name(...)` call inside a method, that method's definition and `recv`. */
interface Mention {
  name: string;
  callerDefinition?: Node;
  receiver?: string;
}

/** The mentions of candidate names under `root` (without recursion: deeply nested code must not overflow the stack; their order does not matter). */
function mentionsIn(root: Node, candidates: ReadonlyMap<string, unknown>, properties: ReadonlySet<string>): Mention[] {
  const out: Mention[] = [];
  const stack: Node[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type === 'identifier') {
      if (candidates.has(node.text) && !isDefinitionName(node)) out.push(callMention(node, properties.has(node.text)));
      continue;
    }
    for (const child of node.namedChildren) stack.push(child);
  }
  return out;
}

/**
 * `node` as a mention: with its enclosing method and receiver when it is called as
 * `recv.name(...)`, or for a property read as `recv.name`.
 */
function callMention(node: Node, property: boolean): Mention {
  const attribute = node.parent;
  if (attribute?.type !== 'attribute' || field(attribute, 'attribute') !== node) return { name: node.text };
  const call = attribute.parent;
  const runs = property ? call?.type !== 'call' || field(call, 'function') !== attribute : call?.type === 'call' && field(call, 'function') === attribute;
  if (!runs) return { name: node.text };
  let def: Node | null = attribute.parent;
  while (def && def.type !== 'function_definition') def = def.parent;
  const receiver = field(attribute, 'object');
  // `self.body.feature_size()` while `self` is built: a part the module is being built from,
  // which is moved (if at all) with the module once it is built.
  const own = receiver?.type === 'attribute' && field(receiver, 'object')?.type === 'identifier' ? field(receiver, 'object')! : receiver;
  if (!def || own?.type !== 'identifier') return { name: node.text };
  return { name: node.text, callerDefinition: def, receiver: own.text };
}

/** The method a mention is a `self.name(...)` or `self.part.name(...)` call from (its own `self`), or null for any other mention. */
function selfCaller(program: Program, mention: Mention): FunctionInfo | null {
  const caller = mention.callerDefinition ? program.functionDefinedBy(mention.callerDefinition) : undefined;
  return caller?.selfName && mention.receiver === caller.selfName ? caller : null;
}
