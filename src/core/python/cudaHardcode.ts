// Where a call names CUDA as its device, read from the syntax alone: `.cuda()`,
// `torch.device("cuda")`, `device="cuda:0"`, `.to("cuda")`. The analysis's DD005 judges
// the calls it interprets with this, and deviceChoice the code it never interprets
// (class bodies, which run at import).
import type { Node } from './pyNode';
import { callArguments, children, field, stringLiteralValue } from './syntax';

const CUDA_STRING = /^cuda(:\d+)?$/;

/**
 * What in a call hard-codes CUDA: the `.cuda` method, a "cuda" literal given as a device, or
 * a legacy CUDA tensor type called as a constructor (`torch.cuda.FloatTensor(values)`).
 */
export type CudaHardcode = { kind: 'method'; attr: Node } | { kind: 'literal'; literal: Node; deviceCall: boolean } | { kind: 'tensorType' };

/** `torch.cuda.FloatTensor`, `torch.cuda.LongTensor`, …: each makes its tensor on the current GPU. */
const CUDA_TENSOR_TYPE = /^torch\.cuda\.[A-Z][A-Za-z]*Tensor$/;

export function isCudaLiteral(node: Node | null | undefined): node is Node {
  const s = node ? stringLiteralValue(node) : undefined;
  return s !== undefined && CUDA_STRING.test(s);
}

/** `qualified` is the callee resolved through the imports (`torch.device`), undefined for a method or local callee. */
export function cudaHardcodeIn(call: Node, qualified: string | undefined): CudaHardcode | undefined {
  const callee = field(call, 'function');
  if (!callee) return undefined;
  const args = callArguments(call);
  const keyword = args.keywords.get('device');
  if (isCudaLiteral(keyword)) return { kind: 'literal', literal: keyword, deviceCall: false };
  if (qualified === 'torch.device') return isCudaLiteral(args.positional[0]) ? { kind: 'literal', literal: args.positional[0], deviceCall: true } : undefined;
  if (qualified && CUDA_TENSOR_TYPE.test(qualified)) return { kind: 'tensorType' };
  const attr = callee.type === 'attribute' ? field(callee, 'attribute') : null;
  if (!attr || qualified?.startsWith('torch')) return undefined;
  if (attr.text === 'cuda') return { kind: 'method', attr };
  if (attr.text === 'to' && isCudaLiteral(args.positional[0])) return { kind: 'literal', literal: args.positional[0], deviceCall: false };
  return undefined;
}

/** A condition that asks about the GPU or the device option: `if self.gpus > 0:`, `if args.cuda:`, `x if use_cuda else y`. */
const DEVICE_CONDITION = /\b\w*(cuda|gpus?|device|accelerator)\w*\b/i;

/** In the branch taken when such a condition holds (within its function): the code chooses CUDA at run time there. */
export function underDeviceCondition(node: Node): boolean {
  for (let child = node, n = node.parent; n; child = n, n = n.parent) {
    if (n.type === 'function_definition' || n.type === 'class_definition') return false;
    const condition = n.type === 'if_statement' || n.type === 'elif_clause' || n.type === 'conditional_expression'
      ? (n.type === 'conditional_expression' ? children(n)[1] : field(n, 'condition')) : null;
    if (condition && condition.id !== child.id && DEVICE_CONDITION.test(condition.text)) return true;
  }
  return false;
}
