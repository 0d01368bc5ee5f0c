// Device worlds: the program is interpreted in concrete worlds. Device mistakes need an
// accelerator, so a program that tests for one runs in the world where it is available;
// the code only a machine without one reaches (the `else` of an availability test) runs
// "in the shadow" there, heard only by the rules that need no accelerator (catalog.ts
// needsAccelerator). A flag the code cannot decide (`args.cuda`, `use_gpu` from a command
// line) splits the world in two, one per value. Inside a world, `torch.cuda.is_available()`,
// flags, `x.is_cuda` and device comparisons have a truth value, so `if use_cuda:` takes one
// branch and two tests of one flag agree. A run depends only on the world variables it
// consulted: a world that agrees with a finished run on those is not run again (analyze.ts).
import { perStatement } from '../python/statementMemo';
import type { Node } from '../python/pyNode';
import { callArguments, children, dottedKey, field, unparen } from '../python/syntax';
import { OPTIONS_HOLDER_NAME } from './torchApi';
import { DEVICE_PARAMETER } from './cudaFacts';

/** The variable every availability check reads. */
export const ACCELERATOR = 'accelerator';

export interface World {
  /** Values of world variables: ACCELERATOR, and each flag by its dotted key. Absent: not decided. */
  readonly values: ReadonlyMap<string, boolean>;
}

/** The names of a world's variables, as one string (a taped read compares them). */
export function worldNames(world: World): string {
  let names = NAMES.get(world);
  if (names === undefined) NAMES.set(world, (names = [...world.values.keys()].sort().join('\n')));
  return names;
}

const NAMES = new WeakMap<World, string>();

/** A world during one interpretation: its values, and which of them the run read. */
export class WorldState {
  readonly consulted: Set<string>;

  constructor(
    readonly world: World,
    private readonly onRead?: (name: string, value: boolean | undefined) => void,
    consulted?: Set<string>,
    private readonly onNames?: (names: string) => void,
  ) {
    this.consulted = consulted ?? new Set();
  }

  /**
   * The same world, each read also told to `onRead`: a round tapes them, so a run that read
   * none replays in every world, and one that read a variable only where it has that value.
   * A name that is no variable of the world is told to `onNames` as the world's variable
   * names (worldNames), which is all its answer depends on.
   */
  observed(onRead: (name: string, value: boolean | undefined) => void, onNames: (names: string) => void): WorldState {
    return new WorldState(this.world, onRead, this.consulted, onNames);
  }

  /** Whether an accelerator is available in this world (undefined: the program never asks). */
  accelerator(): boolean | undefined {
    return this.read(ACCELERATOR);
  }

  /**
   * A device flag's truth in this world, when `key` is one. An option keeps its identity
   * across the objects that carry it: `self.on_gpu = flags.on_gpu` in a trainer and
   * `if flags.on_gpu:` in the script that built the model are one flag.
   */
  flag(key: string): boolean | undefined {
    if (this.world.values.has(key)) return this.read(key);
    // Every name and attribute the code reads asks this; the answer for one that is no
    // variable here depends only on which variables there are, so that is what is taped.
    const option = this.world.values.size === 0 ? undefined : optionName(key);
    const same = option === undefined ? undefined : [...this.world.values.keys()].find((v) => optionName(v) === option);
    if (same !== undefined) return this.read(same);
    this.onNames?.(worldNames(this.world));
    return undefined;
  }

  private read(name: string): boolean | undefined {
    const v = this.world.values.get(name);
    if (v !== undefined) this.consulted.add(name);
    this.onRead?.(name, v);
    return v;
  }
}

/** `self` or an options object (`args`, `cfg`): what it carries are the run's settings. */
function holdsSettings(name: string): boolean {
  return name === 'self' || OPTIONS_HOLDER_NAME.test(name);
}

/**
 * `args.cuda`, `self.cuda`, `opt.cuda`, `self.opts.cuda` (the options an instance keeps): the
 * option `cuda` (undefined for any other key).
 */
function optionName(key: string): string | undefined {
  const m = /^(?:self\.(?=\w+\.\w+$))?(\w+)\.(\w+)$/.exec(key);
  return m && holdsSettings(m[1]!) ? m[2] : undefined;
}

/** No world variables: `is_available()` and flags stay undecided, as when the program never tests them. */
export const UNDECIDED_WORLD = new WorldState({ values: new Map() });

/** Calls whose result is the world's accelerator availability. */
export const AVAILABILITY_CALLS = new Set([
  'torch.cuda.is_available', 'torch.backends.mps.is_available', 'torch.mps.is_available', 'torch.xpu.is_available',
  'torch.accelerator.is_available',
]);

/** Flags named for a device choice: `use_cuda`, `args.no_cuda`, `opt.gpu`, `train_on_gpu`, `self.use_mps`. */
const DEVICE_FLAG_NAME = /(^|_)(cuda|gpus?|mps|cpu|accel(erator)?)($|_)|^on_gpu$/i;

/** A device flag that turns the accelerator off when true (`no_cuda`, `cpu`, `disable_gpu`, `use_cpu`). */
export const NEGATIVE_DEVICE_FLAG = /(^|_)(no|not|disable|without|cpu)($|_)/i;

/**
 * Whether a condition being true means the run uses an accelerator, read from its text: a
 * device flag (`args.cuda`, `use_gpu` true; `args.no_cuda`, `args.cpu` false), also compared
 * with 0, 1 or a boolean (`args.cuda > 0`), negated, or one operand of an `and`. Undefined
 * for anything else.
 */
export function deviceFlagPolarity(condition: Node | null | undefined): boolean | undefined {
  if (!condition) return undefined;
  const n = unparen(condition);
  if (n.type === 'not_operator') {
    const inner = deviceFlagPolarity(field(n, 'argument'));
    return inner === undefined ? undefined : !inner;
  }
  if (n.type === 'boolean_operator' && /^\s*and\b/.test(n.text.slice((field(n, 'left')?.endIndex ?? n.startIndex) - n.startIndex))) {
    return deviceFlagPolarity(field(n, 'left')) === true || deviceFlagPolarity(field(n, 'right')) === true ? true : undefined;
  }
  if (n.type === 'comparison_operator') {
    const [left, right] = children(n);
    if (!left || !right || children(n).length !== 2) return undefined;
    const operator = n.text.slice(left.endIndex - n.startIndex, right.startIndex - n.startIndex).trim();
    const named = namedDeviceComparison(left, operator, right) ?? namedDeviceComparison(right, operator, left);
    if (named !== undefined) return named;
    const flag = deviceFlagPolarity(left);
    const keeps = comparisonKeepsFlag(operator, right);
    return flag === undefined || keeps === undefined ? undefined : keeps === flag;
  }
  if (n.type !== 'identifier' && n.type !== 'attribute') return undefined;
  const key = dottedKey(n);
  const last = key?.slice(key.lastIndexOf('.') + 1);
  if (!key || !last || key.startsWith('torch.') || last === 'is_cuda' || !DEVICE_FLAG_NAME.test(last)) return undefined;
  return !NEGATIVE_DEVICE_FLAG.test(last);
}

/**
 * `device == torch.device("cpu")`, `device.type != "cpu"`, `str(dev) == "cuda"`: a device
 * variable compared with a literal device, which holds exactly when the run uses an
 * accelerator (true) or the CPU (false); undefined for any other comparison.
 */
function namedDeviceComparison(subject: Node, operator: string, literal: Node): boolean | undefined {
  if (operator !== '==' && operator !== '!=') return undefined;
  let s = unparen(subject);
  if (s.type === 'call' && field(s, 'function')?.text === 'str') s = unparen(callArguments(s).positional[0] ?? s);
  if (s.type === 'attribute' && field(s, 'attribute')?.text === 'type') s = field(s, 'object')!;
  const key = s.type === 'identifier' || s.type === 'attribute' ? dottedKey(s) : undefined;
  // A variable that holds the device code runs on: `device`, `self.device`, `args.dev`, `model_device`.
  if (!key || !DEVICE_PARAMETER.test(key.slice(key.lastIndexOf('.') + 1).toLowerCase())) return undefined;
  let l = unparen(literal);
  if (l.type === 'call' && /^(torch\.)?device$/.test(field(l, 'function')?.text ?? '')) l = callArguments(l).positional[0] ?? l;
  const name = l.type === 'string' ? /^["'](cpu|cuda(:\d+)?|mps)["']$/.exec(l.text)?.[1] : undefined;
  if (!name) return undefined;
  return (name !== 'cpu') === (operator === '==');
}

/**
 * `flag > 0`, `flag == True`, `flag is False`: whether the comparison holds exactly when the
 * flag is set (true), exactly when it is not (false), or neither (undefined: another operator
 * or an operand other than 0, 1, True or False).
 */
export function comparisonKeepsFlag(operator: string, constantNode: Node): boolean | undefined {
  const constant = constantNode.type === 'true' || constantNode.text === '1' ? 1 : constantNode.type === 'false' || constantNode.text === '0' ? 0 : undefined;
  if (constant === undefined) return undefined;
  const same = constant === 0 ? ['>', '!=', 'is not'] : ['==', '>=', 'is'];
  const opposite = constant === 0 ? ['==', '<=', 'is'] : ['!=', '<', 'is not'];
  return same.includes(operator) ? true : opposite.includes(operator) ? false : undefined;
}

/** Undecidable flags split worlds; more than this many are joined as before (world count 2^n). */
const MAX_FLAGS = 1;

const AVAILABILITY_TEXT = /\b(cuda|mps|xpu|accelerator)\.is_available\s*\(/;
/**
 * A test of where a tensor or module is (`x.device.type == "mps"`, `t.is_cuda`), not of the
 * run's settings (`args.device == "cuda"`, `self.device.type`, which the program chose).
 */
function testsWhereAValueIs(text: string): boolean {
  for (const m of text.matchAll(/([\w.]+)\.(device|is_cuda|is_mps)\b/g)) {
    const holder = m[1]!.split('.')[0]!;
    if (!holdsSettings(holder)) return true;
  }
  return false;
}

/**
 * The world variables a program's text tests: availability anywhere, and up to MAX_FLAGS
 * device flags of the analysed file itself (`module` 0): an imported module's own flag
 * would split the world of every file that imports it.
 */
function worldVariables(roots: readonly { root: Node; source: string; module?: number }[], found: FlagsFound): string[] {
  const availability = roots.some((u) => AVAILABILITY_TEXT.test(u.source));
  const { counts, derived, setByHand, decidedByBranch } = found;
  // A function's parameter (`def evaluate(model, use_cuda=True)`) holds what its callers
  // pass, whose truth their own world decides. A name that is also set to True or False by
  // hand somewhere (a test's own `on_gpu = False` beside the module's availability check)
  // stays a flag: where it holds an availability check, that decides it anyway.
  const flags = [...counts].filter(([key]) => !derived.has(key) || (setByHand.has(key) && !decidedByBranch.has(key))).sort((a, b) => b[1] - a[1]).slice(0, MAX_FLAGS).map(([key]) => key);
  return [...(availability ? [ACCELERATOR] : []), ...flags];
}

function flagsOfProgram(roots: readonly { root: Node; module?: number }[]): FlagsFound {
  const all: FlagsFound = { counts: new Map(), derived: new Set(), setByHand: new Set(), availability: new Set(), decidedByBranch: new Set() };
  for (const { root } of roots.filter((u) => !u.module)) {
    for (const found of perStatement(root, 'world flags', flagsIn)) {
      for (const [key, n] of found.counts) all.counts.set(key, (all.counts.get(key) ?? 0) + n);
      for (const key of found.derived) all.derived.add(key);
      for (const key of found.setByHand) all.setByHand.add(key);
      for (const key of found.availability) all.availability.add(key);
      for (const key of found.decidedByBranch) all.decidedByBranch.add(key);
    }
  }
  return all;
}

/**
 * The worlds, each also deciding the options the analysed file sets to availability itself
 * (`params.cuda = torch.cuda.is_available()`): a function of another file that reads
 * `params.cuda` from the object it is given reads that world's availability.
 */
export function worldsOfProgram(roots: readonly { root: Node; source: string; module?: number }[]): World[] {
  const found = flagsOfProgram(roots);
  const worlds = worldsOf(worldVariables(roots, found));
  const options = [...found.availability];
  if (options.length === 0) return worlds;
  return worlds.map((w) => {
    const available = w.values.get(ACCELERATOR);
    if (available === undefined) return w;
    const values = new Map(w.values);
    for (const key of options) if (!values.has(key)) values.set(key, available);
    return { values };
  });
}

interface FlagsFound {
  counts: Map<string, number>;
  derived: Set<string>;
  setByHand: Set<string>;
  /** Options (`params.cuda`) set to an availability check and nothing more. */
  availability: Set<string>;
  /** Names set to True or False in a branch of an availability test: decided by it, whatever else sets them by hand. */
  decidedByBranch: Set<string>;
}

/** `torch.cuda.is_available()` and its kin, alone. */
const AVAILABILITY_ALONE = /^torch\.(cuda|mps|xpu|accelerator|backends\.mps)\.is_available\(\)$/;

/**
 * Dotted names tested as booleans (an `if`/`elif`/`while` condition, a conditional
 * expression's test, an operand of `not`/`and`/`or`) whose last part names a device; and
 * the names assigned from an availability check, which each world decides already.
 */
function flagsIn(statement: Node): FlagsFound {
  const counts = new Map<string, number>();
  const derived = new Set<string>();
  const setByHand = new Set<string>();
  const availability = new Set<string>();
  const decidedByBranch = new Set<string>();
  const stack: Node[] = [statement];
  while (stack.length) {
    const n = stack.pop()!;
    switch (n.type) {
      case 'if_statement': case 'elif_clause': case 'while_statement':
        noteTested(field(n, 'condition'), counts);
        break;
      case 'conditional_expression':
        noteTested(children(n)[1], counts);
        break;
      case 'not_operator':
        noteTested(field(n, 'argument'), counts);
        break;
      case 'boolean_operator':
        noteTested(field(n, 'left'), counts);
        noteTested(field(n, 'right'), counts);
        break;
      case 'parameters':
        for (const p of children(n)) {
          const name = p.type === 'identifier' ? p : field(p, 'name');
          if (name?.type === 'identifier') derived.add(name.text);
        }
        break;
      case 'assignment': {
        const key = field(n, 'left') && dottedKey(field(n, 'left')!);
        const right = field(n, 'right');
        // `x_is_mps = x.device.type == "mps"`: where a value is, not how the run is set up.
        if (key && right && (AVAILABILITY_TEXT.test(right.text) || testsWhereAValueIs(right.text))) derived.add(key);
        if (key && (right?.type === 'true' || right?.type === 'false')) {
          // `use_gpu = True` in the branch of `if torch.cuda.is_available():`: the availability
          // test decides it, as `use_gpu = torch.cuda.is_available()` would.
          // True where it is available (False in the `else`): the availability itself. False
          // under `if not torch.cuda.is_available():` only says what a machine without one
          // does; with one, the value set by hand (a user's setting) still decides.
          const branch = availabilityBranch(n);
          if (branch !== undefined && branch !== 'other' && (branch === 'available') === (right!.type === 'true')) {
            decidedByBranch.add(key);
            availability.add(key);
          }
          else setByHand.add(key);
        }
        if (key && optionName(key) !== undefined && right && AVAILABILITY_ALONE.test(right.text.replace(/\s+/g, ''))) availability.add(key);
        break;
      }
    }
    for (const c of children(n)) stack.push(c);
  }
  for (const key of decidedByBranch) derived.add(key);
  return { counts, derived, setByHand, availability, decidedByBranch };
}

/**
 * Whether the statement sits in a branch of an `if` (or `elif`) that tests for an
 * accelerator: 'available' directly in the body of `if torch.cuda.is_available():`,
 * 'unavailable' directly in its `else`, 'other' in any other branch of such a test.
 */
function availabilityBranch(node: Node): 'available' | 'unavailable' | 'other' | undefined {
  let direct = true;
  for (let up = node.parent, below: Node = node; up && up.type !== 'function_definition' && up.type !== 'class_definition'; below = up, up = up.parent) {
    if (up.type === 'if_statement' || up.type === 'elif_clause') {
      const cond = field(up, 'condition');
      if (cond && AVAILABILITY_TEXT.test(cond.text)) {
        const alone = up.type === 'if_statement' && AVAILABILITY_ALONE.test(cond.text.replace(/\s+/g, ''));
        if (!direct || !alone) return 'other';
        if (field(up, 'consequence')?.id === below.id) return 'available';
        return below.type === 'else_clause' ? 'unavailable' : 'other';
      }
    }
    // The assignment's own statement and block lead up to the branch; anything else nests it deeper.
    if (!['expression_statement', 'block', 'else_clause'].includes(up.type)) direct = false;
  }
  return undefined;
}

function noteTested(node: Node | null | undefined, counts: Map<string, number>): void {
  if (!node) return;
  const n = unparen(node);
  if (n.type !== 'identifier' && n.type !== 'attribute') return;
  const key = dottedKey(n);
  const last = key?.slice(key.lastIndexOf('.') + 1);
  // `torch.version.cuda` says how PyTorch was built, not a choice the program's user makes:
  // it does not split the world (and the runs) in two.
  if (!key || !last || last === 'is_cuda' || key.startsWith('torch.') || !DEVICE_FLAG_NAME.test(last)) return;
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

/** The worlds to interpret: an accelerator where the program asks, each flag both ways (all set first). */
export function worldsOf(variables: readonly string[]): World[] {
  let worlds: Map<string, boolean>[] = [new Map()];
  for (const v of variables) worlds = worlds.flatMap((w) => v === ACCELERATOR ? [new Map(w).set(v, true)] : [new Map(w).set(v, true), new Map(w).set(v, false)]);
  return worlds.map((values) => ({ values }));
}

/** Whether a run in `ran`, which read `consulted`, is also the run of `world`. */
export function sameRun(ran: World, consulted: ReadonlySet<string>, world: World): boolean {
  for (const v of consulted) if (ran.values.get(v) !== world.values.get(v)) return false;
  return true;
}

/**
 * The condition a finding needs, when it happens in some worlds only: "With a GPU" (a
 * mistake that needs an accelerator, in a program that tests for one), "With a GPU and
 * `args.cuda` false". Terse: it counts in the message's first sentence (at most 100
 * characters, issue 28). Undefined when it happens in every world.
 */
export function worldCondition(seen: readonly World[], all: readonly World[], needsAccelerator: boolean): string | undefined {
  const parts: string[] = [];
  if (needsAccelerator && all[0]?.values.get(ACCELERATOR)) parts.push('a GPU');
  for (const v of all[0] && seen.length < all.length ? [...all[0].values.keys()] : []) {
    const values = new Set(seen.map((w) => w.values.get(v)));
    if (v === ACCELERATOR || values.size !== 1) continue;
    const [value] = values;
    parts.push(`\`${v}\` ${value ? 'true' : 'false'}`);
  }
  return parts.length === 0 ? undefined : `With ${parts.join(' and ')}`;
}

/**
 * Counts of devices or processes: `torch.cuda.device_count()`, `dist.get_world_size()`, and
 * names such as `args.n_gpu`, `h.num_gpus`, `world_size`, `len(opt.gpu_ids)`.
 */
const DEVICE_COUNT_CALLS = new Set([
  'torch.cuda.device_count', 'torch.accelerator.device_count', 'torch.xpu.device_count', 'torch.mps.device_count',
  'torch.distributed.get_world_size',
]);
const DEVICE_COUNT_NAME = /^(gpus|n_?gpus?|num_?gpus?|gpu_?num|gpu_?count|n_?devices|num_?devices|device_?count|world_?size|n_?procs|num_?process(es)?)$/i;
const DEVICE_LIST_NAME = /^(gpus|gpu_?ids|device_?ids|devices)$/i;

function countsDevices(node: Node, qualify: (callee: Node) => string | undefined): boolean {
  const n = unparen(node);
  if (n.type === 'call') {
    const callee = field(n, 'function');
    if (!callee) return false;
    if (callee.text === 'len') {
      const key = dottedKey(unparen(children(field(n, 'arguments') ?? n)[0] ?? n));
      return !!key && DEVICE_LIST_NAME.test(key.slice(key.lastIndexOf('.') + 1));
    }
    return DEVICE_COUNT_CALLS.has(qualify(callee) ?? '');
  }
  if (n.type !== 'identifier' && n.type !== 'attribute') return false;
  const key = dottedKey(n);
  return !!key && !key.startsWith('torch.') && DEVICE_COUNT_NAME.test(key.slice(key.lastIndexOf('.') + 1));
}

/**
 * `if args.n_gpu > 1:`, `torch.cuda.device_count() > 1`, `world_size >= 2`: the program is
 * interpreted as one process on at most one device, the run a user debugs first, so a count
 * compared with one or two is decided (false for "more than one"). Left undecided, the
 * multi-device branch (`model = nn.DataParallel(model)`, a DDP wrap that also moves) joined
 * with the plain path hid the plain path's mistakes: a model never moved there looked
 * possibly moved. Undefined for any other comparison.
 */
export function oneDeviceComparison(operator: string, operands: readonly Node[], qualify: (callee: Node) => string | undefined): boolean | undefined {
  if (operands.length !== 2) return undefined;
  const [left, right] = operands as [Node, Node];
  const countLeft = countsDevices(left, qualify);
  const countRight = !countLeft && countsDevices(right, qualify);
  if (!countLeft && !countRight) return undefined;
  // Read as `count OP literal`: a literal on the left flips the operator.
  const op = countLeft ? operator : FLIPPED[operator];
  const saysMany = op === undefined ? undefined : SAYS_MANY[unparen(countLeft ? right : left).text]?.[op];
  return saysMany === undefined ? undefined : !saysMany;
}

const FLIPPED: Readonly<Record<string, string>> = { '<': '>', '>': '<', '<=': '>=', '>=': '<=' };
/** Whether `count OP literal` says "more than one", for the comparisons that say either way. */
const SAYS_MANY: Readonly<Record<string, Readonly<Record<string, boolean>>>> = {
  1: { '>': true, '<=': false },
  2: { '>=': true, '<': false },
};
