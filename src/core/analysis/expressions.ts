// Abstract evaluation of Python expressions: what each expression's value is, and
// the events the rules look at (module calls, tensor operations, .numpy()).
import type { Node } from '../python/pyNode';
import { callArguments, children, descendants, dottedKey, field, stringLiteralValue, unparen } from '../python/syntax';
import { evalCall } from './calls';
import { Evaluator, MAX_EXPRESSION_DEPTH, RoundContext } from './roundContext';
import type { OperationRole } from './ruleApi';
import { deviceFromString } from './devices';
import { operationMeetings } from './values';
import { instanceClass, type Frame } from './frame';
import { ACCEL, Arg, concatenated, CPU, Place, containedValues, hasAccel, INTEGER, isCallable, isContainer, isExactlyCpu, isTensorLike, joinValues, legacyTensorType, NDARRAY, NONE, NUMBER, onPathOf, OTHER, PENDING, resultOf, UNKNOWN, UNTRACKED, Value, value } from './values';
import { deviceKwargsDisplay, frameworkAttribute } from './frameworks';
import { ownPlaceOf, placesOwnSubmodules } from './ownPlacement';
import { RECEIVER } from './callContexts';
import { usesAsSubmodule } from './submoduleUse';
import { isBuilding } from './initOnlyMethods';
import { qualifyInScope } from './shadowedImports';
import { comparisonKeepsFlag, NEGATIVE_DEVICE_FLAG, oneDeviceComparison } from './world';
import { GRAPH_NON_TENSOR_ATTRIBUTES, isPlacelessModuleClass } from './torchApi';
import type { ClassInfo, Program } from './program';
import { withModulesMoved } from './containerMoves';
import { readAsOneElement } from './oneElement';
import { classAssignedAttributes } from './assignedAttributes';
import { selfAssignments } from './wrapperModules';

const TENSOR_BINARY_OPERATORS = new Set(['+', '-', '*', '/', '//', '%', '**', '@', '&', '|', '^', '<<', '>>']);

/** Keys of the module classes one of whose methods registers a submodule by name (`self.add_module(name, m)`). */
function classesRegisteringByName(program: Program): Set<string> {
  const out = new Set<string>();
  for (const cls of program.classes.values()) {
    // `self.add_module(name, m)`, `setattr(self, f"head{k}", m)`: registered under a name made at run time.
    if (cls.isModule && [...cls.methods.values()].some((m) => !!m.selfName && new RegExp(`\\b${m.selfName}\\.(add_module|register_module|__setattr__)\\s*\\(|\\bsetattr\\s*\\(\\s*${m.selfName}\\s*,`).test(m.node.text))) out.add(cls.key);
  }
  return out;
}

/**
 * `cls.attr` for each list a module class keeps of its own attributes (`self.lins =
 * [self.lin0, self.lin1]`, `self.lins += [self.lin2]`): every assignment to it is a list or
 * tuple of `self.name` reads, so it holds the instance's registered submodules themselves.
 */
function ownAttributeLists(program: Program): Set<string> {
  const lists = new Map<string, boolean>();
  for (const cls of program.classes.values()) {
    if (!cls.isModule) continue;
    for (const method of cls.methods.values()) {
      const self = method.selfName;
      for (const [target, assigned] of selfAssignments(method)) {
        if (target.type !== 'attribute' || field(target, 'object')?.text !== self) continue;
        const key = `${cls.key}.${field(target, 'attribute')?.text}`;
        const listsOwn = (assigned.type === 'list' || assigned.type === 'tuple') && assigned.namedChildren.length > 0 &&
          assigned.namedChildren.every((e) => e.type === 'attribute' && field(e, 'object')?.text === self);
        lists.set(key, (lists.get(key) ?? true) && listsOwn);
      }
    }
  }
  return new Set([...lists].filter(([, own]) => own).map(([key]) => key));
}

/** A class named as a value: a module class of the program is one a call of it builds. */
function classReference(cls: ClassInfo): Value {
  return value('other', UNTRACKED, { classKey: cls.key, buildsModule: (cls.isModule && !cls.placeless) || undefined });
}

export class Expressions implements Evaluator {
  private depth = 0;

  constructor(private readonly ctx: RoundContext) {}

  eval(frame: Frame, node: Node): Value {
    if (this.depth > MAX_EXPRESSION_DEPTH) return UNKNOWN;
    this.depth++;
    try {
      return this.evalNode(frame, node);
    } finally {
      this.depth--;
    }
  }

  private evalNode(frame: Frame, node: Node): Value {
    switch (node.type) {
      case 'identifier': return this.withFlag(node.text, onPathOf(this.lookup(frame, node.text), frame.tests));
      case 'parenthesized_expression': {
        const inner = children(node)[0];
        return inner ? this.eval(frame, inner) : UNKNOWN;
      }
      case 'string': case 'concatenated_string':
        // `f"loss {t.numpy()}"` runs what it interpolates.
        for (const part of node.type === 'string' ? [node] : children(node)) {
          for (const piece of children(part)) if (piece.type === 'interpolation' && piece.namedChildCount > 0) this.eval(frame, field(piece, 'expression') ?? children(piece)[0]!);
        }
        return deviceFromString(node) ?? OTHER;
      case 'integer': return INTEGER;
      case 'float': return NUMBER;
      // `if False:`, `parallel = False` ... `if parallel:`: decided as Python decides it. A
      // device flag the world varies (`use_cuda = False`, a setting users flip) is the world's.
      case 'true': case 'false': return value('other', UNTRACKED, { truth: node.type === 'true', literalTruth: true });
      case 'none': return NONE;
      case 'call': return evalCall(this.ctx, this, frame, node, false);
      case 'attribute': return this.evalAttribute(frame, node);
      case 'subscript': return this.evalSubscript(frame, node);
      case 'binary_operator': return this.evalBinary(frame, node);
      case 'comparison_operator': return this.evalComparison(frame, node);
      case 'unary_operator': {
        const arg = field(node, 'argument');
        const v = arg ? this.eval(frame, arg) : UNKNOWN;
        return v.kind === 'tensor' ? { ...v, factory: undefined, batch: undefined } : OTHER;
      }
      case 'conditional_expression': {
        const [a, cond, b] = children(node);
        const truth = cond ? this.eval(frame, cond).truth : undefined;
        if (!a || !b) return UNKNOWN;
        if (truth !== undefined) return this.eval(frame, truth ? a : b);
        return joinValues(this.eval(frame, a), this.eval(frame, b));
      }
      case 'tuple': case 'list': case 'expression_list':
        return value('other', UNTRACKED, { elements: children(node).map((c) => this.eval(frame, c)) });
      case 'not_operator': {
        const arg = field(node, 'argument');
        const v = arg ? this.eval(frame, arg) : UNKNOWN;
        if (v.truth === undefined) return UNKNOWN;
        return value('other', UNTRACKED, { truth: !v.truth, truthByAccelerator: v.truthByAccelerator, truthByOneDevice: v.truthByOneDevice, acceleratorWhen: v.acceleratorWhen === undefined ? undefined : !v.acceleratorWhen });
      }
      case 'boolean_operator': return this.evalBoolean(frame, node);
      case 'await': {
        const inner = children(node)[0];
        return inner ? this.eval(frame, inner) : UNKNOWN;
      }
      case 'named_expression': {
        const target = field(node, 'name');
        const v = field(node, 'value') ? this.eval(frame, field(node, 'value')!) : UNKNOWN;
        if (target) this.ctx.assign(frame, target, v);
        return v;
      }
      case 'keyword_argument': {
        const v = field(node, 'value');
        return v ? this.eval(frame, v) : UNKNOWN;
      }
      case 'list_comprehension': case 'set_comprehension': case 'generator_expression': case 'dictionary_comprehension': {
        // `{k: v.to(device) for k, v in batch.items()}`: every element is what the body makes.
        const element = this.evalComprehension(frame, node);
        return value('other', UNTRACKED, { anyElement: element });
      }
      case 'dictionary': return this.evalDictionary(frame, node);
      // A value that calls run (calls.ts callLambdas): `makers[kind]()`, `act(x)`.
      case 'lambda': return value('other', UNTRACKED, { lambdas: { nodes: [node], scope: frame.id, moduleLevel: !frame.fn } });
      default:
        // F-strings, sets, slices: not tracked (silence is safe).
        return UNKNOWN;
    }
  }

  /**
   * `a and b`, `a or b`: a truth value when the world decides enough of it (`not args.no_cuda
   * and torch.cuda.is_available()` is false in a world without an accelerator). Python would
   * return an operand; what is tracked of it is only its truth.
   */
  private evalBoolean(frame: Frame, node: Node): Value {
    const left = field(node, 'left');
    const right = field(node, 'right');
    const l = left ? this.eval(frame, left) : UNKNOWN;
    const r = right ? this.eval(frame, right) : UNKNOWN;
    // `torch.cuda.is_available() and False`: a literal operand's value carries its truth.
    const [a, b] = [l.truth, r.truth];
    const isAnd = /^\s*and\b/.test(node.text.slice((left?.endIndex ?? node.startIndex) - node.startIndex));
    const truth = isAnd
      ? (a === false || b === false ? false : a === true && b === true ? true : undefined)
      : (a === true || b === true ? true : a === false && b === false ? false : undefined);
    const truthByAccelerator = l.truthByAccelerator || r.truthByAccelerator;
    const truthByOneDevice = l.truthByOneDevice || r.truthByOneDevice;
    if (truth === undefined) return UNKNOWN;
    // `args.cuda and x` true: both are, so the run uses the accelerator; `args.no_cuda or x`
    // false: neither is. Any other outcome says nothing of the flag.
    const saysAccelerator = (isAnd ? truth : !truth) && (l.acceleratorWhen === truth || r.acceleratorWhen === truth);
    return value('other', UNTRACKED, { truth, truthByAccelerator, truthByOneDevice, acceleratorWhen: saysAccelerator ? truth : undefined });
  }

  /** A device flag's truth in this world (world.ts), when the program does not already say. */
  private withFlag(key: string, v: Value): Value {
    if (v.truth !== undefined && !v.literalTruth) return v;
    const truth = this.ctx.world.flag(key);
    return truth === undefined ? v : { ...v, truth, acceleratorWhen: !NEGATIVE_DEVICE_FLAG.test(key.slice(key.lastIndexOf('.') + 1)) };
  }

  /** `{"x": t, **rest}`: string keys keep their values; other keys and unpacked dicts are any element. */
  private evalDictionary(frame: Frame, node: Node): Value {
    const entries = new Map<string, Value>();
    let anyElement: Value | undefined;
    for (const item of children(node)) {
      if (item.type === 'pair') {
        const key = field(item, 'key');
        const v = field(item, 'value') ? this.eval(frame, field(item, 'value')!) : UNKNOWN;
        const name = key?.type === 'string' ? stringLiteralValue(key) : undefined;
        if (name !== undefined) entries.set(name, v);
        else anyElement = anyElement ? joinValues(anyElement, v) : v;
      } else if (item.type === 'dictionary_splat') {
        const inner = children(item)[0];
        if (inner) this.eval(frame, inner);
        anyElement = UNKNOWN;
      }
    }
    // `{"device": d}` passed on with `**` also says where a factory puts its tensor.
    const kwargs = deviceKwargsDisplay(this.ctx, this, frame, node);
    return value('other', UNTRACKED, { entries, anyElement, kwargsDevice: kwargs?.kwargsDevice });
  }

  /** The element expression runs with the loop variables unknown, in a scope of its own; its value is returned. */
  private evalComprehension(frame: Frame, node: Node): Value {
    const saved = frame.env;
    frame.env = saved.clone();
    try {
      for (const clause of children(node)) {
        if (clause.type === 'for_in_clause') {
          const right = field(clause, 'right');
          const left = field(clause, 'left');
          const iterated = right ? this.eval(frame, right) : UNKNOWN;
          if (left) this.ctx.assign(frame, left, right ? this.comprehensionItem(frame, right, iterated) : UNKNOWN);
        } else if (clause.type === 'if_clause') {
          const cond = children(clause)[0];
          if (cond) this.eval(frame, cond);
        }
      }
      const body = field(node, 'body');
      return body ? this.eval(frame, body.type === 'pair' ? field(body, 'value') ?? body : body) : UNKNOWN;
    } finally {
      const inner = frame.env;
      frame.env = saved;
      // What the element changed of the names around it is an effect that stays: a module moved
      // in place (`[m.to(device) for m in nets.values()]`), a `:=`. Its own loop names go.
      const own = comprehensionTargets(node);
      for (const key of inner.ownKeys()) if (!own.has(key) && saved.has(key) && inner.get(key) !== saved.get(key)) saved.update(key, inner.get(key)!);
    }
  }

  /**
   * What a comprehension's loop variable holds: an item of a list the program filled, or for
   * `batch.items()` / `batch.values()` a value of the dict (a loader's dict batch: its CPU
   * tensors), so `{k: v for k, v in batch.items()}` copies them unmoved. Unknown otherwise.
   */
  private comprehensionItem(frame: Frame, right: Node, iterated: Value): Value {
    const r = unparen(right);
    const fn = r.type === 'call' ? field(r, 'function') : undefined;
    const method = fn?.type === 'attribute' ? field(fn, 'attribute')?.text : undefined;
    const objNode = fn ? field(fn, 'object') : undefined;
    const noArgs = r.type === 'call' && (field(r, 'arguments')?.namedChildren.length ?? 0) === 0;
    if ((method === 'items' || method === 'values') && noArgs && objNode && dottedKey(objNode)) {
      const dict = this.eval(frame, objNode);
      const held = containedValues(dict);
      const element = held.length ? held.reduce((a, b) => joinValues(a, b))
        : dict.kind === 'tensor' && dict.batch ? { ...dict, factory: undefined, scalar: undefined, elements: undefined, batch: { ...dict.batch, container: 'dict' as const } }
          : UNKNOWN;
      return method === 'values' ? element : value('other', UNTRACKED, { elements: [OTHER, element] });
    }
    return this.iterationItem(frame, r, iterated);
  }

  /**
   * One item of iterating `node` (already evaluated to `iterated`): an item of a container
   * the program filled; for `zip(a, b)` a tuple of an item of each, for `enumerate(a)` an
   * index and an item of `a` (each read again only where it is a name: `zip(sizes, losses)`).
   */
  iterationItem(frame: Frame, node: Node, iterated: Value): Value {
    const r = unparen(node);
    const callee = r.type === 'call' ? field(r, 'function') : undefined;
    const builtin = callee?.type === 'identifier' && !frame.env.get(callee.text)
      ? this.ctx.program.importsAt(frame.unit).qualify(callee) ?? callee.text : undefined;
    if (builtin === 'range') return INTEGER;
    if (splitsText(r)) return OTHER;
    if ((builtin === 'zip' || builtin === 'enumerate') && r.type === 'call') {
      const args = callArguments(r);
      if (args.keywords.size || args.hasSplat) return UNKNOWN;
      const itemOf = (n: Node): Value => (dottedKey(n) ? this.iterationItem(frame, n, this.eval(frame, n)) : UNKNOWN);
      if (builtin === 'enumerate') return args.positional[0] ? value('other', UNTRACKED, { elements: [INTEGER, itemOf(args.positional[0])] }) : UNKNOWN;
      return value('other', UNTRACKED, { elements: args.positional.map(itemOf) });
    }
    // `for name in state_dict:` iterates a dict's keys, not its tensors.
    if (iterated.entries) return OTHER;
    const items = containedValues(iterated);
    if (items.length) return items.reduce((a, b) => joinValues(a, b));
    // `for layer in vgg.features:` yields the container's layers, where it is: callables of a
    // class not known, whose first input meets their weights and whose later arguments are
    // their own API's (a graph layer may take its adjacency on the CPU and move it itself).
    return iterated.kind === 'module' && !iterated.placeless && iterated.place !== UNTRACKED
      ? value('unknown', iterated.place, { origin: iterated.origin, deviceText: iterated.deviceText })
      : UNKNOWN;
  }

  lookup(frame: Frame, key: string): Value {
    const local = frame.env.get(key);
    if (local) return local;
    const selfClass = instanceClass(frame);
    if (frame.fn?.selfName && key.startsWith(frame.fn.selfName + '.') && selfClass) {
      // While the module is being built (`__init__` and the helpers only it calls) it has
      // not been moved yet: its layers are where they were built, whoever receives it later.
      const building = isBuilding(this.ctx, frame);
      const v = this.classAttribute(selfClass, key.slice(frame.fn.selfName.length + 1), building);
      // A method followed for one call: the instance's layers are where that call's receiver is.
      const receiver = building ? undefined : frame.env.get(RECEIVER);
      return receiver && ((v.kind === 'module' && !v.placeless) || v.parameter)
        ? { ...v, place: receiver.place, deviceText: receiver.deviceText, origin: receiver.origin, factory: undefined }
        : v;
    }
    const outer = frame.outer?.get(key);
    if (outer) return outer;
    if (!key.includes('.')) {
      const cls = this.ctx.program.localClass(frame.unit, key);
      if (cls) return classReference(cls);
      const fn = this.ctx.program.localFunction(frame.unit, key);
      if (fn) return value('other', UNTRACKED, { functionId: fn.id });
      const q = this.ctx.program.importsAt(frame.unit).qualifyName(key);
      if (q) return this.imported(frame, q) ?? UNKNOWN;
    }
    return UNKNOWN;
  }

  /** A value another project module defines (`from config import device`, `cfg.device`). */
  private imported(frame: Frame, qualified: string): Value | undefined {
    const member = this.ctx.program.member(frame.unit, qualified);
    if (!member) return legacyTensorType(qualified);
    if (member.kind === 'value') return this.ctx.moduleValue(member.module, member.name);
    if (member.kind === 'class') return classReference(member.cls);
    // `create_net = create_vgg_ssd` of `from vision.ssd import create_vgg_ssd`: a function a call runs.
    return member.kind === 'function' ? value('other', UNTRACKED, { functionId: member.fn.id }) : OTHER;
  }

  /** `self.x` read in a method: the join of what every method left in it (previous round). */
  private classAttribute(className: string, attr: string, unmoved = false): Value {
    const cls = this.ctx.program.classes.get(className);
    const v = this.ctx.previous.lineageAttr(this.ctx.program.classLineage(className), attr) ?? this.inheritedFromTorch(className, attr);
    // Not summarised yet (the first round) though a method assigns it: nothing is known of it
    // yet, and a join keeps what the other path has (`if self.mask is None: self.mask = ...`
    // read after the `if` is that mask, not a value made unknown by the round before it).
    if (!v) return this.assigns([className], attr) ? PENDING : UNKNOWN;
    // `self.heads = [Head(n) ...]` each registered with `self.add_module(...)`: a plain list of
    // submodules that `.to()` moves with the instance.
    // So is a plain list of the instance's own submodules (`self.lins = [self.lin0, self.lin1]`).
    if (cls?.isModule && isContainer(v) && !unmoved && (this.ctx.programFact('module classes registering submodules by name', classesRegisteringByName).has(cls.key) || this.ctx.programFact('lists of their own attributes module classes keep', ownAttributeLists).has(`${cls.key}.${attr}`))) {
      const placed = this.ctx.previous.classPlace(cls.key);
      return withModulesMoved(v, placed ?? value('module', UNTRACKED));
    }
    // Inside an nn.Module the submodules and parameters follow the instance: they are where
    // the program moves its instances (`Net().to(device)`), unknown when it never does.
    if (cls?.isModule && (v.kind === 'module' || (v.kind === 'unknown' && usesAsSubmodule(cls, attr)) || v.parameter)) {
      if (unmoved) return ownPlaceOf(v);
      const placed = this.ctx.previous.classPlace(cls.key);
      if (placed) return { ...v, place: placed.place, deviceText: placed.deviceText, origin: placed.origin, factory: undefined };
      // A model-parallel class: each submodule is where its own construction put it.
      return placesOwnSubmodules(this.ctx, cls.key) ? ownPlaceOf(v) : { ...v, place: UNTRACKED };
    }
    return v;
  }

  private evalAttribute(frame: Frame, node: Node): Value {
    return this.attributeOn(frame, node, undefined);
  }

  /**
   * `obj.attr` where the caller has already evaluated `obj` (a method call's receiver):
   * evaluating it again would make a chain of n method calls cost 2^n.
   */
  attributeOn(frame: Frame, node: Node, recv: Value | undefined): Value {
    const key = dottedKey(node);
    const v = this.attributeValue(frame, node, key, recv);
    return key ? this.withFlag(key, v) : v;
  }

  private attributeValue(frame: Frame, node: Node, key: string | undefined, given: Value | undefined): Value {
    if (key) {
      // `args.cuda` set by the enclosing function (or the module) is read as `use_cuda` would be.
      const self = !!frame.fn?.selfName && key.startsWith(frame.fn.selfName + '.');
      const known = frame.env.get(key) ?? (self ? this.lookup(frame, key) : frame.outer?.get(key));
      if (known && known !== UNKNOWN) return known;
    }
    const q = qualifyInScope(this.ctx.program, frame, node);
    if (q) return this.imported(frame, q) ?? OTHER;
    const obj = field(node, 'object');
    const attr = field(node, 'attribute')?.text ?? '';
    if (!obj) return UNKNOWN;
    const recv = given ?? this.eval(frame, obj);
    return recv.attrs?.get(attr) ?? frameworkAttribute(this.ctx, obj, recv, attr) ?? this.instanceAttribute(recv, attr) ?? this.deviceOfUnknown(frame, obj, recv, attr) ??
      attributeOf(recv, attr, obj.text);
  }

  /**
   * `model.encoder` read from outside the class: a submodule (or parameter) that one of the
   * class's methods assigned is where the instance is; in a class that places its
   * submodules itself, where it put them.
   */
  private instanceAttribute(recv: Value, attr: string): Value | undefined {
    if (recv.kind === 'other' && recv.className) return this.plainInstanceAttribute(recv.className, attr);
    const cls = recv.kind === 'module' && recv.className ? this.ctx.program.classes.get(recv.className) : undefined;
    if (!cls?.isModule) return undefined;
    const v = this.ctx.previous.lineageAttr(this.ctx.program.classLineage(cls.key), attr) ?? this.inheritedFromTorch(cls.key, attr);
    // `model.encoder(x)` where `self.encoder = model_fun()` came from a registry: the class
    // calls it as a submodule, so it is registered and sits where the instance is, as
    // inside the class's own methods (classAttribute).
    const submodule = v?.kind === 'unknown' && v.place === UNTRACKED && usesAsSubmodule(cls, attr);
    // `smoother.device` of a class that keeps `self.device = device`: the device it was given,
    // which no `.to()` of the instance changes (not the module's own place).
    if (v?.kind === 'device') return v;
    if (!v || !((v.kind === 'module' && !v.placeless) || v.parameter || submodule)) return undefined;
    if (placesOwnSubmodules(this.ctx, cls.key)) return submodule ? undefined : ownPlaceOf(v);
    // Where the instance was built is where a move puts its submodules with it.
    return { ...v, kind: submodule ? 'module' : v.kind, place: recv.place, deviceText: recv.deviceText, origin: recv.origin, factory: recv.factory, submoduleOfFactory: !!recv.factory || undefined };
  }

  /** A method of one of `classes` assigns `self.attr` (a taped program fact). */
  private assigns(classes: readonly string[], attr: string): boolean {
    const assigned = this.ctx.programFact('attributes classes assign', classAssignedAttributes);
    return classes.some((name) => assigned.has(`${name}.${attr}`));
  }

  /**
   * `self.encoder` of an `nn.Transformer` subclass, `self.weight` of an `nn.Conv2d` one, that
   * no method of the program's classes assigns: what torch's constructor put there, built
   * with the instance (placed by the callers above, as the class's own layers are).
   */
  private inheritedFromTorch(className: string, attr: string): Value | undefined {
    const kind = this.ctx.program.inheritedTorchAttribute(className, attr);
    if (!kind) return undefined;
    const lineage = this.ctx.program.classLineage(className);
    if (this.assigns(lineage, attr)) return undefined;
    if (kind === 'parameter') return value('tensor', UNTRACKED, { grad: 'yes', parameter: true });
    return value('module', UNTRACKED, { torchClasses: [kind], ...(isPlacelessModuleClass(kind.slice(kind.lastIndexOf('.') + 1)) ? { placeless: true } : {}) });
  }

  /**
   * `agent.actor` of an instance of a plain class of the program (an agent, a trainer): the
   * module its methods left there, where they left it: nothing moves it with the instance.
   */
  private plainInstanceAttribute(className: string, attr: string): Value | undefined {
    const cls = this.ctx.program.classes.get(className);
    if (!cls || cls.isModule) return undefined;
    const lineage = this.ctx.program.classLineage(cls.key);
    const v = this.ctx.previous.lineageAttr(lineage, attr);
    // Not summarised yet (the first round): what the class puts there is known next round.
    if (!v && this.assigns(lineage, attr)) return PENDING;
    return v && v.kind === 'module' && !v.placeless && v.place !== UNTRACKED ? v : undefined;
  }

  /**
   * `model.device` of a value the scope uses as a module or tensor (`model.eval()`) whose
   * place is not known: the device wherever it is, which never mismatches it, rather
   * than "maybe an accelerator" (`args.device` of an options object stays that).
   */
  private deviceOfUnknown(frame: Frame, obj: Node, recv: Value, attr: string): Value | undefined {
    if (attr !== 'device' || recv.kind !== 'unknown' || recv.place !== UNTRACKED) return undefined;
    const key = dottedKey(unparen(obj));
    const evidence = key ? frame.evidence.get(key) : undefined;
    const tensorHere = evidence === 'module' || evidence === 'tensor' || (key !== undefined && frame.testedAsTensor?.has(key));
    return tensorHere ? value('device', UNTRACKED, { deviceText: `${obj.text}.device` }) : undefined;
  }

  private evalSubscript(frame: Frame, node: Node): Value {
    const objNode = field(node, 'value');
    if (!objNode) return UNKNOWN;
    const recv = this.eval(frame, objNode);
    const index = field(node, 'subscript');
    this.checkIndices(frame, node, { node: objNode, value: recv });
    const idx = index ? unparen(index) : undefined;
    if (recv.elements && idx?.type === 'integer') {
      const i = Number(idx.text);
      return recv.elements[i < 0 ? recv.elements.length + i : i] ?? recv.anyElement ?? UNKNOWN;
    }
    if (recv.entries || recv.anyElement) {
      const key = idx?.type === 'string' ? stringLiteralValue(idx) : undefined;
      if (key !== undefined) return recv.entries?.get(key) ?? recv.anyElement ?? UNKNOWN;
      // `losses[k]` with a key not written out: any of the entries, when all are tensors
      // (or all classes that build a module, or all functions and lambdas: `makers[kind]()` runs one of them).
      const held = [...(recv.entries?.values() ?? [])];
      const alike = held.every((v) => v.kind === 'tensor') || held.every((v) => v.buildsModule) || held.every(isCallable);
      if (!recv.anyElement && held.length && alike) return held.reduce((a, b) => joinValues(a, b));
      return recv.anyElement ?? UNKNOWN;
    }
    // `loss.data[0]` on a 0-dim tensor (a full reduction): PyTorch 0.3 gave a Python number,
    // 0.4 and later raise IndexError. Either way it is no tensor to follow.
    if (recv.kind === 'tensor' && recv.scalar) return UNKNOWN;
    if (recv.ndarray) return NDARRAY;
    if (recv.kind === 'tensor') {
      const byKey = !!index && unparen(index).type === 'string';
      const container = byKey ? 'dict' as const : 'list' as const;
      // A part of the collated element, not the whole that may move in place (interpreter.ts elementOf).
      const batch = recv.batch && !recv.batch.container ? { loop: recv.batch.loop, name: recv.batch.name, container } : recv.batch;
      // `outputs[0]["labels"]`: a string key means a mapping of outputs, not a tensor; its
      // entries are where the model is, but some are integer tensors that never require grad.
      const grad = byKey && !recv.batch ? 'unknown' as const : recv.grad;
      // `times[i]` of a 1-dim tensor is 0-dim: it may meet tensors on any device.
      const scalar = idx !== undefined && ((recv.oneDim && this.isInteger(frame, idx)) || this.indexesAnElement(frame, children(node).slice(1)));
      return { ...recv, grad, factory: undefined, scalar: scalar || undefined, oneDim: undefined, elements: undefined, batch };
    }
    // `label[:, 0]` of `label = batch.y.reshape(-1, 2).to(device)`: what was moved and is
    // sliced along two axes is a tensor (a list or dict takes no such index), where it was moved.
    const indices = children(node).slice(1);
    if (recv.kind === 'unknown' && recv.place !== UNTRACKED && recv.origin && indices.length >= 2 && indices.some((p) => p.type === 'slice')) {
      return { ...recv, kind: 'tensor', grad: 'unknown', factory: undefined, scalar: undefined, oneDim: undefined, elements: undefined, entries: undefined, anyElement: undefined, batch: undefined };
    }
    return UNKNOWN;
  }

  /**
   * `table[i, 0]`, `boxes[b, best[k]]`: one integer per axis for two or more axes, the usual way
   * to read one element of a table. The tensor's rank is not known, so the result may be 0-dim,
   * which PyTorch lets meet tensors on any device: no evidence of a mismatch. A slice, a
   * `None`, a list or a tensor of indices among them selects more than one element.
   */
  private indexesAnElement(frame: Frame, indices: readonly Node[]): boolean {
    const parts = indices.length === 1 && unparen(indices[0]).type === 'tuple' ? children(unparen(indices[0])) : indices;
    return parts.length >= 2 && parts.every((p) => this.isIndexNumber(frame, p));
  }

  /** An index that is one number: an int literal, or a name or element read that holds no tensor of several elements. */
  private isIndexNumber(frame: Frame, node: Node): boolean {
    const n = unparen(node);
    if (this.isInteger(frame, n)) return true;
    // `best[k]`: an element of a vector, read syntactically (evaluating it again would report its own indexing twice).
    if (n.type === 'subscript') {
      const inner = field(n, 'subscript');
      return !!inner && (inner.type === 'integer' || inner.type === 'identifier');
    }
    if (n.type !== 'identifier' && n.type !== 'attribute') return false;
    const v = this.eval(frame, n);
    return !v.ndarray && !v.elements && !v.anyElement && (v.kind !== 'tensor' || !!v.scalar) && v.kind !== 'module' && v.kind !== 'loader';
  }

  /** A Python int: a literal, `len(...)`, a `range` loop's variable. */
  private isInteger(frame: Frame, node: Node): boolean {
    const n = unparen(node);
    const literal = n.type === 'unary_operator' ? field(n, 'argument') : n;
    return literal?.type === 'integer' || (n.type === 'identifier' && !!this.eval(frame, n).integer);
  }

  /**
   * `a[idx]` (or `a[idx] = v`): PyTorch's rule is one-sided. An accelerator tensor indexed
   * by a CPU index or mask works; a CPU tensor indexed by an accelerator index or mask
   * raises "indices should be either on cpu or on the same device as the indexed tensor".
   */
  checkIndices(frame: Frame, subscript: Node, indexed: Arg): void {
    for (const idxNode of children(subscript).slice(1)) {
      const idx = this.eval(frame, idxNode);
      const onAccel = (idx.kind === 'tensor' || (idx.kind === 'unknown' && idx.place !== UNTRACKED)) && hasAccel(idx.place) && !idx.scalar;
      if (onAccel && indexed.value.kind === 'tensor' && isExactlyCpu(indexed.value.place) && !indexed.value.scalar) {
        this.ctx.events.tensorOperation(frame, subscript, [indexed, { node: idxNode, value: idx }], 'index');
      }
    }
  }

  private evalBinary(frame: Frame, node: Node): Value {
    const left = field(node, 'left');
    const right = field(node, 'right');
    const op = field(node, 'operator')?.text ?? '';
    if (!left || !right) return UNKNOWN;
    const args = [{ node: left, value: this.eval(frame, left) }, { node: right, value: this.eval(frame, right) }];
    if (!TENSOR_BINARY_OPERATORS.has(op)) return UNKNOWN;
    // `self.layers = self.layers + [Layer().to(device)]`: a list of what both sides hold.
    const joined = op === '+' ? concatenated(args[0].value, args[1].value) : undefined;
    if (joined) return joined;
    const result = this.tensorOperation(frame, node, args);
    // `0.5 * torch.tensor(2.0)`: arithmetic on a 0-dim tensor and a number stays 0-dim.
    const scalar = args.some((a) => a.value.scalar) && args.every((a) => a.value.scalar || !isTensorLike(a.value));
    return scalar ? { ...result, scalar: true } : result;
  }

  private evalComparison(frame: Frame, node: Node): Value {
    const operands = children(node);
    const args = operands.map((n) => ({ node: n, value: this.eval(frame, n) }));
    const operator = args.length === 2 ? node.text.slice(operands[0].endIndex - node.startIndex, operands[1].startIndex - node.startIndex).trim() : '';
    const device = deviceComparison(operator, operands, (n) => this.eval(frame, n));
    if (device !== undefined) return value('other', UNTRACKED, { truth: device, truthByAccelerator: true });
    const flag = flagComparison(operator, operands, args.map((a) => a.value));
    if (flag) return flag;
    const oneDevice = oneDeviceComparison(operator, operands, (callee) => this.ctx.program.importsAt(frame.unit).qualify(callee));
    if (oneDevice !== undefined) return value('other', UNTRACKED, { truth: oneDevice, truthByOneDevice: true });
    if (!/^(==|!=|<|>|<=|>=)$/.test(operator)) return UNKNOWN;
    return { ...this.tensorOperation(frame, node, readAsOneElement(node) ? args.map((a) => this.elementRead(frame, a)) : args), grad: 'no' };
  }

  /** `labels[i]` in a comparison read as one element: one integer index gave one element, a 0-dim tensor. */
  private elementRead(frame: Frame, arg: Arg): Arg {
    const n = unparen(arg.node);
    const index = n.type === 'subscript' ? field(n, 'subscript') : undefined;
    if (arg.value.kind !== 'tensor' || !index || children(n).length !== 2 || !this.isIndexNumber(frame, index)) return arg;
    return { node: arg.node, value: { ...arg.value, scalar: true } };
  }

  /** A torch function, an operator or a parameterless module over tensor arguments. */
  tensorOperation(frame: Frame, node: Node, args: Arg[], role: OperationRole = 'op'): Value {
    const tensors = args.filter((a) => isTensorLike(a.value) && a.value.kind !== 'module');
    if (tensors.length === 0) return args.some((a) => a.value.kind === 'unknown') ? UNKNOWN : OTHER;
    this.ctx.events.tensorOperation(frame, node, tensors, role);
    const result = resultOf(tensors, frame.noGrad > 0);
    // The operation raises there: what follows never sees its value (no cascade of findings);
    // unless only batch elements of a running loop are on the CPU (DD002 moves them all).
    const meetings = operationMeetings(tensors);
    const onlyBatches = meetings.every((m) => m.cpu.value.batch && frame.loops.includes(m.cpu.value.batch.loop));
    return meetings.length && !onlyBatches ? { ...result, place: UNTRACKED, origin: undefined, deviceText: undefined, raised: true } : result;
  }
}

/**
 * `args.cuda > 0`, `use_gpu == True`, `args.cuda is False`: a device flag the world decides,
 * compared with 0, 1 or a boolean, is that flag or its negation.
 */
function flagComparison(operator: string, operands: readonly Node[], values: readonly Value[]): Value | undefined {
  if (operands.length !== 2) return undefined;
  const [flag, literal] = [values[0]!, operands[1]!];
  if (flag.truth === undefined || flag.acceleratorWhen === undefined) return undefined;
  const keeps = comparisonKeepsFlag(operator, literal);
  if (keeps === undefined) return undefined;
  return value('other', UNTRACKED, {
    truth: keeps ? flag.truth : !flag.truth,
    truthByAccelerator: flag.truthByAccelerator,
    acceleratorWhen: keeps ? flag.acceleratorWhen : !flag.acceleratorWhen,
  });
}

/**
 * `device.type == "cuda"`, `str(device) != "cpu"`, `device == torch.device("cpu")`,
 * `self.device == cpu_device`: decided where both sides' places are exact in this world.
 */
function deviceComparison(operator: string, operands: readonly Node[], evaluate: (n: Node) => Value): boolean | undefined {
  const among = operator === 'in' ? true : /^not\s+in$/.test(operator) ? false : undefined;
  if (among !== undefined && operands.length === 2) return deviceAmong(operands[0]!, operands[1]!, evaluate, among);
  const equal = operator === '==' || operator === 'is' ? true : operator === '!=' || operator === 'is not' ? false : undefined;
  if (equal === undefined || operands.length !== 2) return undefined;
  const places = operands.map((n) => exactDevicePlace(n, evaluate));
  if (places[0] === undefined || places[1] === undefined) return undefined;
  return (places[0] === places[1]) === equal;
}

/** `device not in ["cpu"]`, `dev in ("cuda", "cuda:0")`: decided when the device and every listed one are exact. */
function deviceAmong(item: Node, collection: Node, evaluate: (n: Node) => Value, among: boolean): boolean | undefined {
  const list = unparen(collection);
  if (!['list', 'tuple', 'set'].includes(list.type)) return undefined;
  const listed = children(list).map((n) => deviceFromString(n)?.place);
  const place = listed.length > 0 && listed.every((p) => p !== undefined) ? exactDevicePlace(item, evaluate) : undefined;
  return place === undefined ? undefined : listed.includes(place) === among;
}

/** CPU or ACCEL for a device-like operand whose place is exact here; undefined otherwise. */
function exactDevicePlace(node: Node, evaluate: (n: Node) => Value): Place | undefined {
  let n = unparen(node);
  // `device.type` and `str(device)` name the same place as `device`.
  if (n.type === 'attribute' && field(n, 'attribute')?.text === 'type') n = field(n, 'object') ?? n;
  else if (n.type === 'call' && field(n, 'function')?.text === 'str') n = children(field(n, 'arguments') ?? n)[0] ?? n;
  const literal = deviceFromString(n);
  if (literal) return literal.place;
  const v = evaluate(n);
  if (v.kind === 'device' && (v.place === CPU || v.place === ACCEL)) return v.place;
  return undefined;
}

/** `recv.attr` for tensors and modules. */
export function attributeOf(recv: Value, attr: string, recvText: string): Value {
  if (recv.kind === 'tensor' || (recv.kind === 'unknown' && recv.place !== UNTRACKED)) {
    switch (attr) {
      // A view or `.data` of an nn.Parameter is a plain tensor: kept on `self`, it does not move with the module.
      case 'T': case 'mT': case 'H': case 'mH': case 'real': case 'imag':
        return { ...recv, kind: 'tensor', factory: undefined, scalar: undefined, parameter: undefined };
      // `.data` is the same tensor outside autograd: a 0-dim one stays 0-dim.
      case 'data':
        return { ...recv, kind: 'tensor', grad: 'no', factory: undefined, parameter: undefined };
      case 'grad':
        return { ...recv, kind: 'tensor', grad: 'no', factory: undefined, scalar: undefined, parameter: undefined };
      case 'device':
        return value('device', recv.place, { deviceText: `${recvText}.device`, origin: recv.origin });
      case 'is_cuda':
        return recv.place === ACCEL || recv.place === CPU ? value('other', UNTRACKED, { truth: recv.place === ACCEL, truthByAccelerator: true }) : OTHER;
      default:
        // A graph's attributes (`data.x`, `batch.edge_index`) are tensors where the graph is.
        if (recv.graph && !GRAPH_NON_TENSOR_ATTRIBUTES.has(attr)) return { ...recv, kind: 'tensor', graph: undefined, factory: undefined, scalar: undefined };
        return OTHER;
    }
  }
  if (recv.kind === 'module') {
    if (attr === 'module' || attr === '_orig_mod') return recv;
    // `conv.weight`, and a recurrent layer's `weight_ih_l0` / `bias_hh_l0`: parameters where the
    // module is; kept on another module's `self` (`self.k0 = conv0.weight`), registered there.
    if (/^(weight|bias)(_\w+)?$/.test(attr)) return value('tensor', recv.place, { grad: 'yes', origin: recv.origin, deviceText: recv.deviceText, parameter: true });
    if (attr === 'device') return value('device', recv.place, { deviceText: `${recvText}.device` });
  }
  // `device.type` ("cuda", "cpu") names the same place: `x.to(p.device.type)` is a move there.
  if (recv.kind === 'device' && attr === 'type') return recv.place === UNTRACKED ? OTHER : { ...recv, deviceText: `${recvText}.type`, mayBeNone: undefined, isNone: undefined };
  return UNKNOWN;
}

/**
 * `cfg.losses.split(',')`, `text.splitlines()`: the pieces of a string. A tensor's `split`
 * takes a size, never a string separator, and always one argument.
 */
function splitsText(node: Node): boolean {
  const callee = node.type === 'call' ? field(node, 'function') : undefined;
  const method = callee?.type === 'attribute' ? field(callee, 'attribute')?.text : undefined;
  if (method === 'splitlines') return true;
  if (method !== 'split' && method !== 'rsplit') return false;
  const first = callArguments(node).positional[0] ?? callArguments(node).keywords.get('sep');
  return first === undefined || stringLiteralValue(first) !== undefined;
}

/** The names a comprehension's `for` clauses bind. */
function comprehensionTargets(node: Node): Set<string> {
  const names = new Set<string>();
  for (const clause of children(node)) {
    const left = clause.type === 'for_in_clause' ? field(clause, 'left') : null;
    if (!left) continue;
    if (left.type === 'identifier') names.add(left.text);
    else for (const d of descendants(left)) if (d.type === 'identifier') names.add(d.text);
  }
  return names;
}
