// Project modules whose code refuses CPU tensors: `if not x.is_cuda: raise NotImplementedError`
// in a custom autograd Function or op wrapper around a compiled CUDA kernel (a deformable
// convolution, a fused activation). A file that imports one exercises GPU-only kernels: its
// `.cuda()` calls are what the kernels require, not a portability slip, and a CPU fallback
// would only reach the `raise` (DD005 stays quiet, as for a file that uses CUDA streams).
import type { Node } from '../python/pyNode';
import { children, field } from '../python/syntax';
import { perStatement } from '../python/statementMemo';
import type { Program } from './program';

/** Why the analysed file is GPU code by design: the first project module it imports that refuses CPU tensors. */
export function importsCudaOnlyKernels(program: Program): string | undefined {
  const analysed = program.modules[0];
  if (!analysed) return undefined;
  for (const [name, index] of analysed.linked) {
    const module = program.modules[index];
    if (module && module.units.some((unit) => perStatement(unit.root, 'refuses CPU tensors', refusesCpuTensors).some(Boolean))) {
      return `imports ${name}, whose kernels refuse CPU tensors`;
    }
  }
  return undefined;
}

/** A guard in `statement` that raises (or asserts) unless a tensor is on CUDA. */
function refusesCpuTensors(statement: Node): boolean {
  const stack: Node[] = [statement];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.type === 'assert_statement' && children(n).some(isCudaTest)) return true;
    if (n.type === 'if_statement') {
      const condition = field(n, 'condition');
      const body = field(n, 'consequence');
      if (condition && body && isNotCudaTest(condition) && children(body).some((s) => s.type === 'raise_statement')) return true;
    }
    stack.push(...children(n));
  }
  return false;
}

/** `x.is_cuda`, `x.is_cuda and y.is_cuda`, `x.device.type == "cuda"`. */
function isCudaTest(n: Node): boolean {
  if (n.type === 'parenthesized_expression') return children(n).some(isCudaTest);
  if (n.type === 'boolean_operator') return children(n).every((c) => c.type === 'and' || isCudaTest(c));
  if (n.type === 'attribute') return field(n, 'attribute')?.text === 'is_cuda';
  return n.type === 'comparison_operator' && /\.device\.type\s*==\s*["']cuda["']$/.test(n.text);
}

/** `not x.is_cuda`, `not (a.is_cuda and b.is_cuda)`, `x.device.type != "cuda"`. */
function isNotCudaTest(n: Node): boolean {
  if (n.type === 'parenthesized_expression') return children(n).some(isNotCudaTest);
  if (n.type === 'not_operator') {
    const operand = field(n, 'argument');
    return !!operand && isCudaTest(operand);
  }
  if (n.type === 'boolean_operator') return children(n).some((c) => c.type !== 'and' && c.type !== 'or' && isNotCudaTest(c));
  return n.type === 'comparison_operator' && /\.device\.type\s*!=\s*["']cuda["']$/.test(n.text);
}
