// What DD005 needs to know beyond the calls the interpreter evaluates, read from the
// analysed file's text once per analysis (deviceChoice.ts keeps it with the other facts):
// CUDA named where the interpreter never runs (a class body, which runs at import; a
// parameter's default; a `--gpu` option that is on by default), and machinery that only
// CUDA has (streams and events, DDP bound to one GPU per process), which makes a file GPU
// code by design.
import type { Node } from '../python/pyNode';
import { cudaHardcodeIn, isCudaLiteral, underDeviceCondition, type CudaHardcode } from '../python/cudaHardcode';
import { callArguments, children, field, stringLiteralValue } from '../python/syntax';
import { perStatement } from '../python/statementMemo';
import type { ImportTable } from './imports';
import type { Program } from './program';

/** CUDA named outside the interpreted code. */
export type StaticCuda =
  /** `table = torch.ones(3).cuda()` directly in a class body. */
  | { where: 'class body'; unit: number; call: Node; hardcode: CudaHardcode }
  /** `def f(x, device="cuda:0")`: the literal. */
  | { where: 'parameter default'; unit: number; literal: Node }
  /** `add_argument("--gpu", action="store_true", default=True)`: the `True`; `option` is "--gpu". */
  | { where: 'option default'; unit: number; value: Node; option: string };

export interface CudaFacts {
  staticCuda: StaticCuda[];
  /** Why the file is CUDA code by design beyond deviceChoice's `cudaOnly` ("uses CUDA events (`torch.cuda.Event`)"). */
  cudaMachinery?: string;
  /**
   * A call names CUDA outside any condition about the device (`model.cuda()`): the file
   * needs CUDA whatever its `--use_cuda` switch says, so the switch is not its device choice.
   */
  cudaAnyway?: Node;
}

/** Parameters that take a device, as deviceChoice reads them. */
export const DEVICE_PARAMETER = /^(device|dev|map_location)$|_device$/;

/** An option that turns the GPU on: `--gpu`, `--cuda`, `--use_cuda`, `--use-gpu` (not `--no-cuda`, not `--gpu-id`). */
export const GPU_SWITCH = /^--?(use[-_])?(cuda|gpus?)$/;

/** CUDA's own execution machinery: a file that schedules work on streams or times it with events runs on CUDA by design. */
const CUDA_MACHINERY = /^torch\.cuda\.(Stream|ExternalStream|Event|stream|set_stream|current_stream|default_stream|StreamContext)$/;

/** DDP given the GPU of each process (`device_ids=[args.gpu]`): one process per GPU, so the training needs CUDA by design. */
const DDP = /^torch\.nn\.parallel\.(distributed\.)?DistributedDataParallel$/;

const SCOPES = new Set(['function_definition', 'class_definition', 'lambda']);

export function readCudaFacts(program: Program): CudaFacts {
  const facts: CudaFacts = { staticCuda: [] };
  for (const unit of program.modules[0].units) {
    const imports = program.importsAt(unit.index);
    for (const found of perStatement(unit.root, `cudaFacts ${unit.index} ${imports.signature()}`, (statement) => cudaFactsIn(statement, unit.index, imports))) {
      facts.staticCuda.push(...found.staticCuda);
      facts.cudaAnyway ??= found.cudaAnyway;
      facts.cudaMachinery ??= found.cudaMachinery;
    }
  }
  facts.staticCuda.sort((a, b) => a.unit - b.unit || nodeOf(a).startIndex - nodeOf(b).startIndex);
  return facts;
}

function cudaFactsIn(statement: Node, unit: number, imports: ImportTable): CudaFacts {
  const facts: CudaFacts = { staticCuda: [] };
  const stack: Array<{ node: Node; scope: string | undefined }> = [{ node: statement, scope: undefined }];
  while (stack.length) {
    const { node, scope } = stack.pop()!;
    if (node.type === 'call') {
      const callee = field(node, 'function');
      const q = callee ? imports.qualify(callee) : undefined;
      const found = cudaHardcodeIn(node, q);
      if (found && scope === 'class_definition') facts.staticCuda.push({ where: 'class body', unit, call: node, hardcode: found });
      if (found && !underDeviceCondition(node)) facts.cudaAnyway ??= node;
      if (q && DDP.test(q) && callArguments(node).keywords.has('device_ids')) facts.cudaMachinery ??= 'runs one process per GPU (`DistributedDataParallel` with `device_ids`)';
      const option = gpuSwitchOnByDefault(node);
      if (option) facts.staticCuda.push({ where: 'option default', unit, ...option });
    } else if ((node.type === 'attribute' || node.type === 'identifier') && !isObjectOfAttribute(node)) {
      const q = imports.qualify(node);
      if (q && CUDA_MACHINERY.test(q)) facts.cudaMachinery ??= `uses CUDA streams or events (\`${q}\`)`;
    } else if (node.type === 'default_parameter' || node.type === 'typed_default_parameter') {
      const name = field(node, 'name');
      const value = field(node, 'value');
      // `device="cuda"`, and `device=torch.device("cuda")` (the whole default stands for it).
      const built = value?.type === 'call' && field(value, 'function') ? cudaHardcodeIn(value, imports.qualify(field(value, 'function')!)) : undefined;
      const cuda = isCudaLiteral(value) || (built?.kind === 'literal' && built.deviceCall);
      if (name && DEVICE_PARAMETER.test(name.text) && value && cuda) facts.staticCuda.push({ where: 'parameter default', unit, literal: value });
    }
    const inner = SCOPES.has(node.type) ? node.type : scope;
    for (const c of children(node)) if (c.type !== 'comment') stack.push({ node: c, scope: c.type === 'block' ? inner : scope });
  }
  return facts;
}

/** The node a finding about `s` spans. */
export function nodeOf(s: StaticCuda): Node {
  return s.where === 'class body' ? s.call : s.where === 'parameter default' ? s.literal : s.value;
}

/** `parser.add_argument("--cuda", action="store_true", default=True)`, click's `option("--gpu", is_flag=True, default=True)`. */
function gpuSwitchOnByDefault(call: Node): { value: Node; option: string } | undefined {
  const callee = field(call, 'function');
  const method = callee?.type === 'attribute' ? field(callee, 'attribute')?.text : undefined;
  if (method !== 'add_argument' && method !== 'option') return undefined;
  const args = callArguments(call);
  const option = args.positional.map((a) => stringLiteralValue(a)).find((s) => s !== undefined && GPU_SWITCH.test(s));
  const value = args.keywords.get('default');
  return option && value?.type === 'true' ? { value, option } : undefined;
}

/** `a.b` inside `a.b.c`: only the whole dotted name is qualified (once, not once per part of a long chain). */
function isObjectOfAttribute(node: Node): boolean {
  return node.parent?.type === 'attribute' && field(node.parent, 'object')?.id === node.id;
}
