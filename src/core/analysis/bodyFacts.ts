// What the interpreter reads of another function's text without interpreting it: whether it
// moves tensors (a collate_fn), which parameters it moves in place, whether it is a
// generator. Named facts, so that a taped run depends on the fact and not on every
// character of the body (runCache.ts): typing in a collate_fn that still moves its batches
// changes nothing for the loop that uses it.
import type { Node } from '../python/pyNode';
import { bodyNodes, callArguments, descendants, field, unparen } from '../python/syntax';
import type { FunctionInfo } from './program';
import { DTYPE_NAMES } from './torchApi';

export type BodyFact = 'movesTensors' | 'placesOnDevice' | 'movedParams' | 'generator' | 'setsSelf' | 'layerInputs' | 'placingParams';

/** A collate function (or lambda) that moves what it returns. */
export const MOVES_TENSORS = /\.(to|cuda)\s*\(|\bdevice\s*=/;

/** A definition never changes (trees are shared; an edited one is a new node): each fact of it is read once. */
const KNOWN = new WeakMap<object, Map<BodyFact, boolean | string>>();

export function bodyFact(fn: FunctionInfo, fact: BodyFact): boolean | string {
  let known = KNOWN.get(fn.node);
  if (!known) KNOWN.set(fn.node, (known = new Map()));
  let v = known.get(fact);
  if (v === undefined) known.set(fact, (v = readBodyFact(fn, fact)));
  return v;
}

function movesIt(name: string, text: string): boolean {
  return new RegExp(`\\b${name}\\.(to|cuda|cpu)\\(`).test(text);
}

function readBodyFact(fn: FunctionInfo, fact: BodyFact): boolean | string {
  const text = fn.body.text;
  switch (fact) {
    case 'movesTensors': return MOVES_TENSORS.test(text);
    case 'placesOnDevice': return MOVES_TENSORS.test(text) && descendants(fn.body).some(placesOnDevice);
    case 'generator': return /\byield\b/.test(text);
    // The parameters whose `.to(` / `.cuda(` / `.cpu(` the body calls, in order, as one string.
    // Also one whose items a loop moves: `for m in models: m.to(device)`, `[x.to(d) for x in args]`.
    case 'movedParams': return fn.params.filter((p) => movesIt(p.name, text) || [...text.matchAll(new RegExp(`\\bfor\\s+(\\w+)\\s+in\\s+${p.name}\\b`, 'g'))].some((m) => movesIt(m[1], text))).map((p) => p.name).join(' ');
    // Where a method hands its parameters to its own layers, as one string of
    // `attr:position:param` (`self.lstm(x, state)`: `lstm:0:x lstm:1:state`).
    case 'layerInputs': return fn.selfName ? layerInputsOf(fn, fn.selfName) : '';
    // The parameters the body hands on as a device (`attempt_load(w, device=device)`,
    // `torch.load(f, map_location=dev)`, `self.to(device)`), itself or as the attribute it
    // keeps it in (`self.device = device` then `self.to(self.device)`), as one string: a
    // constructor that places what it builds there. Not `self.device = device` alone, which
    // only keeps it.
    case 'placingParams': return fn.params.filter((p) => p.name !== fn.selfName &&
      [p.name, ...keptAs(p.name, fn.selfName, text)].some((spelled) => handsOnAsDevice(spelled, text))).map((p) => p.name).join(' ');
    // A method that leaves something in its instance: an attribute assigned (`self.w = …`,
    // `self.w += …`, `setattr(self, …)`), registered or moved with the instance.
    case 'setsSelf': return !!fn.selfName && new RegExp(
      `\\b${fn.selfName}\\.\\w+\\s*(\\[[^\\]\\n]*\\]\\s*)?(:[^=\\n]*)?([-+*/@%&|^]|\\*\\*|//|<<|>>)?=(?!=)|\\b${fn.selfName}\\.(to|cuda|cpu|half|float|double|bfloat16|apply|register_buffer|register_parameter|register_module|add_module)\\s*\\(|\\bsetattr\\s*\\(\\s*${fn.selfName}\\b`,
    ).test(text);
  }
}

/** `name` (a regular expression) given as a device: `device=name`, `map_location=name`, `.to(name)`, `.cuda(name)`. */
function handsOnAsDevice(name: string, text: string): boolean {
  return new RegExp(`[(,]\\s*(device|map_location)\\s*=\\s*${name}\\s*[,)]|\\.(to|cuda)\\(\\s*${name}\\s*[,)]`).test(text);
}

/** The attributes of `self` a method sets to the parameter as it is (`self.device = device`), as expressions. */
function keptAs(param: string, self: string | undefined, text: string): string[] {
  if (!self) return [];
  return [...text.matchAll(new RegExp(`\\b${self}\\.(\\w+)\\s*=\\s*${param}\\s*$`, 'gm'))].map((m) => `${self}\\.${m[1]}`);
}

/** The calls `self.<attr>(...)` in a method's body given one of its parameters as it is. */
function layerInputsOf(fn: FunctionInfo, self: string): string {
  const params = new Set(fn.params.map((p) => p.name));
  const found: string[] = [];
  for (const n of bodyNodes(fn.body)) {
    const callee = n.type === 'call' ? field(n, 'function') : null;
    const object = callee?.type === 'attribute' ? field(callee, 'object') : null;
    const attr = object?.type === 'identifier' && object.text === self ? field(callee!, 'attribute')?.text : undefined;
    if (!attr) continue;
    callArguments(n).positional.forEach((arg, position) => {
      const bare = unparen(arg);
      if (bare.type === 'identifier' && params.has(bare.text)) found.push(`${attr}:${position}:${bare.text}`);
    });
  }
  return found.join(' ');
}

/** `movedParams`, `layerInputs` or `placingParams` as a set. */
export function movedParamsOf(value: boolean | string): Set<string> {
  return new Set(typeof value === 'string' && value !== '' ? value.split(' ') : []);
}

/**
 * A call that puts a tensor on a device: `.cuda()`, `.to(device)`, `device=` given to a
 * factory. Not a cast (`.to(torch.float)`, `.to(x.dtype)`, `.to(memory_format=...)`).
 */
function placesOnDevice(n: Node): boolean {
  if (n.type !== 'call') return false;
  const args = callArguments(n);
  if (args.keywords.has('device')) return unparen(args.keywords.get('device')!).type !== 'none';
  const callee = field(n, 'function');
  const method = callee?.type === 'attribute' ? field(callee, 'attribute')?.text : undefined;
  if (method === 'cuda') return true;
  if (method !== 'to') return false;
  const first = args.positional[0];
  return !!first && !isDtype(unparen(first));
}

function isDtype(n: Node): boolean {
  if (n.type !== 'identifier' && n.type !== 'attribute') return false;
  const last = n.text.slice(n.text.lastIndexOf('.') + 1);
  return /dtype$/i.test(last) || (n.type === 'attribute' && DTYPE_NAMES.has(last));
}
