// DD020's premise: rebuilding a device from `is_cuda` ("cuda" or "cpu") goes wrong only for
// a tensor on another device than the CPU and the current GPU. Whether the program can put
// one there is read from its device choices. It can when it asks for Apple's MPS or an XPU,
// names a GPU by index (`"cuda:1"`, `torch.device("cuda", rank)`, `x.cuda(gpu)`), runs one
// process per GPU, or lets the user name the device (`--device cuda:1`); and when it makes
// no choice at all, being a helper given its tensors by callers it does not show. A program
// whose own choice is only CUDA-or-CPU (`"cuda" if torch.cuda.is_available() else "cpu"`)
// gets its device back exactly, and the rule stays silent there.
import { perStatement } from '../../../python/statementMemo';
import type { Node } from '../../../python/pyNode';
import { callArguments, children, field, stringLiteralValue, unparen } from '../../../python/syntax';
import type { DeviceChoice, ProgramView } from '../../ruleApi';

/** `x.is_cuda` or `not x.is_cuda`: the tensor (or parameter) asked, and whether the answer is negated. */
export function isCudaQuestion(condition: Node): { subject: Node; negated: boolean } | undefined {
  let n = unparen(condition);
  let negated = false;
  if (n.type === 'not_operator') {
    const arg = field(n, 'argument');
    if (!arg) return undefined;
    n = unparen(arg);
    negated = true;
  }
  if (n.type !== 'attribute' || field(n, 'attribute')?.text !== 'is_cuda') return undefined;
  const subject = field(n, 'object');
  return subject ? { subject, negated } : undefined;
}

/** What the program's device choices allow: a device `is_cuda` misses (with why), or only CUDA-or-CPU. */
interface Choices {
  beyond?: string;
  cudaOrCpu: boolean;
}

/**
 * Why the program can hold a tensor whose device `is_cuda` does not rebuild ("asks for
 * Apple's MPS"), or '' when its own choices are only CUDA or the CPU. A string, so that a
 * replayed run can compare it (programFacts.ts).
 */
export function isCudaMisses(program: ProgramView, choice: DeviceChoice): string {
  if (choice.asksMps) return 'asks for Apple\'s MPS or another accelerator';
  if (choice.distributed) return 'runs one process per GPU';
  if (choice.deviceOption && !isSwitch(choice.deviceOption)) return 'lets the user name the device';
  const found: Choices = { cudaOrCpu: choice.availabilityCheck !== undefined || choice.cudaOnly !== undefined };
  for (const unit of program.units) {
    // Per top-level statement, kept while the statement is (statementMemo.ts): a keystroke walks only the edited one.
    const parts = perStatement(unit.root, `DD020 choices ${unit.index} ${program.importsAt(unit.index).signature()}`, (statement) => {
      const part: Choices = { cudaOrCpu: false };
      readChoices(program, unit.index, statement, part);
      return part;
    });
    for (const part of parts) {
      if (part.beyond) return part.beyond;
      found.cudaOrCpu ||= part.cudaOrCpu;
    }
  }
  return found.cudaOrCpu ? '' : 'chooses no device itself, so its callers may use any';
}

/** `add_argument("--cuda", action="store_true")`, click's `is_flag=True`: a yes/no, CUDA or the CPU. */
function isSwitch(option: Node): boolean {
  const args = callArguments(option);
  const action = args.keywords.get('action');
  const flag = args.keywords.get('is_flag');
  return (action !== undefined && /^store_(true|false)$/.test(stringLiteralValue(action) ?? '')) || flag?.text === 'True';
}

const ANOTHER_DEVICE = /^(mps|xpu)(:\d+)?$|^cuda:0*[1-9]\d*$/;
const CUDA_OR_CPU = /^(cuda(:0+)?|cpu)$/;
/** `f"cuda:{rank}"`: a GPU chosen by a computed index. */
const COMPUTED_INDEX = /^[rRbBuU]?[fF][rR]?("|')+(cuda|xpu|mps):\{/;

/** The device literals and calls under `root`, the `is_cuda` rebuilds themselves excepted. */
function readChoices(program: ProgramView, unit: number, root: Node, found: Choices): void {
  const stack: Node[] = [root];
  while (stack.length && !found.beyond) {
    const n = stack.pop()!;
    if (n.type === 'conditional_expression' && isCudaQuestion(children(n)[1] ?? n)) continue;
    if (n.type === 'string') {
      const literal = stringLiteralValue(n);
      if (literal !== undefined && ANOTHER_DEVICE.test(literal)) found.beyond = `names the device "${literal}"`;
      else if (literal === undefined && COMPUTED_INDEX.test(n.text)) found.beyond = 'names a GPU by a computed index';
      else if (literal !== undefined && CUDA_OR_CPU.test(literal)) found.cudaOrCpu = true;
      continue;
    }
    if (n.type === 'call') readCall(program, unit, n, found);
    stack.push(...children(n));
  }
}

/**
 * `torch.device("cuda", i)`, `x.cuda(gpu)`, `torch.xpu...`: choices no literal shows.
 * `torch.device(cfg.device)` says nothing either way: what it is given is read elsewhere.
 */
function readCall(program: ProgramView, unit: number, call: Node, found: Choices): void {
  const callee = field(call, 'function');
  if (!callee) return;
  const args = callArguments(call);
  const q = program.importsAt(unit).qualify(callee);
  const method = callee.type === 'attribute' ? field(callee, 'attribute')?.text : undefined;
  const index = q === 'torch.device' ? args.positional[1] ?? args.keywords.get('index')
    : q === 'torch.cuda.device' || (q === undefined && method === 'cuda') ? args.positional[0] ?? args.keywords.get('device')
      : undefined;
  if (index && !/^0+$/.test(index.text)) found.beyond = `chooses a GPU by index (\`${index.text}\`)`;
  else if (q?.startsWith('torch.xpu.')) found.beyond = 'asks for an XPU';
  else if (method === 'cuda') found.cudaOrCpu = true;
}
