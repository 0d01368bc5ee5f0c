// How the analysed file (or notebook) chooses its device, read once from its text: does it
// ask whether an accelerator is there, is it written for CUDA only, does it take its device
// from configuration, does it run one process per GPU? Rules that judge hard-coded or
// unguarded CUDA (DD005, DD011, DD013) and DataParallel (DD014) decide by these facts:
// the same `.cuda()` is a portability bug in a tutorial script and the point of a Triton
// kernel's test.
import type { Node } from '../python/pyNode';
import { isCudaLiteral } from '../python/cudaHardcode';
import { callArguments, children, field, stringLiteralValue, unparen } from '../python/syntax';
import { DEVICE_PARAMETER, GPU_SWITCH, readCudaFacts, type StaticCuda } from './cudaFacts';
import { importsCudaOnlyKernels } from './cudaOnlyKernels';
import type { ImportTable } from './imports';
import type { Program } from './program';
import { noticedProgram } from './runCache';

export interface DeviceChoice {
  /** A place where the file asks whether an accelerator is present (`torch.cuda.is_available`). */
  availabilityCheck?: Node;
  /** Why the file needs CUDA by design ("imports triton"), when it does. */
  cudaOnly?: string;
  /** The file also runs one process per device (`DistributedDataParallel`, FSDP): a DataParallel there is a chosen fallback. */
  distributed?: Node;
  /** Where the program writes checkpoints itself (`torch.save`, or a project helper that calls it): it reads back its own. */
  savesCheckpoints?: Node;
  /** Why the device is chosen when the code runs ("checks availability", "takes a --device option"), when it is. */
  runTimeChoice?: string;
  /** That choice is a file's that imports this one: the code under `if __name__ == "__main__":` here is not theirs to run. */
  choiceByImporter?: boolean;
  /**
   * "takes a --gpu option" (`--gpu`, `--cuda`, `--use_cuda`): a run-time choice only where the
   * file's CUDA calls follow it. Beside an unconditional `.cuda()` (`cudaAnyway`) it picks
   * which GPU (`--gpu 0` for CUDA_VISIBLE_DEVICES), not whether one is used.
   */
  gpuSwitchChoice?: string;
  /** Where the file asks about Apple's GPU or any accelerator (`torch.backends.mps.is_available`, `torch.accelerator`): DD024. */
  asksMps?: Node;
  /** The unit (a notebook's cell) `asksMps` is in. */
  asksMpsUnit?: number;
  /** Where the file names `nn.DataParallel`, whose replicas copy a module's attributes: DD021. */
  dataParallel?: Node;
  /** A command-line option that chooses the device (`--device`, `--no-cuda`): DD005. */
  deviceOption?: Node;
  /** A parameter that takes the device and does not default to CUDA: DD005. */
  deviceParameter?: Node;
  /** CUDA named where the interpreter never runs (cudaFacts.ts): DD005. */
  staticCuda?: StaticCuda[];
  /** Why the file is CUDA code by design beyond `cudaOnly`, which DD011 does not take ("uses CUDA streams or events"): DD005. */
  cudaMachinery?: string;
  /** A call that names CUDA outside any condition about the device (cudaFacts.ts): DD005. */
  cudaAnyway?: Node;
}

const MPS_CHECKS = /^torch\.(backends\.mps\.is_(available|built)|mps\.is_available|accelerator\.(is_available|current_accelerator))$/;
const DATA_PARALLEL = /^torch\.nn\.(parallel\.(data_parallel\.)?)?DataParallel$/;

/** Names whose use asks whether an accelerator is there, whether called or passed along. */
const AVAILABILITY_CHECKS = new Set([
  'torch.cuda.is_available', 'torch.cuda.device_count', 'torch.backends.mps.is_available', 'torch.backends.mps.is_built',
  'torch.mps.is_available', 'torch.xpu.is_available', 'torch.accelerator.is_available', 'torch.accelerator.current_accelerator',
]);

/** One process per device: what PyTorch recommends over DataParallel. */
const DISTRIBUTED_WRAPPERS = /^torch\.(nn\.parallel\.(distributed\.)?DistributedDataParallel|distributed\.fsdp\.(fully_sharded_data_parallel\.)?FullyShardedDataParallel|distributed\.fsdp\.fully_shard|distributed\._composable\.fsdp\.fully_shard)$/;

/** Libraries that only run on NVIDIA GPUs: a file importing one is CUDA code by design. */
const CUDA_ONLY_LIBRARIES = /^(numba\.cuda|(?!torch\.)([\w.]*\.)?(?!(to|is|use|has|on|as|move\w*|\w+_to)_cuda\b)(\w+_cuda|cuda_\w+)|triton|apex|cupy|pycuda|flash_attn|xformers|transformer_engine|msamp|megatron|unsloth|tensorrt|torch_tensorrt|nvidia\.dali|torch\.utils\.cpp_extension|torch\.cuda\.nvtx)(\.|$)/;

/** Calls that bind a process to one GPU (DDP launchers) or need one to exist. */
const CUDA_ONLY_CALLS = new Set(['torch.cuda.set_device', 'torch.cuda.CUDAGraph', 'torch.cuda.graph', 'torch.cuda.make_graphed_callables']);

/** Command-line options that let the user choose the device: `--device`, `--cuda`, `--no-cuda`, `--gpu`. */
const DEVICE_OPTION = /^--?(no[-_])?(cuda|gpus?|device|accel(erator)?|mps|cpu|use[-_](cuda|gpu|mps|cpu))$/;

const cache = new WeakMap<Program, DeviceChoice>();

export function deviceChoiceOf(program: Program): DeviceChoice {
  // A rule's view of the program in a taped round: the choice is a read of the run.
  const noticed = noticedProgram(program);
  if (noticed) {
    const choice = deviceChoiceOf(noticed.program);
    noticed.tape.read({ kind: 'deviceChoice' }, choice);
    return choice;
  }
  let found = cache.get(program);
  if (!found) cache.set(program, (found = readDeviceChoice(program)));
  return found;
}

/**
 * What one top-level statement says, kept with the tree between analyses of a document while
 * the imports mean the same; not kept when it asked another module of the project (whose
 * tree is read again for every analysis).
 */
const keptStatements = new WeakMap<Node, { imports: string; choice: DeviceChoice }>();

function readDeviceChoice(program: Program): DeviceChoice {
  const imports = program.imports;
  const choice: DeviceChoice = {};
  for (const q of imports.qualifiedNames()) if (CUDA_ONLY_LIBRARIES.test(q)) choice.cudaOnly ??= `imports ${q.split('.')[0] === 'torch' ? q : q.split('.')[0]}`;
  for (const unit of program.modules[0].units) {
    for (const part of statementChoices(program, unit)) {
      choice.availabilityCheck ??= part.availabilityCheck;
      choice.cudaOnly ??= part.cudaOnly;
      choice.distributed ??= part.distributed;
      choice.savesCheckpoints ??= part.savesCheckpoints;
      choice.runTimeChoice ??= part.runTimeChoice;
      choice.gpuSwitchChoice ??= part.gpuSwitchChoice;
      if (!choice.asksMps && part.asksMps) {
        choice.asksMps = part.asksMps;
        choice.asksMpsUnit = unit.index;
      }
      choice.dataParallel ??= part.dataParallel;
      choice.deviceOption ??= part.deviceOption;
      choice.deviceParameter ??= part.deviceParameter;
    }
  }
  const facts = readCudaFacts(program);
  if (facts.staticCuda.length) choice.staticCuda = facts.staticCuda;
  if (facts.cudaMachinery) choice.cudaMachinery = facts.cudaMachinery;
  choice.cudaMachinery ??= importsCudaOnlyKernels(program);
  if (facts.cudaAnyway) choice.cudaAnyway = facts.cudaAnyway;
  if (!choice.cudaAnyway) choice.runTimeChoice ??= choice.gpuSwitchChoice;
  if (choice.availabilityCheck) choice.runTimeChoice = 'checks whether an accelerator is available';
  if (!choice.runTimeChoice) {
    choice.runTimeChoice = importersChoice(program);
    if (choice.runTimeChoice) choice.choiceByImporter = true;
  }
  return choice;
}

/** What each top-level statement of `unit` says, last statement first (the order a stack walk joins them in). */
function statementChoices(program: Program, unit: { index: number; root: Node }): DeviceChoice[] {
  const signature = program.importsAt(unit.index).signature();
  const statements = children(unit.root).filter((c) => c.type !== 'string' && c.type !== 'comment');
  const out: DeviceChoice[] = [];
  for (let i = statements.length - 1; i >= 0; i--) {
    const statement = statements[i];
    const old = keptStatements.get(statement);
    let part = old?.imports === signature ? old.choice : undefined;
    if (!part) {
      const scan = { askedProject: false };
      part = statementChoice(program, unit.index, statement, scan);
      if (!scan.askedProject) keptStatements.set(statement, { imports: signature, choice: part });
    }
    out.push(part);
  }
  return out;
}

/**
 * A file that chooses nothing itself runs where a file that imports it runs: `utils.py`'s
 * helpers are called by a demo that checks availability or takes a --device option, so they
 * are meant to run on a machine without a GPU too. Only the importer's whole-program choices
 * count, not a device parameter of one of its functions.
 */
function importersChoice(program: Program): string | undefined {
  for (const m of program.importerModules) {
    const importer = program.modules[m];
    for (const unit of importer.units) {
      for (const part of statementChoices(program, unit)) {
        const why = part.availabilityCheck ? 'checks whether an accelerator is available' : part.deviceOption ? part.runTimeChoice ?? part.gpuSwitchChoice : undefined;
        if (why) return `is used by ${baseName(importer.path)}, which ${why}`;
      }
    }
  }
  return undefined;
}

function baseName(path: string | undefined): string {
  return path?.split(/[\\/]/).pop() ?? 'a file that imports it';
}

function statementChoice(program: Program, unit: number, statement: Node, scan: { askedProject: boolean }): DeviceChoice {
  const imports = program.importsAt(unit);
  const choice: DeviceChoice = {};
  const stack: Node[] = [statement];
  while (stack.length) {
    const node = stack.pop()!;
    // `assert torch.cuda.device_count() >= 2`: the code requires a GPU, it does not choose one.
    if (node.type === 'assert_statement' && assertsCuda(node, imports)) {
      choice.cudaOnly ??= 'asserts that a GPU is there';
      continue;
    }
    // `if not torch.cuda.is_available(): print(...); sys.exit(1)`: the same requirement, written out.
    if (node.type === 'if_statement' && stopsWithoutCuda(node, imports)) {
      choice.cudaOnly ??= 'stops when no GPU is there';
      continue;
    }
    if (node.type === 'attribute' || node.type === 'identifier') noteName(node, imports, choice);
    else if (node.type === 'call') noteCall(program, unit, node, choice, scan);
    else if (node.type === 'parameters' || node.type === 'lambda_parameters') noteParameters(node, choice);
    else if (node.type === 'decorated_definition') noteCliDecorator(node, imports, choice);
    for (const c of children(node)) if (c.type !== 'string' && c.type !== 'comment') stack.push(c);
  }
  return choice;
}

/** An assert whose condition asks for CUDA (`torch.cuda.is_available()`, a device count), not its absence. */
function assertsCuda(statement: Node, imports: ImportTable): boolean {
  const condition = children(statement)[0];
  return !!condition && condition.type !== 'not_operator' && asksForCuda(condition, imports);
}

/** A condition that is true where CUDA is there (`torch.cuda.is_available()`, a device count), outside any `not`. */
function asksForCuda(condition: Node, imports: ImportTable): boolean {
  const stack: Node[] = [condition];
  while (stack.length) {
    const node = stack.pop()!;
    if (node.type === 'not_operator') continue;
    if ((node.type === 'attribute' || node.type === 'identifier') && CUDA_REQUIREMENTS.has(imports.qualify(node) ?? '')) return true;
    stack.push(...children(node));
  }
  return false;
}

const CUDA_REQUIREMENTS = new Set(['torch.cuda.is_available', 'torch.cuda.device_count']);

/** Calls that report: what a check for a missing GPU may do before it stops the program. */
const REPORTS = /^(print|warnings\.warn|logging\.\w+|logger\.\w+|log\.\w+)$/;
/** Calls that end the program, wherever they are called. */
const EXITS = /^(sys\.exit|exit|quit|os\._exit)$/;

/**
 * `if not torch.cuda.is_available():` whose block only reports and then ends the program
 * (`sys.exit(1)`, or a `raise` at top level), with no `else`: the program needs a GPU and
 * says so; it chooses no device. A function that returns early guards only itself.
 */
function stopsWithoutCuda(statement: Node, imports: ImportTable): boolean {
  const condition = field(statement, 'condition');
  const body = field(statement, 'consequence');
  if (!condition || !body || condition.type !== 'not_operator' || children(statement).some((c) => c.type === 'else_clause' || c.type === 'elif_clause')) return false;
  const asked = field(condition, 'argument');
  if (!asked || !asksForCuda(asked, imports)) return false;
  const calleeOf = (s: Node) => {
    const call = s.type === 'expression_statement' ? children(s)[0] : undefined;
    return call?.type === 'call' ? field(call, 'function')?.text : undefined;
  };
  const topLevel = statement.parent?.type === 'module';
  const statements = children(body).filter((s) => s.type !== 'comment' && s.type !== 'pass_statement');
  const last = statements[statements.length - 1];
  const ends = !!last && (EXITS.test(calleeOf(last) ?? '') || (topLevel && last.type === 'raise_statement'));
  return ends && statements.slice(0, -1).every((s) => REPORTS.test(calleeOf(s) ?? ''));
}

function noteName(node: Node, imports: ImportTable, choice: DeviceChoice): void {
  // Only the whole dotted name: `torch.cuda` inside `torch.cuda.is_available` is not a use of its own.
  if (node.parent?.type === 'attribute' && field(node.parent, 'object')?.id === node.id) return;
  const q = imports.qualify(node);
  if (q && AVAILABILITY_CHECKS.has(q) && !onlyReported(node, imports)) choice.availabilityCheck ??= node;
  if (q && DISTRIBUTED_WRAPPERS.test(q)) choice.distributed ??= node;
  if (q && MPS_CHECKS.test(q)) choice.asksMps ??= node;
  if (q && DATA_PARALLEL.test(q)) choice.dataParallel ??= node;
}

/**
 * `print("GPUs:", torch.cuda.device_count())`: an environment report decides nothing. The
 * name is only an argument (or part of one) of a call that reports, within its statement.
 */
function onlyReported(node: Node, imports: ImportTable): boolean {
  for (let n = node.parent; n && !n.type.endsWith('statement'); n = n.parent) {
    if (n.type === 'call' && n.id !== node.parent?.id) {
      const callee = field(n, 'function');
      if (callee && REPORTS.test(imports.qualify(callee) ?? callee.text)) return true;
    }
  }
  return false;
}

function noteCall(program: Program, unit: number, call: Node, choice: DeviceChoice, scan: { askedProject: boolean }): void {
  const callee = field(call, 'function');
  if (!callee) return;
  const q = program.importsAt(unit).qualify(callee);
  if (q && CUDA_ONLY_CALLS.has(q)) choice.cudaOnly ??= `calls ${q}`;
  if (q && (SAVES.has(q) || bodyCalls(program, unit, q, scan, (callee) => SAVES.has(callee)))) choice.savesCheckpoints ??= call;
  // `utils.init_distributed_mode(args)`: a project helper that binds the process to its GPU.
  if (q && bodyCalls(program, unit, q, scan, (callee) => CUDA_ONLY_CALLS.has(callee))) choice.cudaOnly ??= `calls ${q}, which binds a GPU`;
  const args = callArguments(call);
  if (q && /^torch\.distributed(\.distributed_c10d)?\.init_process_group$/.test(q)) {
    const backend = args.keywords.get('backend') ?? args.positional[0];
    if (backend && stringLiteralValue(backend)?.toLowerCase() === 'nccl') choice.cudaOnly ??= 'uses the NCCL backend (NVIDIA GPUs only)';
  }
  // `typer.run(main)`, `fire.Fire(main)`: the function's parameters are command-line options.
  if (q && CLI_ENTRY_POINTS.has(q)) {
    const target = args.positional[0];
    const fn = target?.type === 'identifier' ? program.moduleOf(unit).topFunctions.get(target.text) : undefined;
    // Read from another statement (the function's): this one's choice is not kept with it alone.
    scan.askedProject = true;
    const device = fn?.params.find((p) => DEVICE_PARAMETER.test(p.name));
    if (device) choice.runTimeChoice ??= `takes a --${device.name} option (\`${q}\`)`;
    if (device) choice.deviceOption ??= call;
  }
  // argparse's add_argument("--device", ...), click's option("--cuda"): the user picks the device.
  const method = callee.type === 'attribute' ? field(callee, 'attribute')?.text : undefined;
  if (method === 'add_argument' || method === 'option') {
    const option = args.positional.map((a) => stringLiteralValue(a)).find((s) => s !== undefined && DEVICE_OPTION.test(s));
    if (option && GPU_SWITCH.test(option)) choice.gpuSwitchChoice ??= `takes a ${option} option`;
    else if (option) choice.runTimeChoice ??= `takes a ${option} option`;
    if (option) choice.deviceOption ??= call;
  }
}

const SAVES = new Set(['torch.save', 'torch.serialization.save']);

/** Libraries that turn a function's parameters into command-line options. */
const CLI_ENTRY_POINTS = new Set(['typer.run', 'fire.Fire']);

/** Decorators that do the same to the function they decorate (`@call_parse def train(..., device='cuda')`). */
const CLI_DECORATORS = new Set(['fastcore.script.call_parse']);

function noteCliDecorator(definition: Node, imports: ImportTable, choice: DeviceChoice): void {
  const fn = field(definition, 'definition');
  const params = fn?.type === 'function_definition' ? field(fn, 'parameters') : null;
  if (!params) return;
  for (const decorator of children(definition)) {
    if (decorator.type !== 'decorator') continue;
    const expr = unparen(children(decorator)[0] ?? decorator);
    const q = imports.qualify(expr.type === 'call' ? field(expr, 'function') ?? expr : expr);
    if (!q || !CLI_DECORATORS.has(q)) continue;
    const device = children(params).map((p) => (p.type === 'identifier' ? p : field(p, 'name') ?? children(p)[0])).find((n) => n?.type === 'identifier' && DEVICE_PARAMETER.test(n.text));
    if (device) {
      choice.runTimeChoice ??= `takes a --${device.text} option (\`@${q.split('.').pop()}\`)`;
      choice.deviceOption ??= definition;
    }
  }
}

/** `utils.save_model(...)`: a project module's function whose own body calls torch.save (or what `wanted` names). */
function bodyCalls(program: Program, unit: number, qualified: string, scan: { askedProject: boolean }, wanted: (callee: string) => boolean): boolean {
  if (qualified.startsWith('torch.')) return false;
  const member = program.member(unit, qualified);
  if (member) scan.askedProject = true;
  if (member?.kind !== 'function') return false;
  const imports = program.importsAt(member.fn.unit);
  const stack: Node[] = [member.fn.body];
  while (stack.length) {
    const node = stack.pop()!;
    const callee = node.type === 'call' ? field(node, 'function') : null;
    if (callee && wanted(imports.qualify(callee) ?? '')) return true;
    stack.push(...children(node));
  }
  return false;
}

/** A function that takes its device as a parameter runs wherever its caller says. */
function noteParameters(params: Node, choice: DeviceChoice): void {
  for (const p of children(params)) {
    const name = p.type === 'identifier' ? p : field(p, 'name') ?? children(p)[0];
    if (name?.type !== 'identifier' || !DEVICE_PARAMETER.test(name.text)) continue;
    choice.runTimeChoice ??= `takes its device as the parameter \`${name.text}\``;
    if (!isCudaLiteral(field(p, 'value'))) choice.deviceParameter ??= name;
  }
}
