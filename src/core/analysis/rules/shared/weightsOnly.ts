// What a `torch.load` result holds beyond tensors, read from how the code uses it. From
// PyTorch 2.6 `torch.load` defaults to `weights_only=True`, which refuses everything but
// tensors, numbers, strings and plain containers: a whole pickled model (used as one:
// `.eval()`, `model(x)`) or an argparse Namespace (`ckpt["args"]`) raises
// "Weights only load failed".
import type { Node } from '../../../python/pyNode';
import { children, field, stringLiteralValue } from '../../../python/syntax';

/** Methods only a module has: the loaded object is a pickled model. */
const MODULE_METHODS = new Set(['eval', 'train', 'parameters', 'named_parameters', 'modules', 'children', 'state_dict', 'forward']);

/** Checkpoint keys that hold a pickled object in the usual recipes (argparse/omegaconf options). */
const OBJECT_KEYS = new Set(['args', 'opt', 'opts', 'hparams', 'hyper_parameters', 'cfg', 'config_obj']);

export type LoadedObject = { kind: 'model'; use: Node } | { kind: 'options'; use: Node };

/** The use of `load`'s result that shows it holds a pickled object, if any. */
export function pickledObjectIn(load: Node): LoadedObject | undefined {
  // `torch.load(p).eval()`, `torch.load(p)["args"]`
  const direct = useOf(load, load);
  if (direct) return direct;
  const assignment = load.parent?.type === 'assignment' ? load.parent : undefined;
  const target = assignment && field(assignment, 'right')?.id === load.id ? field(assignment, 'left') : null;
  if (!target || (target.type !== 'identifier' && target.type !== 'attribute')) return undefined;
  const scope = enclosingScope(load);
  const stack: Node[] = [scope];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.startIndex > load.endIndex && n.type === target.type && n.text === target.text) {
      const found = useOf(n, load);
      if (found) return found;
    }
    for (const c of children(n)) if (c.type !== 'function_definition' && c.type !== 'class_definition') stack.push(c);
  }
  return undefined;
}

/** `x.eval()`, `x(inp)`, `x["args"]` where `x` is `node`. */
function useOf(node: Node, load: Node): LoadedObject | undefined {
  const p = node.parent;
  if (!p) return undefined;
  if (p.type === 'attribute' && field(p, 'object')?.id === node.id && MODULE_METHODS.has(field(p, 'attribute')?.text ?? '') && p.parent?.type === 'call') {
    return { kind: 'model', use: p.parent };
  }
  if (p.type === 'call' && field(p, 'function')?.id === node.id && node.id !== load.id) return { kind: 'model', use: p };
  if (p.type === 'subscript' && field(p, 'value')?.id === node.id) {
    const key = field(p, 'subscript');
    const text = key ? stringLiteralValue(key) : undefined;
    if (text !== undefined && OBJECT_KEYS.has(text)) return { kind: 'options', use: p };
  }
  return undefined;
}

function enclosingScope(node: Node): Node {
  let n = node.parent;
  while (n && n.type !== 'function_definition' && n.type !== 'module') n = n.parent;
  return (n?.type === 'function_definition' ? field(n, 'body') : n) ?? node;
}
