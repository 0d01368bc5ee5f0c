// Model-parallel modules: a class that places its own submodules when it builds them
// (`self.seq1 = nn.Sequential(...).to("cuda:0")`, `self.seq2 = ....to("cuda:1")`) and
// whose instances the program never moves as a whole. Each submodule is then where its
// own construction put it, not where "the instance" is (it is on no single device), and
// forward moves the data from one submodule to the next.
import { bodyFact, movedParamsOf } from './bodyFacts';
import type { Node } from '../python/pyNode';
import { children, field } from '../python/syntax';
import { perStatement } from '../python/statementMemo';
import type { ClassInfo, FunctionInfo, Program } from './program';
import type { RoundContext } from './roundContext';
import type { Summaries } from './frame';
import type { Recording } from './runCache';
import { CPU, UNTRACKED, Value } from './values';
import { explicitlyPlaced } from './attributeTests';

/**
 * Does this nn.Module class place its submodules itself? Some attribute a method left
 * (previous round) is explicitly placed, the program names the class outside its own
 * body, and no instance is moved with `.to()`, which would move them all to one device.
 */
export function placesOwnSubmodules(ctx: RoundContext, classKey: string | undefined): boolean {
  if (!classKey) return false;
  // Asked at every read of a submodule, and the answer asks it of each class the class
  // holds: remembered per round (whose previous summaries do not change while it runs), it
  // is worked out once per class, and a later ask replays the reads that made it into the
  // run that asks. A class reached again while its own answer is being worked out (a block
  // holding, through others, a block of its own class) adds nothing to it.
  let answers = ANSWERS.get(ctx.previous);
  if (!answers) ANSWERS.set(ctx.previous, (answers = new Map()));
  const known = answers.get(classKey);
  if (known === WORKING) return false;
  const tape = ctx.previous.tape;
  if (known) {
    if (known.reads) tape?.merge(known.reads);
    return known.places;
  }
  answers.set(classKey, WORKING);
  tape?.begin();
  let places = false;
  try {
    places = decidePlacesOwn(ctx, classKey);
  } finally {
    answers.set(classKey, { places, reads: tape?.end() });
  }
  return places;
}

const WORKING = 'working';
const ANSWERS = new WeakMap<Summaries, Map<string, typeof WORKING | { places: boolean; reads?: Recording }>>();

function decidePlacesOwn(ctx: RoundContext, classKey: string): boolean {
  const cls = ctx.program.classes.get(classKey);
  if (!cls?.isModule || ctx.previous.classPlace(cls.key) !== undefined) return false;
  const lineage = ctx.program.classLineage(cls.key);
  // `self.to(device)` in a method (DeepCTR's BaseModel.__init__): the instance moves as a
  // whole, its explicitly placed layers with the rest.
  const selfMoving = ctx.programFact('module classes that move themselves', classesMovingThemselves);
  if (lineage.some((key) => selfMoving.has(key))) return false;
  // Parts built on the CPU by name (`device="cpu"`, a `device` parameter's default) are where
  // any module starts: such a class is one module on the CPU until something moves it. A
  // submodule of a class that places its own (an encoder moving its layers in `__init__`)
  // is placed where its construction put it, and so is what holds it.
  const placesPart = (name: string) => ctx.previous.classAttrsSome(name, 'placedOffCpu') === true ||
    ctx.previous.classAttrModules(name).some((part) => part !== cls.key && placesOwnSubmodules(ctx, part));
  if (!lineage.some(placesPart)) return false;
  // Its unplaced submodules stay where the instance was built only if the program uses the
  // class (builds it, hands it to `rpc.remote`): one that no code in sight names (model.py
  // linted without its trainer, or beside importers that use other classes) may well be
  // moved as a whole by its caller.
  return ctx.programFact('module classes named outside their own body', classesNamedOutsideThemselves).has(cls.key);
}

/** Keys of the module classes whose name the program's text uses outside their own `class` statement. */
function classesNamedOutsideThemselves(program: Program): Set<string> {
  const byName = new Map<string, ClassInfo[]>();
  for (const cls of program.classes.values()) if (cls.isModule) byName.set(cls.name, [...(byName.get(cls.name) ?? []), cls]);
  const out = new Set<string>();
  for (const unit of program.units) {
    for (const uses of perStatement(unit.root, 'names and the same-named classes around them', classNameUses)) {
      for (const [name, use] of uses) {
        for (const cls of byName.get(name) ?? []) if (use === OUTSIDE_ANY || use.some((around) => !around.includes(cls.node))) out.add(cls.key);
      }
    }
  }
  return out;
}

/** A name used where no class of that name encloses it. */
const OUTSIDE_ANY = 'outside any';

/**
 * Each identifier of a top-level statement (not in an import, an annotation or a type test),
 * with the `class` statements of the same name around each of its uses (kept per statement:
 * a keystroke walks only the edited one).
 */
function classNameUses(statement: Node): Map<string, typeof OUTSIDE_ANY | Node[][]> {
  const uses = new Map<string, typeof OUTSIDE_ANY | Node[][]>();
  const stack: Array<[Node, readonly Node[]]> = [[statement, []]];
  while (stack.length) {
    const [n, classes] = stack.pop()!;
    if (n.type === 'identifier') {
      const around = classes.filter((c) => field(c, 'name')?.text === n.text);
      const known = uses.get(n.text);
      if (around.length === 0) uses.set(n.text, OUTSIDE_ANY);
      else if (known === undefined) uses.set(n.text, [around]);
      else if (known !== OUTSIDE_ANY && !known.some((k) => k.length === around.length && k.every((c, i) => c === around[i]))) known.push(around);
      continue;
    }
    if (NAMES_NO_INSTANCE.has(n.type)) continue;
    const inner = n.type === 'class_definition' ? [...classes, n] : classes;
    const typeTested = typeTestedClasses(n);
    for (const c of children(n)) if (c !== typeTested) stack.push([c, inner]);
  }
  return uses;
}

/** An import or an annotation names a class without building or handing on an instance. */
const NAMES_NO_INSTANCE = new Set(['import_statement', 'import_from_statement', 'future_import_statement', 'type']);

/** The classes `isinstance(x, Encoder)` tests against: naming them builds nothing. */
function typeTestedClasses(n: Node): Node | undefined {
  if (n.type !== 'argument_list' || n.parent?.type !== 'call') return undefined;
  const callee = field(n.parent, 'function')?.text;
  return callee === 'isinstance' || callee === 'issubclass' ? children(n)[1] : undefined;
}

/** Keys of the classes one of whose methods moves `self` (`self.to(device)`): read once per program, not per attribute read. */
function classesMovingThemselves(program: Program): Set<string> {
  const out = new Set<string>();
  for (const cls of program.classes.values()) {
    const moves = (m: FunctionInfo) => !!m.selfName && movedParamsOf(bodyFact(m, 'movedParams')).has(m.selfName);
    if (cls.isModule && [...cls.methods.values()].some(moves)) out.add(cls.key);
  }
  return out;
}

/**
 * A submodule of such a class, as forward sees it: where it was placed, or on the CPU
 * when it was built without a device beside its placed siblings; unknown otherwise
 * (a module handed in from outside).
 */
export function ownPlaceOf(v: Value): Value {
  if (explicitlyPlaced(v)) return { ...v, factory: undefined };
  if (v.kind === 'module' && !v.placeless && v.place === CPU && v.deviceText === undefined) return v;
  return { ...v, place: UNTRACKED };
}
