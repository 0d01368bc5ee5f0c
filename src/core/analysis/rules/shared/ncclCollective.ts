// `dist.all_reduce(t)` of a CPU tensor in a file whose process group is NCCL's: NCCL only
// takes CUDA tensors, so the collective raises ("Tensors must be CUDA and dense"; PyTorch 2:
// "No backend type associated with device type cpu"), the bug behind many a metric that is
// summed across ranks. Only on evidence: the file names the "nccl" backend and never
// "gloo" (a file that picks gloo for CPU runs, or keeps a gloo group for CPU tensors, is
// fine), and the call names no group of its own.
import type { Node } from '../../../python/pyNode';
import { callArguments, children, dottedKey, stringLiteralValue, unparen } from '../../../python/syntax';
import type { RuleFrame as Frame, RuleHost } from '../../ruleApi';
import type { ProgramView as Program } from '../../ruleApi';
import { DISTRIBUTED_COLLECTIVES } from '../../torchApi';
import { containedValues, isExactlyCpu, Located, Value } from '../../values';


export interface CpuTensorToNccl {
  tensor: Node;
  value: Value;
  /** The collective's name as written (`dist.all_reduce`). */
  collective: string;
  /** The "nccl" string that names the backend. */
  backend: Located;
}

export function cpuTensorToNccl(host: RuleHost, frame: Frame, call: Node, qualified: string | undefined): CpuTensorToNccl | undefined {
  if (!qualified || !DISTRIBUTED_COLLECTIVES.has(qualified)) return undefined;
  const args = callArguments(call);
  if (args.keywords.has('group') || args.hasSplat || args.positional.some((a) => /group|\bpg\b/i.test(a.text))) return undefined;
  // A taped fact, not a read of the file's text: a run that asked can still be replayed after an edit.
  const backend = host.programFact('DD001 the nccl backend string', ncclBackend);
  if (!backend) return undefined;
  const candidates = [...args.positional.slice(0, 2), args.keywords.get('tensor'), args.keywords.get('tensor_list')];
  for (const node of candidates) {
    const key = node && dottedKey(unparen(node));
    const v = key ? frame.env.get(key) ?? frame.outer?.get(key) : undefined;
    if (!node || !v) continue;
    const tensors = v.kind === 'tensor' ? [v] : containedValues(v).filter((e) => e.kind === 'tensor');
    const cpu = tensors.find((t) => isExactlyCpu(t.place) && !t.scalar && !t.param);
    if (cpu) return { tensor: node, value: cpu, collective: call.namedChildren[0]?.text ?? qualified, backend };
  }
  return undefined;
}

/** The analysed file's "nccl" string, when it names no "gloo" anywhere; null when none. */
function ncclBackend(program: Program): Located | null {
  const units = program.units.filter((u) => u.module === 0);
  if (units.some((u) => /gloo/i.test(u.source)) || !units.some((u) => /["']nccl["']/.test(u.source))) return null;
  for (const u of units) {
    const hit = findString(u.root, 'nccl');
    if (hit) return { unit: u.index, node: hit };
  }
  return null;
}

function findString(root: Node, text: string): Node | undefined {
  const stack = [root];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.type === 'string' && stringLiteralValue(n) === text) return n;
    stack.push(...[...children(n)].reverse());
  }
  return undefined;
}
